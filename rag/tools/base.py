"""Tool: a named, described function a model can call, as a Runnable.

``invoke`` takes the tool's arguments (a dict, or a bare string for a one-argument tool)
and returns the function's result; given a model's tool call
(``{"name", "args", "id", "type": "tool_call"}``) it returns a
:class:`~rag.messages.ToolMessage` answering that call, ready to send back to the model.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Literal, Optional, Union

from rag import _callbacks
from rag.errors import RagError, ValidationError
from rag.messages import ToolMessage
from rag.models._tools import convert_to_openai_tool
from rag.runnables import Runnable, RunnableConfig
from rag.tools._schema import check_arguments
from rag.tools.injected import InjectedToolArg, InjectedToolCallId, injected_parameters, model_schema

__all__ = ["Tool", "ToolException", "ResponseFormat", "ToolOutputMixin", "InjectedToolArg", "InjectedToolCallId"]

ResponseFormat = Literal["content", "content_and_artifact"]
_RESPONSE_FORMATS = ("content", "content_and_artifact")
_DEFAULT_SCHEMA = {"type": "object", "properties": {"tool_input": {"type": "string"}}, "required": ["tool_input"]}


class ToolOutputMixin:
    """Base of results a tool returns as they are, not wrapped in a ToolMessage (a graph's
    ``Command``; a ToolMessage is passed through too), as LangChain's."""


#: Content that stays a list in a ToolMessage: LangChain's tool-message content blocks.
_CONTENT_BLOCK_TYPES = frozenset({"text", "image_url", "image", "json", "search_result", "custom_tool_call_output",
                                  "document", "file"})


class ToolException(RagError):
    """Raised by a tool function for a failure the model should hear about: with
    ``handle_tool_error`` set, it becomes the tool's (error) output instead of propagating."""


@dataclass
class _Call:
    """One parsed tool input: the arguments and, for a model's tool call, its id."""

    args: dict[str, Any]
    tool_call_id: Optional[str]


def _is_tool_call(value: Any) -> bool:
    return isinstance(value, dict) and "args" in value and "name" in value and value.get("type", "tool_call") == "tool_call" \
        and "id" in value


def _stringify(content: Any) -> Union[str, list]:
    """A str, or a list of content blocks, as it is; anything else (a list of strings, a dict,
    a number) as JSON text, as LangGraph's ToolNode sends it to the model."""
    if isinstance(content, str) or (isinstance(content, list) and all(
            isinstance(block, dict) and block.get("type") in _CONTENT_BLOCK_TYPES for block in content)):
        return content
    try:
        return json.dumps(content, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(content)


def _is_marker(marker: Any, kind: type) -> bool:
    return isinstance(marker, kind) or (isinstance(marker, type) and issubclass(marker, kind))


class Tool(Runnable[Any, Any]):
    """A function offered to a model: ``name``, ``description`` and an ``args_schema``.

    ``func(**args)`` does the work (``coroutine``, if given, on the async path); a
    parameter named ``config`` receives the run's config so nested runnables join the trace.
    ``args_schema``: a JSON Schema dict (or a pydantic model class); default one string
    argument ``tool_input``. ``response_format``: "content" (default; the function returns
    the content) or "content_and_artifact" (it returns ``(content, artifact)``: the content
    goes to the model, the artifact, e.g. the Documents, rides along on the ToolMessage).
    ``handle_tool_error``: False (default: raise), True (the error text becomes the
    output), a string, or a function from the :class:`ToolException` to the output; only
    ToolException is handled, as in LangChain. ``return_direct`` is kept for agents.

    >>> search = Tool("echo", lambda tool_input: tool_input.upper(), "Echo loudly.")
    >>> search.invoke("hi")
    'HI'
    >>> search.invoke({"name": "echo", "args": {"tool_input": "hi"}, "id": "call_1"}).content
    'HI'
    """

    def __init__(
        self,
        name: str,
        func: Optional[Callable[..., Any]],
        description: str,
        *,
        coroutine: Optional[Callable[..., Awaitable[Any]]] = None,
        args_schema: Any = None,
        return_direct: bool = False,
        response_format: ResponseFormat = "content",
        handle_tool_error: Union[bool, str, Callable[[ToolException], Any]] = False,
        tags: Optional[list[str]] = None,
        metadata: Optional[dict[str, Any]] = None,
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValidationError(f"a tool needs a name, got {name!r}")
        if not isinstance(description, str):
            raise ValidationError(f"description must be a str, got {type(description).__name__}")
        if func is None and coroutine is None:
            raise ValidationError(f"tool {name!r} needs func or coroutine (or both)")
        if func is not None and not callable(func):
            raise ValidationError(f"tool {name!r}: func must be callable, got {func!r:.60}")
        if coroutine is not None and not inspect.iscoroutinefunction(coroutine):
            raise ValidationError(f"tool {name!r}: coroutine must be an async function, got {coroutine!r:.60}")
        if response_format not in _RESPONSE_FORMATS:
            raise ValidationError(f"response_format must be one of {_RESPONSE_FORMATS}, got {response_format!r}")
        model_injected: dict[str, Any] = {}
        if hasattr(args_schema, "model_json_schema"):
            args_schema, model_injected = model_schema(args_schema)
        if args_schema is not None and not (isinstance(args_schema, dict) and args_schema.get("type", "object") == "object"):
            raise ValidationError(f"args_schema must be a JSON schema of an object, got {args_schema!r:.80}")
        self.name = name
        self.func = func
        self.coroutine = coroutine
        self.description = description
        self.args_schema: dict[str, Any] = dict(args_schema) if args_schema is not None else dict(_DEFAULT_SCHEMA)
        self.return_direct = return_direct
        self.response_format = response_format
        self.handle_tool_error = handle_tool_error
        self.tags = tags
        self.metadata = metadata
        #: Parameters the caller fills (call id, a graph's state/store/runtime): name -> marker.
        self.injected: dict[str, Any] = {**model_injected,
                                         **injected_parameters(func if func is not None else coroutine)}  # type: ignore[arg-type]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass that defines ``_run`` (and/or ``async def _arun``), as LangChain's
        ``BaseTool`` subclasses do, is built from keywords: its annotated class attributes
        (``name``, ``description``, ``args_schema``, its own fields) are the defaults."""
        super().__init_subclass__(**kwargs)
        if "_run" in cls.__dict__ or "_arun" in cls.__dict__:
            from rag.tools._subclass import keyword_init

            cls.__init__ = keyword_init  # type: ignore[method-assign]

    @classmethod
    def from_function(cls, func: Optional[Callable[..., Any]], name: str, description: str, **kwargs: Any) -> "Tool":
        """LangChain's spelling of the constructor."""
        return cls(name, func, description, **kwargs)

    # -- describing the tool -----------------------------------------------------------
    @property
    def args(self) -> dict[str, Any]:
        """The argument properties of :attr:`args_schema`."""
        return dict(self.args_schema.get("properties", {}))

    @property
    def tool_call_schema(self) -> dict[str, Any]:
        """The schema a model sees: :attr:`args_schema` titled with the tool's name."""
        return {**self.args_schema, "title": self.name, "description": self.description}

    def to_openai_tool(self) -> dict[str, Any]:
        """The OpenAI tool definition ``bind_tools`` sends for this tool."""
        return convert_to_openai_tool(self)

    # -- running it --------------------------------------------------------------------
    def _parse(self, input: Any) -> _Call:
        tool_call_id = None
        if _is_tool_call(input):
            tool_call_id, input = input["id"], input["args"]
        if isinstance(input, str):
            properties = list(self.args_schema.get("properties", {}))
            if len(properties) != 1:
                raise ValidationError(
                    f"tool {self.name!r} takes arguments {properties}; pass a dict, not the string {input!r:.40}"
                )
            input = {properties[0]: input}
        if not isinstance(input, dict):
            raise ValidationError(
                f"tool {self.name!r} takes a dict of arguments, a string or a tool call, got {type(input).__name__}: {input!r:.60}"
            )
        given = {k: v for k, v in input.items() if k not in self.injected}
        arguments = {**check_arguments(self.name, self.args_schema, given),
                     **{k: v for k, v in input.items() if k in self.injected}}
        for name, marker in self.injected.items():
            if tool_call_id is not None and _is_marker(marker, InjectedToolCallId):
                arguments.setdefault(name, tool_call_id)
        return _Call(arguments, tool_call_id)

    def _arguments(self, function: Callable[..., Any], call: _Call, config: RunnableConfig) -> dict[str, Any]:
        try:
            wants_config = "config" in inspect.signature(function).parameters
        except (TypeError, ValueError):
            wants_config = False
        return {**call.args, "config": config} if wants_config else call.args

    def _handled(self, exc: ToolException) -> Any:
        handler = self.handle_tool_error
        if handler is False or handler is None:
            raise exc
        if handler is True:
            return str(exc) or "Tool execution error"
        if isinstance(handler, str):
            return handler
        return handler(exc)

    def _result(self, output: Any, call: _Call, failed: bool) -> Any:
        if isinstance(output, (ToolOutputMixin, ToolMessage)) or (isinstance(output, list) and output and all(
                isinstance(item, (ToolOutputMixin, ToolMessage)) for item in output)):
            return output  # a Command, a message, or a list of them: for the graph's tool node to apply
        content, artifact = output, None
        if self.response_format == "content_and_artifact" and not failed:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise ValidationError(
                    f"tool {self.name!r} has response_format='content_and_artifact', so its function must "
                    f"return a (content, artifact) tuple; it returned {type(output).__name__}"
                )
            content, artifact = output
        if call.tool_call_id is None:
            return content
        return ToolMessage(_stringify(content), tool_call_id=call.tool_call_id, name=self.name, artifact=artifact,
                           status="error" if failed else "success")

    def _start_fields(self, call: _Call) -> dict[str, Any]:
        shown = {k: v for k, v in call.args.items() if k not in self.injected}  # not a whole state in every trace
        input_str = json.dumps(shown, ensure_ascii=False, default=str)
        # tool_call_id: as LangChain's on_tool_start gets it (None when called without a ToolCall).
        return {"payload": input_str, "inputs": shown, "tags": self.tags, "metadata": self.metadata,
                "serialized": {"name": self.name, "description": self.description}, "tool_call_id": call.tool_call_id}

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        call = self._parse(input)
        fields = self._start_fields(call)
        run = _callbacks.start_run(config, "tool", self.name, fields.pop("payload"), **fields)
        try:
            if self.func is None:  # async-only tool on the sync path
                output, failed = self._run_guarded(lambda: asyncio.run(self._acall(call, run.child_config(config))))
            else:
                output, failed = self._run_guarded(
                    lambda: self.func(**self._arguments(self.func, call, run.child_config(config))))  # type: ignore[misc]
            result = self._result(output, call, failed)
        except Exception as exc:
            run.error(exc)
            raise
        run.end(result)
        return result

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        call = self._parse(input)
        fields = self._start_fields(call)
        run = await _callbacks.astart_run(config, "tool", self.name, fields.pop("payload"), **fields)
        try:
            try:
                output, failed = await self._acall(call, run.child_config(config)), False
            except ToolException as exc:
                output, failed = self._handled(exc), True
            result = self._result(output, call, failed)
        except Exception as exc:
            await run.aerror(exc)
            raise
        await run.aend(result)
        return result

    def _run_guarded(self, body: Callable[[], Any]) -> tuple[Any, bool]:
        try:
            return body(), False
        except ToolException as exc:
            return self._handled(exc), True

    async def _acall(self, call: _Call, config: RunnableConfig) -> Any:
        if self.coroutine is not None:
            return await self.coroutine(**self._arguments(self.coroutine, call, config))
        function = self.func
        return await asyncio.to_thread(lambda: function(**self._arguments(function, call, config)))  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r}, description={self.description!r:.60})"
