"""The agent's default safety nets, as middleware: :class:`ModelCallCapMiddleware` and
:class:`ToolErrorMessagesMiddleware`.

``create_agent(middleware=[...])`` puts them first in the list unless you pass your own
(``agent.middleware`` shows the list it ran with), so what ``max_model_calls`` /
``on_model_call_limit`` and ``handle_tool_errors`` configure is visible and replaceable.
They wrap the calls and add no graph node, so the graph keeps LangChain's nodes.

>>> ModelCallCapMiddleware(max_model_calls=3).on_limit
'final_answer'
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Literal

from rag.agents.errors import ModelCallLimitExceededError
from rag.agents.middleware.types import AgentMiddleware, ModelRequest, ModelResponse
from rag.agents.middleware.types import ToolCallRequest
from rag.errors import ValidationError
from rag.graph.errors import GraphInterrupt
from rag.messages import AIMessage, SystemMessage

__all__ = ["ModelCallCapMiddleware", "ToolErrorMessagesMiddleware"]


class ModelCallCapMiddleware(AgentMiddleware):
    """At most ``max_model_calls`` (default 25) model calls answer one human message
    (counted from the state, so a checkpointed thread resumes with the right count).
    ``on_limit="final_answer"`` (default): the last allowed call is made without tools,
    asking for an answer from what the agent has (a tool call in that reply is dropped);
    ``"error"``: a call past the cap raises :class:`~rag.agents.ModelCallLimitExceededError`.
    Unlike :class:`ModelCallLimitMiddleware` (LangChain's), it never ends a run silently."""

    def __init__(self, max_model_calls: int = 25, on_limit: Literal["final_answer", "error"] = "final_answer") -> None:
        if isinstance(max_model_calls, bool) or not isinstance(max_model_calls, int) or max_model_calls < 1:
            raise ValidationError(f"max_model_calls must be an int >= 1, got {max_model_calls!r}")
        if on_limit not in ("final_answer", "error"):
            raise ValidationError(f"on_limit must be 'final_answer' or 'error', got {on_limit!r}")
        self.max_model_calls, self.on_limit = max_model_calls, on_limit

    def _request(self, request: ModelRequest) -> tuple[ModelRequest, bool]:
        from rag.agents.factory import FINAL_ANSWER_INSTRUCTION, _calls_this_turn

        used = _calls_this_turn(request.state.get("messages", []))
        if used >= self.max_model_calls:
            raise ModelCallLimitExceededError(self.max_model_calls, used)
        if not (request.tools and used == self.max_model_calls - 1 and self.on_limit == "final_answer"):
            return request, False
        instruction = SystemMessage(FINAL_ANSWER_INSTRUCTION.format(limit=self.max_model_calls))
        return request.override(tools=[], messages=[*request.messages, instruction]), True

    def _response(self, result: Any, last_call: bool) -> Any:
        from rag.agents.factory import _final_answer

        response = ModelResponse([result]) if isinstance(result, AIMessage) else result
        if not last_call or not isinstance(response, ModelResponse) or response.structured_response is not None:
            return result
        return ModelResponse([_final_answer(m, self.max_model_calls) if isinstance(m, AIMessage) else m
                              for m in response.result], response.structured_response)

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Any]) -> Any:
        request, last_call = self._request(request)
        return self._response(handler(request), last_call)

    async def awrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[Any]]) -> Any:
        request, last_call = self._request(request)
        return self._response(await handler(request), last_call)


class ToolErrorMessagesMiddleware(AgentMiddleware):
    """A tool that raises answers with an error ToolMessage the model can react to, as
    :class:`~rag.agents.ToolNode`'s ``handle_tool_errors`` (default True: LangGraph's
    "Error: ... Please fix your mistakes." text; a str, a function of the exception or
    exception classes as there). Outermost, so retries inside it see the error first."""

    def __init__(self, handle_tool_errors: Any = True) -> None:
        from rag.agents.tool_node import ToolNode

        if handle_tool_errors is False:
            raise ValidationError("ToolErrorMessagesMiddleware(handle_tool_errors=False) handles nothing; leave it out")
        self.handle_tool_errors = handle_tool_errors
        self._errors = ToolNode([], handle_tool_errors=handle_tool_errors)  # its error-to-message rules

    def wrap_tool_call(self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Any]) -> Any:
        try:
            return handler(request)
        except GraphInterrupt:
            raise  # a pause, not a failure
        except Exception as exc:
            return self._errors._on_error(request.tool_call, exc)

    async def awrap_tool_call(self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[Any]]) -> Any:
        try:
            return await handler(request)
        except GraphInterrupt:
            raise
        except Exception as exc:
            return self._errors._on_error(request.tool_call, exc)


def with_defaults(middleware: list[Any], max_model_calls: int, on_limit: str, handle_tool_errors: Any) -> list[Any]:
    """``middleware`` with the default cap and tool-error messages first, each unless the
    list already holds one (or ``handle_tool_errors=False``)."""
    defaults: list[Any] = []
    if not any(isinstance(m, ModelCallCapMiddleware) for m in middleware):
        defaults.append(ModelCallCapMiddleware(max_model_calls, on_limit))  # type: ignore[arg-type]
    if handle_tool_errors is not False and not any(isinstance(m, ToolErrorMessagesMiddleware) for m in middleware):
        defaults.append(ToolErrorMessagesMiddleware(handle_tool_errors))
    return [*defaults, *middleware]
