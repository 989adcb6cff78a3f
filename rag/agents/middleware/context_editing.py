"""Clear old tool results from what the model sees: :class:`ContextEditingMiddleware`
with :class:`ClearToolUsesEdit` (langchain 1.x's parameters and defaults).

The edit applies to the messages of each model call only; the state keeps the full
conversation (as in LangChain).

>>> ClearToolUsesEdit().trigger, ClearToolUsesEdit().keep, ClearToolUsesEdit().placeholder
(100000, 3, '[cleared]')
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Awaitable, Callable, Iterable, Literal, Optional, Protocol, Sequence

from rag.agents.middleware.summarization import count_tokens_approximately
from rag.agents.middleware.types import AgentMiddleware, ModelRequest
from rag.errors import ValidationError
from rag.messages import AIMessage, BaseMessage, ToolMessage

__all__ = ["ContextEditingMiddleware", "ClearToolUsesEdit", "ContextEdit"]

TokenCounter = Callable[[Sequence[BaseMessage]], int]


class ContextEdit(Protocol):
    """An edit of the messages a model call sees: changes ``messages`` in place."""

    def apply(self, messages: list[BaseMessage], *, count_tokens: TokenCounter) -> None: ...


@dataclass
class ClearToolUsesEdit:
    """Once the messages pass ``trigger`` tokens (default 100,000), replace the content of
    tool results by ``placeholder`` (default "[cleared]"), oldest first, keeping the
    newest ``keep`` (default 3) and those of ``exclude_tools``; stop once
    ``clear_at_least`` tokens (default 0: no stop) were freed. ``clear_tool_inputs``
    (default False) also empties the arguments of the calls whose results were cleared."""

    trigger: int = 100_000
    clear_at_least: int = 0
    keep: int = 3
    clear_tool_inputs: bool = False
    exclude_tools: Sequence[str] = ()
    placeholder: str = "[cleared]"

    def apply(self, messages: list[BaseMessage], *, count_tokens: TokenCounter) -> None:
        before = count_tokens(messages)
        if before <= self.trigger:
            return
        positions = [i for i, m in enumerate(messages) if isinstance(m, ToolMessage)]
        positions = positions[:len(positions) - self.keep] if self.keep < len(positions) else []
        for i in positions:
            answer = messages[i]
            if answer.response_metadata.get("context_editing", {}).get("cleared"):
                continue
            asked_at = next((j for j in range(i - 1, -1, -1) if isinstance(messages[j], AIMessage)), None)
            if asked_at is None:
                continue
            call = next((c for c in messages[asked_at].tool_calls if c.get("id") == answer.tool_call_id), None)
            if call is None or (answer.name or call["name"]) in self.exclude_tools:
                continue
            metadata = {**answer.response_metadata, "context_editing": {"cleared": True, "strategy": "clear_tool_uses"}}
            messages[i] = replace(answer, content=self.placeholder, artifact=None, response_metadata=metadata)
            if self.clear_tool_inputs:
                messages[asked_at] = _without_input(messages[asked_at], answer.tool_call_id)
            if self.clear_at_least > 0 and before - count_tokens(messages) >= self.clear_at_least:
                break


def _without_input(message: AIMessage, call_id: str) -> AIMessage:
    calls = [{**c, "args": {}} if c.get("id") == call_id else c for c in message.tool_calls]
    entry = dict(message.response_metadata.get("context_editing", {}))
    entry["cleared_tool_inputs"] = sorted({*entry.get("cleared_tool_inputs", []), call_id})
    return replace(message, tool_calls=calls, response_metadata={**message.response_metadata, "context_editing": entry})


class ContextEditingMiddleware(AgentMiddleware):
    """Apply ``edits`` (default: one :class:`ClearToolUsesEdit`) to each model call's
    messages. Tokens are counted by ``token_counter`` if given, else
    ``token_count_method``: ``"approximate"`` (default) or ``"model"`` (the model's
    ``get_num_tokens_from_messages``)."""

    def __init__(self, *, edits: Optional[Iterable[Any]] = None,
                 token_count_method: Literal["approximate", "model"] = "approximate",
                 token_counter: Optional[TokenCounter] = None) -> None:
        if token_count_method not in ("approximate", "model"):
            raise ValidationError(f"token_count_method must be 'approximate' or 'model', got {token_count_method!r}")
        self.edits = list(edits if edits is not None else (ClearToolUsesEdit(),))
        self.token_count_method, self.token_counter = token_count_method, token_counter

    def _counter(self, request: ModelRequest) -> TokenCounter:
        if self.token_counter is not None:
            return self.token_counter
        if self.token_count_method == "approximate":
            return count_tokens_approximately
        system = [request.system_message] if request.system_message else []
        return lambda messages: request.model.get_num_tokens_from_messages([*system, *messages])

    def _edited(self, request: ModelRequest) -> ModelRequest:
        if not request.messages:
            return request
        messages, count = list(request.messages), self._counter(request)
        for edit in self.edits:
            edit.apply(messages, count_tokens=count)
        return request.override(messages=messages)

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Any]) -> Any:
        return handler(self._edited(request))

    async def awrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[Any]]) -> Any:
        return await handler(self._edited(request))
