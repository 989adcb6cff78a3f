"""Call caps as middleware: :class:`ModelCallLimitMiddleware` and
:class:`ToolCallLimitMiddleware` (langchain 1.x's, same parameters, defaults and messages).

Counts are kept per thread (saved with a checkpointer, so they span runs) and per run
(``UntrackedValue``: each ``invoke`` starts at zero).

>>> ModelCallLimitMiddleware(run_limit=5).exit_behavior
'end'
>>> ToolCallLimitMiddleware(tool_name="search", run_limit=2).name
'ToolCallLimitMiddleware[search]'
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from rag.agents.middleware.types import AgentMiddleware, AgentState, PrivateStateAttr, UntrackedValue, hook_config
from rag.errors import RagError, ValidationError
from rag.messages import AIMessage, ToolMessage

__all__ = ["ModelCallLimitMiddleware", "ToolCallLimitMiddleware", "ModelCallLimitExceededError",
           "ToolCallLimitExceededError"]


def _check_limits(thread_limit: Optional[int], run_limit: Optional[int], behavior: str, allowed: tuple[str, ...]) -> None:
    if thread_limit is None and run_limit is None:
        raise ValidationError("At least one limit must be specified (thread_limit or run_limit)")
    for name, value in (("thread_limit", thread_limit), ("run_limit", run_limit)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValidationError(f"{name} must be an int >= 0 or None, got {value!r}")
    if behavior not in allowed:
        raise ValidationError(f"Invalid exit_behavior: {behavior!r}. Must be one of {allowed}")


# -- model calls -----------------------------------------------------------------------------
class ModelCallLimitState(AgentState, total=False):
    thread_model_call_count: Annotated[int, PrivateStateAttr]
    run_model_call_count: Annotated[int, UntrackedValue, PrivateStateAttr]


def _model_limit_text(thread_count: int, run_count: int, thread_limit: Optional[int], run_limit: Optional[int]) -> str:
    exceeded = []
    if thread_limit is not None and thread_count >= thread_limit:
        exceeded.append(f"thread limit ({thread_count}/{thread_limit})")
    if run_limit is not None and run_count >= run_limit:
        exceeded.append(f"run limit ({run_count}/{run_limit})")
    return f"Model call limits exceeded: {', '.join(exceeded)}"


class ModelCallLimitExceededError(RagError, RuntimeError):
    """The agent would call its model past a :class:`ModelCallLimitMiddleware` limit
    (``exit_behavior="error"``)."""

    def __init__(self, thread_count: int, run_count: int, thread_limit: Optional[int], run_limit: Optional[int]) -> None:
        self.thread_count, self.run_count = thread_count, run_count
        self.thread_limit, self.run_limit = thread_limit, run_limit
        super().__init__(_model_limit_text(thread_count, run_count, thread_limit, run_limit))


class ModelCallLimitMiddleware(AgentMiddleware):
    """At most ``thread_limit`` model calls per thread and ``run_limit`` per run (None: no
    limit; at least one is required). ``exit_behavior="end"`` (default) ends the run with
    an AIMessage naming the limit; ``"error"`` raises :class:`ModelCallLimitExceededError`.

    >>> ModelCallLimitMiddleware(thread_limit=10, run_limit=5).run_limit
    5
    """

    state_schema = ModelCallLimitState

    def __init__(self, *, thread_limit: Optional[int] = None, run_limit: Optional[int] = None,
                 exit_behavior: Literal["end", "error"] = "end") -> None:
        _check_limits(thread_limit, run_limit, exit_behavior, ("end", "error"))
        self.thread_limit, self.run_limit, self.exit_behavior = thread_limit, run_limit, exit_behavior

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: dict[str, Any], runtime: Any) -> Optional[dict[str, Any]]:
        thread_count = state.get("thread_model_call_count", 0)
        run_count = state.get("run_model_call_count", 0)
        if (self.thread_limit is not None and thread_count >= self.thread_limit) or \
                (self.run_limit is not None and run_count >= self.run_limit):
            if self.exit_behavior == "error":
                raise ModelCallLimitExceededError(thread_count, run_count, self.thread_limit, self.run_limit)
            text = _model_limit_text(thread_count, run_count, self.thread_limit, self.run_limit)
            return {"jump_to": "end", "messages": [AIMessage(text)]}
        return None

    def after_model(self, state: dict[str, Any], runtime: Any) -> dict[str, Any]:
        return {"thread_model_call_count": state.get("thread_model_call_count", 0) + 1,
                "run_model_call_count": state.get("run_model_call_count", 0) + 1}


# -- tool calls ------------------------------------------------------------------------------
class ToolCallLimitState(AgentState, total=False):
    thread_tool_call_count: Annotated[dict, PrivateStateAttr]
    run_tool_call_count: Annotated[dict, UntrackedValue, PrivateStateAttr]


def _tool_limit_text(thread_count: int, run_count: int, thread_limit: Optional[int], run_limit: Optional[int],
                     tool_name: Optional[str]) -> str:
    exceeded = []
    if thread_limit is not None and thread_count > thread_limit:
        exceeded.append(f"thread limit exceeded ({thread_count}/{thread_limit} calls)")
    if run_limit is not None and run_count > run_limit:
        exceeded.append(f"run limit exceeded ({run_count}/{run_limit} calls)")
    what = f"'{tool_name}' tool" if tool_name else "Tool"
    return f"{what} call limit reached: {' and '.join(exceeded)}."


class ToolCallLimitExceededError(RagError, RuntimeError):
    """A tool call would pass a :class:`ToolCallLimitMiddleware` limit (``exit_behavior="error"``)."""

    def __init__(self, thread_count: int, run_count: int, thread_limit: Optional[int], run_limit: Optional[int],
                 tool_name: Optional[str] = None) -> None:
        self.thread_count, self.run_count, self.tool_name = thread_count, run_count, tool_name
        self.thread_limit, self.run_limit = thread_limit, run_limit
        super().__init__(_tool_limit_text(thread_count, run_count, thread_limit, run_limit, tool_name))


class ToolCallLimitMiddleware(AgentMiddleware):
    """At most ``thread_limit`` / ``run_limit`` calls of ``tool_name`` (None: all tools).
    ``exit_behavior``: ``"continue"`` (default) answers the calls past the limit with an
    error ToolMessage and lets the model go on; ``"error"`` raises
    :class:`ToolCallLimitExceededError`; ``"end"`` answers every pending call and ends the
    run with an AIMessage naming the limit. Several instances (one per tool) may be used:
    each is named ``ToolCallLimitMiddleware[<tool>]``."""

    state_schema = ToolCallLimitState

    def __init__(self, *, tool_name: Optional[str] = None, thread_limit: Optional[int] = None,
                 run_limit: Optional[int] = None, exit_behavior: Literal["continue", "error", "end"] = "continue") -> None:
        _check_limits(thread_limit, run_limit, exit_behavior, ("continue", "error", "end"))
        if thread_limit is not None and run_limit is not None and run_limit > thread_limit:
            raise ValidationError(f"run_limit ({run_limit}) cannot exceed thread_limit ({thread_limit}). "
                                  "The run limit should be less than or equal to the thread limit.")
        self.tool_name, self.thread_limit, self.run_limit = tool_name, thread_limit, run_limit
        self.exit_behavior = exit_behavior

    @property
    def name(self) -> str:
        return f"{type(self).__name__}[{self.tool_name}]" if self.tool_name else type(self).__name__

    def _over(self, thread_count: int, run_count: int) -> bool:
        return (self.thread_limit is not None and thread_count + 1 > self.thread_limit) or \
            (self.run_limit is not None and run_count + 1 > self.run_limit)

    @hook_config(can_jump_to=["end"])
    def after_model(self, state: dict[str, Any], runtime: Any) -> Optional[dict[str, Any]]:
        last = next((m for m in reversed(state.get("messages", [])) if isinstance(m, AIMessage)), None)
        if last is None or not last.tool_calls:
            return None
        key = self.tool_name or "__all__"
        thread_counts = dict(state.get("thread_tool_call_count") or {})
        run_counts = dict(state.get("run_tool_call_count") or {})
        start_thread = thread_count = thread_counts.get(key, 0)
        run_count = run_counts.get(key, 0)
        allowed, blocked = [], []
        for call in last.tool_calls:
            if self.tool_name is not None and call["name"] != self.tool_name:
                continue
            if self._over(thread_count, run_count):
                blocked.append(call)
            else:
                allowed.append(call)
                thread_count, run_count = thread_count + 1, run_count + 1
        thread_counts[key], run_counts[key] = thread_count, run_count + len(blocked)
        counts = {"thread_tool_call_count": thread_counts, "run_tool_call_count": run_counts}
        if not blocked:
            return counts if allowed else None
        if self.exit_behavior == "error":
            raise ToolCallLimitExceededError(thread_count + len(blocked), run_counts[key], self.thread_limit,
                                             self.run_limit, self.tool_name)
        text = (f"Tool call limit exceeded. Do not call '{self.tool_name}' again." if self.tool_name
                else "Tool call limit exceeded. Do not make additional tool calls.")
        answers: list[Any] = [ToolMessage(text, tool_call_id=c["id"], name=c.get("name"), status="error")
                              for c in blocked]
        if self.exit_behavior == "continue":
            return {**counts, "messages": answers}
        blocked_ids = {c["id"] for c in blocked}
        answers.extend(ToolMessage("Execution stopped before this tool call could run because another tool call "
                                   "in the same batch exceeded the limit.", tool_call_id=c["id"], name=c.get("name"),
                                   status="error") for c in last.tool_calls if c["id"] not in blocked_ids)
        answers.append(AIMessage(_tool_limit_text(thread_count + len(blocked), run_counts[key], self.thread_limit,
                                                  self.run_limit, self.tool_name)))
        thread_counts[key] = start_thread  # the batch did not run
        return {**counts, "jump_to": "end", "messages": answers}
