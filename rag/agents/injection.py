"""What a graph's tool node hands a tool besides the model's arguments (``langgraph.prebuilt``'s
``InjectedState``, ``InjectedStore`` and ``ToolRuntime``; ``InjectedToolCallId`` is
:mod:`rag.tools`'s). Each is hidden from the schema the model sees.

- ``state: Annotated[dict, InjectedState]``: the graph state (for a ToolNode given a list
  of messages, ``{"messages": [...]}``); ``Annotated[str, InjectedState("key")]``: one key
  of it (a key the state does not have gives the parameter's default, else None).
- ``store: Annotated[BaseStore, InjectedStore()]``: the compiled graph's long-term store.
- ``runtime: ToolRuntime``: all of it at once (state, context, config, stream_writer,
  tool_call_id, store).

>>> from typing import Annotated
>>> from rag.tools import tool
>>> @tool
... def whoami(runtime: ToolRuntime) -> str:
...     '''Tell the caller's call id.'''
...     return runtime.tool_call_id
>>> whoami.args_schema["properties"]
{}
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Generic, Optional, TypeVar

from rag.errors import ValidationError
from rag.tools import Tool
from rag.tools.injected import DirectlyInjectedToolArg, InjectedToolArg, InjectedToolCallId

__all__ = ["InjectedState", "InjectedStore", "InjectedToolCallId", "InjectedToolArg", "ToolRuntime", "inject_arguments"]

ContextT = TypeVar("ContextT")
StateT = TypeVar("StateT")


class InjectedState(InjectedToolArg):
    """Marks a tool parameter that receives the graph state (``field=None``) or the state's
    ``field`` key."""

    def __init__(self, field: Optional[str] = None) -> None:
        self.field = field


class InjectedStore(InjectedToolArg):
    """Marks a tool parameter that receives the graph's long-term store (None without one)."""


def _no_op_writer(chunk: Any) -> None:
    """The writer outside a graph: chunks are dropped."""


@dataclass
class ToolRuntime(DirectlyInjectedToolArg, Generic[ContextT, StateT]):
    """All a running tool may want besides its arguments, injected into a parameter typed
    ``ToolRuntime`` (any name): ``state`` (the graph state), ``context`` (the run's
    ``context=``), ``config`` (the call's RunnableConfig), ``stream_writer`` (sends a value
    to ``stream_mode="custom"``), ``tool_call_id``, ``store`` (long-term store or None),
    ``tools`` (the ToolNode's tools) and ``execution_info`` (the node's ids, or None)."""

    state: StateT
    context: ContextT
    config: dict[str, Any]
    stream_writer: Callable[[Any], None]
    tool_call_id: Optional[str]
    store: Any
    tools: list[Any] = field(default_factory=list)
    execution_info: Any = None


def _state_value(state: Any, key: str, parameter: Optional[inspect.Parameter]) -> Any:
    if isinstance(state, dict):
        if key in state:
            return state[key]
    elif hasattr(state, key):
        return getattr(state, key)
    if parameter is not None and parameter.default is not inspect.Parameter.empty:
        return parameter.default
    return None  # a NotRequired key the state has not been given yet


def inject_arguments(tool: Tool, call: dict[str, Any], runtime: ToolRuntime) -> dict[str, Any]:
    """``call`` with ``args`` completed by what ``tool``'s injected parameters ask for."""
    if not tool.injected:
        return call
    function = tool.func if tool.func is not None else tool.coroutine
    parameters = inspect.signature(function).parameters  # type: ignore[arg-type]
    args = dict(call["args"])
    for name, marker in tool.injected.items():
        kind = marker if isinstance(marker, type) else type(marker)
        if issubclass(kind, DirectlyInjectedToolArg):
            args[name] = replace(runtime, tool_call_id=call.get("id"))
        elif issubclass(kind, InjectedState):
            key = marker.field if isinstance(marker, InjectedState) else None
            args[name] = runtime.state if key is None else _state_value(runtime.state, key, parameters.get(name))
        elif issubclass(kind, InjectedStore):
            args[name] = runtime.store
        elif issubclass(kind, InjectedToolCallId):
            args[name] = call.get("id")
        elif name not in args:
            raise ValidationError(f"tool {tool.name!r}: parameter {name!r} is marked {kind.__name__}, which a "
                                  "ToolNode cannot fill; pass it in the call's args")
    return {**call, "args": args}

