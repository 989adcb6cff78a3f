"""Offer the model only the tools a question needs: :class:`LLMToolSelectorMiddleware` asks
a (small) model to pick them before each call (langchain 1.x's parameters and defaults).

The selection model answers through ``with_structured_output`` with ``{"tools": [names]}``
(a tool named ``ToolSelectionResponse``).

>>> LLMToolSelectorMiddleware(max_tools=2).max_tools
2
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Literal, Optional, Sequence, Union

from rag.agents.middleware.types import AgentMiddleware, ModelRequest
from rag.errors import ValidationError
from rag.messages import HumanMessage, SystemMessage

__all__ = ["LLMToolSelectorMiddleware", "DEFAULT_SYSTEM_PROMPT"]

DEFAULT_SYSTEM_PROMPT = "Your goal is to select the most relevant tools for answering the user's query."

OnParsingFailure = Union[Literal["error", "none", "all"], list, Callable[[Any], list]]


class LLMToolSelectorMiddleware(AgentMiddleware):
    """Before each model call, ask ``model`` (default None: the agent's own model) which of
    the offered tools fit the latest human message, and offer only those (at most
    ``max_tools``, default None: no cap) plus ``always_include`` (names). A malformed
    selection is asked again ``max_retries`` times (default 1), then ``on_parsing_failure``:
    ``"error"`` (default) raises, ``"none"`` offers no tools, ``"all"`` all, a list those
    names, a function of the reply a list. Provider tool dicts are always kept."""

    def __init__(self, *, model: Any = None, system_prompt: str = DEFAULT_SYSTEM_PROMPT,
                 max_tools: Optional[int] = None, always_include: Optional[list[str]] = None, max_retries: int = 1,
                 on_parsing_failure: OnParsingFailure = "error") -> None:
        if max_retries < 0:
            raise ValidationError("max_retries must be >= 0")
        if max_tools is not None and max_tools < 1:
            raise ValidationError(f"max_tools must be >= 1 or None, got {max_tools!r}")
        if isinstance(model, str):
            raise ValidationError(f"LLMToolSelectorMiddleware needs a chat model object, got the name {model!r}")
        self.model, self.system_prompt, self.max_tools = model, system_prompt, max_tools
        self.always_include, self.max_retries = list(always_include or []), max_retries
        self.on_parsing_failure = on_parsing_failure

    def _plan(self, request: ModelRequest) -> Optional[tuple[Any, list[Any], list[str]]]:
        """(the structured selection model, its messages, the names it may choose), or None
        when there is nothing to choose from."""
        tools = [t for t in request.tools if not isinstance(t, dict)]
        known = {t.name for t in tools}
        missing = [n for n in self.always_include if n not in known]
        if missing:
            raise ValidationError(f"Tools in always_include not found in request: {missing}. "
                                  f"Available tools: {sorted(known)}")
        choosable = [t for t in tools if t.name not in self.always_include]
        if not choosable:
            return None
        question = next((m for m in reversed(request.messages) if isinstance(m, HumanMessage)), None)
        if question is None:
            raise ValidationError("LLMToolSelectorMiddleware found no user message to select tools for")
        prompt = self.system_prompt
        if self.max_tools is not None:
            prompt += ("\nIMPORTANT: List the tool names in order of relevance, with the most relevant first. If you "
                       f"exceed the maximum number of tools, only the first {self.max_tools} will be used.")
        names = [t.name for t in choosable]
        schema = {"title": "ToolSelectionResponse", "type": "object", "required": ["tools"], "properties": {"tools": {
            "type": "array", "description": "Tools to use. Place the most relevant tools first.",
            "items": {"anyOf": [{"const": t.name, "description": t.description} for t in choosable]}}}}
        selector = (self.model or request.model).with_structured_output(schema, include_raw=True)
        return selector, [SystemMessage(prompt), question], names

    def _fallback(self, reply: Any, names: list[str]) -> list[str]:
        if self.on_parsing_failure == "error":
            raise ValidationError(f"LLMToolSelectorMiddleware: selection model returned a malformed response after "
                                  f"{self.max_retries} retries (expected a dict with a 'tools' list): {reply!r:.200}")
        if self.on_parsing_failure == "none":
            return []
        if self.on_parsing_failure == "all":
            return names
        return list(self.on_parsing_failure(reply) if callable(self.on_parsing_failure) else self.on_parsing_failure)

    def _chosen(self, request: ModelRequest, picked: Sequence[str], names: list[str], cap: bool) -> ModelRequest:
        wrong = [n for n in picked if n not in names]
        if wrong:
            raise ValidationError(f"Model selected invalid tools: {wrong}")
        keep: list[str] = []
        for name in picked:
            if name not in keep and (not cap or self.max_tools is None or len(keep) < self.max_tools):
                keep.append(name)
        tools = [t for t in request.tools if not isinstance(t, dict) and t.name in keep]
        tools += [t for t in request.tools if not isinstance(t, dict) and t.name in self.always_include]
        return request.override(tools=[*tools, *(t for t in request.tools if isinstance(t, dict))])

    @staticmethod
    def _valid(result: dict[str, Any]) -> bool:
        parsed = result["parsed"]
        return isinstance(parsed, dict) and isinstance(parsed.get("tools"), list)

    def _select(self, request: ModelRequest, results: list[dict[str, Any]], names: list[str]) -> ModelRequest:
        last = results[-1]
        if self._valid(last):
            return self._chosen(request, last["parsed"]["tools"], names, cap=True)
        return self._chosen(request, self._fallback(_malformed(last), names), names, cap=False)

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Any]) -> Any:
        plan = self._plan(request)
        if plan is None:
            return handler(request)
        selector, messages, names = plan
        results = [selector.invoke(messages)]
        while not self._valid(results[-1]) and len(results) <= self.max_retries:
            results.append(selector.invoke(messages))
        return handler(self._select(request, results, names))

    async def awrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[Any]]) -> Any:
        plan = self._plan(request)
        if plan is None:
            return await handler(request)
        selector, messages, names = plan
        results = [await selector.ainvoke(messages)]
        while not self._valid(results[-1]) and len(results) <= self.max_retries:
            results.append(await selector.ainvoke(messages))
        return await handler(self._select(request, results, names))


def _malformed(result: dict[str, Any]) -> Any:
    """What the selection model answered, as LangChain hands it to on_parsing_failure: the
    parsed value, else the arguments of its tool call (they failed the schema), else the reply."""
    if result["parsed"] is not None:
        return result["parsed"]
    calls = getattr(result["raw"], "tool_calls", None)
    return calls[0]["args"] if calls else result["raw"]
