"""A person approves, edits, rejects or answers tool calls before they run:
:class:`HumanInTheLoopMiddleware` (langchain 1.x's, batched mode).

After the model asks for tools named in ``interrupt_on``, the run pauses with
``interrupt({"action_requests": [...], "review_configs": [...]})`` (one entry per call
to review) and resumes with ``Command(resume={"decisions": [...]})``, one decision per
request, in order: ``{"type": "approve"}``, ``{"type": "edit", "edited_action": {"name":
..., "args": {...}}}``, ``{"type": "reject", "message": "why"}`` (optional message) or
``{"type": "respond", "message": "the answer"}``. Needs a checkpointer and a thread id.

>>> HumanInTheLoopMiddleware({"delete": True}).interrupt_on["delete"]["allowed_decisions"]
['approve', 'edit', 'reject', 'respond']
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Annotated, Any, Callable, Literal, Optional, Union

from rag.agents.middleware.types import AgentMiddleware, AgentState, PrivateStateAttr, ToolCallRequest
from rag.errors import ValidationError
from rag.graph.types import Command, interrupt
from rag.messages import AIMessage, ToolMessage

__all__ = ["HumanInTheLoopMiddleware", "DECISIONS"]

DECISIONS = ("approve", "edit", "reject", "respond")
_EDITED = "hitl_edited_tool_calls"
EDIT_NOTICE = (
    "Note: a human reviewer replaced this tool call before it ran. The call recorded in your message is the one you "
    "produced, not the one that executed. This was intentional and authorized. Do not re-issue your original call."
)


class _State(AgentState, total=False):
    hitl_edited_tool_calls: Annotated[dict, PrivateStateAttr]


def _answer(call: dict[str, Any], decision: dict[str, Any]) -> ToolMessage:
    """The ToolMessage for a rejected or answered call (LangChain's wording)."""
    if decision["type"] == "respond":
        text = decision["message"]
    elif decision.get("message"):
        text = f"User rejected the tool call for `{call['name']}` with reason: {decision['message']}"
    else:
        text = (f"User rejected the tool call for `{call['name']}` with id {call['id']}. The tool was not executed. "
                "Do not retry this tool call unless the user explicitly requests it.")
    return ToolMessage(text, name=call["name"], tool_call_id=call["id"],
                       status="success" if decision["type"] == "respond" else "error")


class HumanInTheLoopMiddleware(AgentMiddleware):
    """Pause before the tools in ``interrupt_on`` run. ``interrupt_on``: tool name ->
    True (all four decisions), False (no review) or a config ``{"allowed_decisions":
    [...], "description": str or f(tool_call, state, runtime)}``. ``description_prefix``
    (default "Tool execution requires approval") starts the default description;
    ``edit_notice`` (None: none) is put before the result of an edited call so the model
    knows what ran. ``interrupt_mode``: only ``"batched"`` (one pause for all the calls
    of a reply) is supported here; ``"per_call"`` raises."""

    state_schema = _State

    def __init__(self, interrupt_on: dict[str, Union[bool, dict[str, Any]]], *,
                 description_prefix: str = "Tool execution requires approval", edit_notice: Optional[str] = EDIT_NOTICE,
                 interrupt_mode: Literal["batched", "per_call"] = "batched") -> None:
        if interrupt_mode not in ("batched", "per_call"):
            raise ValidationError(f"`interrupt_mode` must be 'batched' or 'per_call', got {interrupt_mode!r}.")
        if interrupt_mode != "batched":
            raise ValidationError(f"interrupt_mode={interrupt_mode!r} is not supported here; use 'batched' (one pause "
                                  "for all the calls of a model reply)")
        configs: dict[str, dict[str, Any]] = {}
        for name, config in interrupt_on.items():
            if config is True:
                configs[name] = {"allowed_decisions": list(DECISIONS)}
            elif config is False:
                continue
            elif isinstance(config, dict) and config.get("allowed_decisions"):
                unknown = [d for d in config["allowed_decisions"] if d not in DECISIONS]
                if unknown:
                    raise ValidationError(f"interrupt_on[{name!r}]: unknown decision {unknown[0]!r}; use {DECISIONS}")
                configs[name] = config
            else:
                raise ValidationError(
                    f"Invalid `interrupt_on` config for tool '{name}': `allowed_decisions` must be a non-empty list "
                    f"of decision types (e.g. ['approve', 'reject']); got {config!r:.80}")
        self.interrupt_on, self.interrupt_mode = configs, interrupt_mode
        self.description_prefix, self.edit_notice = description_prefix, edit_notice

    @staticmethod
    def _applies(call: dict[str, Any], config: dict[str, Any], state: Any, runtime: Any) -> bool:
        """A config's ``when(request)`` predicate (default: always review)."""
        when = config.get("when")
        return when is None or bool(when(ToolCallRequest(call, None, state, runtime)))

    def _describe(self, call: dict[str, Any], config: dict[str, Any], state: Any, runtime: Any) -> str:
        described: Union[str, Callable[..., str], None] = config.get("description")
        if callable(described):
            return described(call, state, runtime)
        if described is not None:
            return described
        return f"{self.description_prefix}\n\nTool: {call['name']}\nArgs: {call['args']}"

    def after_model(self, state: dict[str, Any], runtime: Any) -> Optional[dict[str, Any]]:
        last = next((m for m in reversed(state.get("messages", [])) if isinstance(m, AIMessage)), None)
        if last is None or not last.tool_calls:
            return None
        reviewed = [i for i, call in enumerate(last.tool_calls) if call["name"] in self.interrupt_on
                    and self._applies(call, self.interrupt_on[call["name"]], state, runtime)]
        if not reviewed:
            return {_EDITED: {}} if state.get(_EDITED) else None
        requests, reviews = [], []
        for i in reviewed:
            call = last.tool_calls[i]
            config = self.interrupt_on[call["name"]]
            requests.append({"name": call["name"], "args": call["args"],
                             "description": self._describe(call, config, state, runtime)})
            reviews.append({"action_name": call["name"], "allowed_decisions": config["allowed_decisions"]})
        decisions = interrupt({"action_requests": requests, "review_configs": reviews})["decisions"]
        if len(decisions) != len(reviewed):
            raise ValidationError(f"Number of human decisions ({len(decisions)}) does not match number of hanging "
                                  f"tool calls ({len(reviewed)}).")
        answers, edited = [], {}
        for i, decision in zip(reviewed, decisions):
            call = last.tool_calls[i]
            allowed = self.interrupt_on[call["name"]]["allowed_decisions"]
            kind = decision.get("type") if isinstance(decision, dict) else None
            if kind not in allowed:
                raise ValidationError(f"Unexpected human decision: {decision}. Decision type {kind!r} is not allowed "
                                      f"for tool '{call['name']}'. Expected one of {allowed} based on the tool's "
                                      "configuration.")
            if kind == "edit":
                edited[call["id"]] = decision["edited_action"]
            elif kind in ("reject", "respond"):
                answers.append(_answer(call, decision))
        # The reply itself is kept as the model wrote it (same id: add_messages replaces it
        # by itself); rejected calls are answered now, so the tool node skips them.
        return {"messages": [last, *answers], _EDITED: edited}

    def _edited(self, request: ToolCallRequest) -> tuple[ToolCallRequest, Optional[dict[str, Any]]]:
        executed = (request.state.get(_EDITED) or {}).get(request.tool_call.get("id")) \
            if isinstance(request.state, dict) else None
        if executed is None:
            return request, None
        call = {**request.tool_call, "name": executed["name"], "args": executed["args"]}
        return request.override(tool_call=call, tool=request.tool if executed["name"] == request.tool_call["name"]
                                else None), executed

    def _notice(self, executed: dict[str, Any], *, has_content: bool) -> str:
        notice = (f"{self.edit_notice} Executed instead: {executed['name']} with arguments "
                  f"{json.dumps(executed['args'], default=str)}.")
        return f"{notice}\n\nTool response:" if has_content else notice

    def _with_notice(self, message: ToolMessage, executed: dict[str, Any]) -> ToolMessage:
        """``message`` with the edit notice first (once): text before text, a block (or a
        string among strings) before list content."""
        notice = self._notice(executed, has_content=bool(message.content))
        content = message.content
        if isinstance(content, str):
            return message if notice in content else replace(
                message, content=f"{notice}\n{content}" if content else notice)
        if any(notice in str(block) for block in content):
            return message
        first: Any = notice if content and all(isinstance(b, str) for b in content) else {"type": "text", "text": notice}
        return replace(message, content=[first, *content])

    def _noted(self, result: Any, executed: Optional[dict[str, Any]], call_id: Any = None) -> Any:
        """The result of an edited call with the notice, so the model knows what ran (in a
        Command's update too, on the ToolMessage answering this call)."""
        if not self.edit_notice or executed is None:
            return result
        if isinstance(result, ToolMessage):
            return self._with_notice(result, executed)
        if isinstance(result, Command) and isinstance(result.update, dict) and \
                isinstance(result.update.get("messages"), list):
            messages = [self._with_notice(m, executed) if isinstance(m, ToolMessage) and m.tool_call_id == call_id
                        else m for m in result.update["messages"]]
            return replace(result, update={**result.update, "messages": messages})
        return result

    def wrap_tool_call(self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Any]) -> Any:
        request, executed = self._edited(request)
        return self._noted(handler(request), executed, request.tool_call.get("id"))

    async def awrap_tool_call(self, request: ToolCallRequest, handler: Callable[..., Any]) -> Any:
        request, executed = self._edited(request)
        return self._noted(await handler(request), executed, request.tool_call.get("id"))
