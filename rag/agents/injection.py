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
from typing import Any, Callable, Generic, Optional

try:  # PEP 696 defaults; typing_extensions comes with beautifulsoup4, a core dependency
    from typing_extensions import TypeVar
except ImportError:  # pragma: no cover - then ToolRuntime[...] needs both parameters
    from typing import TypeVar as _TypeVar

    def TypeVar(name: str, default: Any = None) -> Any:  # type: ignore[no-redef]  # noqa: N802
        return _TypeVar(name)

from rag.tools import Tool
from rag.tools.injected import DirectlyInjectedToolArg, InjectedToolArg, InjectedToolCallId

__all__ = ["InjectedState", "InjectedStore", "InjectedToolCallId", "InjectedToolArg", "ToolRuntime", "inject_arguments"]

# Defaults (PEP 696) so ``ToolRuntime[Context]`` names only the context, as LangGraph's.
ContextT = TypeVar("ContextT", default=None)
StateT = TypeVar("StateT", default=Any)


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


def _kind(marker: Any) -> type:
    return marker if isinstance(marker, type) else type(marker)


def _state_for(tool: Tool, state: Any, fields: list[Optional[str]], messages_key: str) -> Any:
    """The state a list input stands for (``{messages_key: [...]}``) when the tool asks only
    for the whole state or the messages; a list cannot give other keys."""
    if not isinstance(state, list):
        return state
    if all(f is None for f in fields) or fields == [messages_key]:
        return {messages_key: state}
    wanted = ", ".join(f for f in fields if f)
    raise ValueError(f"Invalid input to ToolNode. Tool {tool.name} requires graph state dict as input. "
                     f"State should contain fields {wanted}.")


def inject_arguments(tool: Tool, call: dict[str, Any], runtime: ToolRuntime,
                     messages_key: str = "messages") -> dict[str, Any]:
    """``call`` with ``args`` completed by what ``tool``'s injected parameters ask for.

    Values the model put under an injected parameter's name are dropped first: only the
    graph says what the state, store or call id is. A state key the state lacks raises
    ``KeyError`` (``AttributeError`` for an object state) unless the parameter has a
    default; ``InjectedStore`` without a store raises ``ValueError``."""
    if not tool.injected:
        return call
    function = tool.func if tool.func is not None else tool.coroutine
    parameters = inspect.signature(function).parameters  # type: ignore[arg-type]
    args = {k: v for k, v in call["args"].items() if k not in tool.injected}
    state_fields = {name: (m.field if isinstance(m, InjectedState) else None)
                    for name, m in tool.injected.items() if issubclass(_kind(m), InjectedState)}
    state = _state_for(tool, runtime.state, list(state_fields.values()), messages_key) if state_fields else None
    for name, key in state_fields.items():
        optional = parameters[name].default is not inspect.Parameter.empty if name in parameters else False
        if key is None:
            args[name] = state
        elif isinstance(state, dict):
            if key in state:
                args[name] = state[key]
            elif not optional:
                raise KeyError(key)
        elif hasattr(state, key):
            args[name] = getattr(state, key)
        elif not optional:
            raise AttributeError(key)
    for name, marker in tool.injected.items():
        kind = _kind(marker)
        if issubclass(kind, DirectlyInjectedToolArg):
            args[name] = replace(runtime, tool_call_id=call.get("id"))
        elif issubclass(kind, InjectedStore):
            if runtime.store is None:
                raise ValueError("Cannot inject store into tools with InjectedStore annotations - please compile "
                                 "your graph with a store.")
            args[name] = runtime.store
        elif issubclass(kind, InjectedToolCallId):
            args[name] = call.get("id")
    return {**call, "args": args}
