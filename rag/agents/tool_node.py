"""ToolNode: runs the tool calls of the last AIMessage, concurrently; ``tools_condition``.

Names and message shapes follow LangGraph's ``langgraph.prebuilt``: each tool call gets one
:class:`~rag.messages.ToolMessage` with its ``tool_call_id``, the tool's ``name`` and a
``status``, in the order of the calls. The error texts are LangGraph's, so a model that
learned to read them reads ours.

Where we differ (safer defaults):

- ``handle_tool_errors=True`` by default: a tool that raises becomes
  ``ToolMessage(status="error")`` the model can react to (LangGraph re-raises everything but
  invalid arguments). ``handle_tool_errors=False`` raises instead.
- A tool call the model sent with arguments that are not JSON (``AIMessage.invalid_tool_calls``)
  is answered with an error ToolMessage too; LangGraph ignores it, leaving a call without an
  answer that OpenAI-compatible servers reject on the next request.
- Two tools with one name, or a tool without a description, fail at construction.

>>> from rag.messages import AIMessage
>>> from rag.tools import tool
>>> @tool
... def add(a: int, b: int) -> int:
...     '''Add two integers.'''
...     return a + b
>>> call = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}])
>>> ToolNode([add]).invoke({"messages": [call]})["messages"][0].content
'3'
"""

from __future__ import annotations

import asyncio
import contextvars
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, Optional, Sequence, Union

from rag.agents._tool_errors import (INVALID_TOOL_NAME_ERROR_TEMPLATE, TOOL_CALL_ERROR_TEMPLATE,
                                     TOOL_INVOCATION_ERROR_TEMPLATE, HandleToolErrors, ToolInvocationError,
                                     _handled_types, _infer_handled_types, _valid_handler)  # noqa: F401
from rag.agents._tool_call import (AsyncToolCallWrapper, InputType, ToolCallRequest, ToolCallWrapper, check_wrapper,
                                   combine_tool_outputs, input_type_of, normalize_tool_response, state_of)
from rag.agents.injection import InjectedState, InjectedStore, ToolRuntime, inject_arguments
from rag.errors import InvalidTypeError, ValidationError
from rag.graph.errors import GraphInterrupt
from rag.graph.types import is_invalid_resume
from rag.messages import AIMessage, ToolMessage
from rag.runnables import Runnable, RunnableConfig
from rag.runnables.config import max_workers
from rag.tools import Tool, tool as make_tool
from rag.tools._schema import check_arguments

__all__ = ["ToolNode", "tools_condition", "ToolInvocationError", "HandleToolErrors", "as_tools", "ToolCallRequest",
           "ToolRuntime", "InjectedState", "InjectedStore",
           "INVALID_TOOL_NAME_ERROR_TEMPLATE", "TOOL_CALL_ERROR_TEMPLATE", "TOOL_INVOCATION_ERROR_TEMPLATE"]

def as_tools(tools: Sequence[Any], *, where: str = "ToolNode") -> list[Tool]:
    """``tools`` as :class:`~rag.tools.Tool` objects (plain functions through ``@tool``),
    refusing two tools with one name and a tool without a description (the model chooses
    tools by their descriptions)."""
    if isinstance(tools, (str, dict, Tool)) or not isinstance(tools, Sequence):
        raise InvalidTypeError(f"{where} needs a list of tools, got {type(tools).__name__}: {tools!r:.60}")
    converted: list[Tool] = []
    for item in tools:
        if isinstance(item, Tool):
            converted.append(item)
        elif callable(item) and not isinstance(item, Runnable):
            converted.append(make_tool(item))  # raises for a function without a docstring
        else:
            raise InvalidTypeError(
                f"{where}: cannot run {type(item).__name__} {item!r:.60} as a tool; pass rag.tools.Tool objects "
                "(from @tool or create_retriever_tool) or typed functions with docstrings"
            )
    seen: dict[str, Tool] = {}
    for item in converted:
        if not item.description.strip():
            raise ValidationError(
                f"{where}: tool {item.name!r} has no description; the model picks tools by their descriptions, "
                "so give it one (a docstring, or description=...)"
            )
        if item.name in seen:
            raise ValidationError(
                f"{where}: two tools are named {item.name!r}; the model calls tools by name, so give each a "
                f"unique name (tools: {[t.name for t in converted]})"
            )
        seen[item.name] = item
    return converted


def _last_ai_message(input: Any, messages_key: str) -> AIMessage:
    if isinstance(input, list):
        messages = input
    elif isinstance(input, dict) and messages_key in input:
        messages = input[messages_key]
    elif not isinstance(input, dict) and isinstance(getattr(input, messages_key, None), list):  # an object state
        messages = getattr(input, messages_key)
    else:
        raise ValidationError(f"ToolNode needs a list of messages or a state with {messages_key!r}, got {input!r:.80}")
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            return message
        if not isinstance(message, ToolMessage):
            break
    raise ValidationError(f"ToolNode found no AIMessage with tool calls at the end of the messages: {messages!r:.120}")


def tools_condition(state: Union[list, dict[str, Any]], messages_key: str = "messages") -> Literal["tools", "__end__"]:
    """``"tools"`` when the last message is an AIMessage that calls tools (valid calls, or
    calls whose arguments could not be parsed, which the ToolNode answers with an error),
    else ``"__end__"``. For ``add_conditional_edges("agent", tools_condition)``."""
    messages = state if isinstance(state, list) else (state or {}).get(messages_key)
    if not messages:
        raise ValidationError(f"tools_condition found no messages in the input state: {state!r:.80}")
    last = messages[-1]
    if isinstance(last, AIMessage) and (last.tool_calls or any(c.get("id") for c in last.invalid_tool_calls)):
        return "tools"
    return "__end__"


class ToolNode(Runnable[Any, Any]):
    """A graph node that answers every tool call of the last AIMessage with a ToolMessage.

    Input: a state dict with ``messages_key`` (default ``"messages"``), or a list of
    messages; output ``{messages_key: [ToolMessage, ...]}``, or a list for a list input.
    The calls run at the same time (threads on the sync path, tasks on the async path), at
    most ``config["max_concurrency"]`` at once; results keep the order of the calls.

    ``handle_tool_errors`` (default True): what happens when a tool raises: True makes the
    error an error ToolMessage (``TOOL_CALL_ERROR_TEMPLATE``), a str is sent instead, a
    function of the exception gives the text (only for the exception classes its first
    parameter is annotated with, as in LangGraph; all without an annotation), exception
    classes handle only those, False
    re-raises. An unknown tool name always becomes an error ToolMessage listing the tools;
    arguments that do not fit the tool's schema become one naming each problem (raised as
    :class:`ToolInvocationError` with ``handle_tool_errors=False``).

    A tool may call :func:`rag.graph.types.interrupt` to ask a person (the pause is never
    handled as an error). On resume the whole step runs again, so the other calls of that
    reply run again too, and one tool per step should pause (with several, the resume
    values reach them in the order their ``interrupt()`` calls happened, which concurrent
    calls do not fix); LangGraph runs each call as its own task and keeps finished results.
    """

    def __init__(self, tools: Sequence[Any], *, name: str = "tools", tags: Optional[list[str]] = None,
                 handle_tool_errors: HandleToolErrors = True, messages_key: str = "messages",
                 wrap_tool_call: Optional[ToolCallWrapper] = None,
                 awrap_tool_call: Optional[AsyncToolCallWrapper] = None) -> None:
        if not _valid_handler(handle_tool_errors):
            raise InvalidTypeError(
                "handle_tool_errors must be True, False, a str, a function of the exception or exception classes, "
                f"got {handle_tool_errors!r:.60}"
            )
        self.tools_by_name: dict[str, Tool] = {t.name: t for t in as_tools(tools)}
        self._handled_types = _handled_types(handle_tool_errors)
        self.name = name
        self.tags = tags
        self.handle_tool_errors = handle_tool_errors
        self.messages_key = messages_key
        self.wrap_tool_call = check_wrapper(wrap_tool_call, "wrap_tool_call")
        self.awrap_tool_call = check_wrapper(awrap_tool_call, "awrap_tool_call")

    # -- one call ---------------------------------------------------------------------------
    def _unknown(self, call: dict[str, Any]) -> ToolMessage:
        content = INVALID_TOOL_NAME_ERROR_TEMPLATE.format(requested_tool=call["name"],
                                                          available_tools=", ".join(self.tools_by_name))
        return ToolMessage(content, name=call["name"], tool_call_id=call["id"], status="error")

    def _precheck(self, call: dict[str, Any], tool: Optional[Tool] = None) -> Optional[ToolMessage]:
        """An error message for a call that cannot run (unknown tool, unparsable or unfitting
        arguments), or None when the tool (``tool``, else the one named by the call) may run."""
        if call.get("type") == "invalid_tool_call":
            error = f"the arguments of the call to {call.get('name')!r} could not be parsed: {call.get('error')}; " \
                    f"arguments received: {call.get('args')!r:.200}"
            return ToolMessage(TOOL_CALL_ERROR_TEMPLATE.format(error=error), name=call.get("name") or "",
                               tool_call_id=call["id"], status="error")
        tool = tool if tool is not None else self.tools_by_name.get(call["name"])
        if tool is None:
            return self._unknown(call)
        try:
            given = {k: v for k, v in call["args"].items() if k not in tool.injected}  # the model's part
            check_arguments(tool.name, tool.args_schema, given)
        except ValidationError as exc:
            failure = ToolInvocationError(tool.name, call["args"], str(exc), exc)
            if self.handle_tool_errors is False:
                raise failure from exc
            return ToolMessage(failure.message, name=tool.name, tool_call_id=call["id"], status="error")
        return None

    def _on_error(self, call: dict[str, Any], exc: Exception) -> ToolMessage:
        handler = self.handle_tool_errors
        # A resume value that does not fit its interrupt's response_schema is not the model's
        # mistake: the run fails (nothing saved) so the same interrupt can be answered again.
        if handler is False or is_invalid_resume(exc) or (isinstance(handler, (type, tuple))
                                                          and not isinstance(exc, handler)):
            raise exc
        if callable(handler) and not isinstance(handler, (bool, type)) and not isinstance(exc, self._handled_types):
            raise exc
        if handler is True or isinstance(handler, (type, tuple)):
            content = TOOL_CALL_ERROR_TEMPLATE.format(error=repr(exc))
        elif isinstance(handler, str):
            content = handler
        else:
            content = str(handler(exc))
        return ToolMessage(content, name=call["name"], tool_call_id=call["id"], status="error")

    def _runtime(self, call: dict[str, Any], config: RunnableConfig, input: Any) -> ToolRuntime:
        """What an injected ``ToolRuntime`` (and ``InjectedState``/``InjectedStore``) gets:
        the run's context, store and writer (the config's runtime, else the running task's;
        none outside a graph)."""
        from rag.graph._inject import runtime_of

        graph = runtime_of(config)
        return ToolRuntime(state=state_of(input), context=graph.context, config=config,
                           stream_writer=graph.stream_writer, tool_call_id=call.get("id"), store=graph.store,
                           tools=list(self.tools_by_name.values()), execution_info=graph.execution_info)

    def _request(self, call: dict[str, Any], config: RunnableConfig, input: Any) -> ToolCallRequest:
        runtime = self._runtime(call, config, input)
        return ToolCallRequest(call, self.tools_by_name.get(call["name"]), runtime.state, runtime)

    def _prepared(self, request: ToolCallRequest, config: RunnableConfig
                  ) -> tuple[Optional[ToolMessage], Any, dict[str, Any]]:
        """An early answer (a call that cannot run), or the tool and its injected call."""
        call = request.tool_call
        tool = request.tool if isinstance(request.tool, Tool) else None  # an interceptor may swap the tool
        early = self._precheck(call, tool)
        if early is not None:
            return early, None, call
        tool = tool or self.tools_by_name[call["name"]]
        runtime = request.runtime if isinstance(request.runtime, ToolRuntime) \
            else self._runtime(call, config, request.state)
        return None, tool, _as_call(inject_arguments(tool, call, runtime, self.messages_key))

    def _invoke(self, request: ToolCallRequest, config: RunnableConfig, input_type: InputType) -> Any:
        """Run one request's tool: an early answer for a call that cannot run, else the
        tool's checked result; a tool's exception propagates."""
        early, tool, call = self._prepared(request, config)
        return early if early is not None else \
            normalize_tool_response(tool.invoke(call, config), request.tool_call, input_type, self.messages_key)

    async def _ainvoke(self, request: ToolCallRequest, config: RunnableConfig, input_type: InputType) -> Any:
        early, tool, call = self._prepared(request, config)
        return early if early is not None else normalize_tool_response(
            await tool.ainvoke(call, config), request.tool_call, input_type, self.messages_key)

    def _execute(self, request: ToolCallRequest, config: RunnableConfig, input_type: InputType) -> Any:
        """:meth:`_invoke` with a failing tool answered as ``handle_tool_errors`` says (the
        ``execute`` an interceptor is handed). A state key or store the tool needs and the
        graph lacks raises, as LangGraph's: that is the graph's mistake, not the model's."""
        early, tool, call = self._prepared(request, config)
        if early is not None:
            return early
        try:
            return normalize_tool_response(tool.invoke(call, config), request.tool_call, input_type, self.messages_key)
        except GraphInterrupt:
            raise  # interrupt() in a tool pauses the graph; it is not the tool failing
        except Exception as exc:
            return self._on_error(request.tool_call, exc)

    async def _aexecute(self, request: ToolCallRequest, config: RunnableConfig, input_type: InputType) -> Any:
        early, tool, call = self._prepared(request, config)
        if early is not None:
            return early
        try:
            return normalize_tool_response(await tool.ainvoke(call, config), request.tool_call, input_type,
                                           self.messages_key)
        except GraphInterrupt:
            raise
        except Exception as exc:
            return self._on_error(request.tool_call, exc)

    def _wrapper_failed(self, request: ToolCallRequest, exc: Exception) -> Any:
        """An interceptor raised: handled as a tool's failure would be, as LangGraph's."""
        return self._on_error(request.tool_call, exc)

    # The seam for create_agent's wrap_tool_call middleware, which needs the state too.
    def _run_call(self, call: dict[str, Any], config: RunnableConfig, input: Any) -> Any:
        request, input_type = self._request(call, config, input), input_type_of(input)
        if self.wrap_tool_call is None:
            return self._execute(request, config, input_type)
        try:
            return self.wrap_tool_call(request, lambda req: self._execute(req, config, input_type))
        except GraphInterrupt:
            raise
        except Exception as exc:
            return self._wrapper_failed(request, exc)

    async def _arun_call(self, call: dict[str, Any], config: RunnableConfig, input: Any) -> Any:
        request, input_type = self._request(call, config, input), input_type_of(input)
        if self.awrap_tool_call is None and self.wrap_tool_call is None:
            return await self._aexecute(request, config, input_type)
        try:
            if self.awrap_tool_call is not None:
                return await self.awrap_tool_call(request, lambda req: self._aexecute(req, config, input_type))
            # Only a sync interceptor: it runs in a thread, its execute() running the tool there.
            return await asyncio.to_thread(contextvars.copy_context().run, self.wrap_tool_call, request,
                                           lambda req: self._execute(req, config, input_type))
        except GraphInterrupt:
            raise
        except Exception as exc:
            return self._wrapper_failed(request, exc)

    # -- the node ---------------------------------------------------------------------------
    def _calls(self, input: Any) -> list[dict[str, Any]]:
        if input_type_of(input) == "tool_calls":  # a list of tool calls, or one sent with its state (Send)
            return list(input) if isinstance(input, list) else [input["tool_call"]]
        message = _last_ai_message(input, self.messages_key)
        return [*message.tool_calls, *(c for c in message.invalid_tool_calls if c.get("id"))]

    def _output(self, input: Any, messages: list[Any]) -> Any:
        return combine_tool_outputs(messages, input_type_of(input), self.messages_key)

    def _body(self, input: Any, config: RunnableConfig) -> Any:
        calls = self._calls(input)
        workers = max_workers(config, len(calls))
        if workers <= 1 or len(calls) == 1:
            return self._output(input, [self._run_call(call, config, input) for call in calls])
        # Each thread runs in its own copy of the caller's context (the graph's task scope,
        # callbacks), as a context can be entered by one thread at a time.
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(contextvars.copy_context().run, self._run_call, call, config, input)
                       for call in calls]
            return self._output(input, [future.result() for future in futures])

    async def _abody(self, input: Any, config: RunnableConfig) -> Any:
        calls = self._calls(input)
        gate = asyncio.Semaphore(max_workers(config, max(1, len(calls))))

        async def one(call: dict[str, Any]) -> ToolMessage:
            async with gate:
                return await self._arun_call(call, config, input)

        return self._output(input, list(await asyncio.gather(*(one(call) for call in calls))))

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return self._call_traced(self._body, input, _tagged(config, self.tags))

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return await self._acall_traced(self._abody, input, _tagged(config, self.tags))

    def __repr__(self) -> str:
        return f"ToolNode(tools={list(self.tools_by_name)})"


def _as_call(call: dict[str, Any]) -> dict[str, Any]:
    return {"name": call["name"], "args": call["args"], "id": call.get("id"), "type": "tool_call"}


def _tagged(config: Optional[RunnableConfig], tags: Optional[list[str]]) -> Optional[RunnableConfig]:
    if not tags:
        return config
    return {**(config or {}), "tags": [*(config or {}).get("tags", []), *tags]}  # type: ignore[typeddict-item]
