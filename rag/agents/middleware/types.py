"""The middleware interface of ``create_agent`` (langchain 1.x ``langchain.agents.middleware``).

A middleware is an :class:`AgentMiddleware` subclass that overrides any of:

- node hooks ``before_agent`` / ``before_model`` / ``after_model`` / ``after_agent`` (and
  their ``a``-prefixed async forms): ``hook(state, runtime)`` returns a state update (a
  dict, which may hold ``"jump_to": "model" | "tools" | "end"``) or None. Each becomes a
  graph node named ``"<middleware name>.<hook>"``;
- call wrappers ``wrap_model_call(request, handler)`` and ``wrap_tool_call(request,
  handler)`` (and ``awrap_*``): ``handler(request)`` runs the next wrapper, then the call;
  a wrapper may call it again (retry), change the request (``request.override(...)``) or
  return without calling it (short-cut).

A middleware may declare ``state_schema`` (a TypedDict whose keys join the agent's state)
and ``tools`` (offered to the model and run by the tool node).

>>> class Count(AgentMiddleware):
...     def before_model(self, state, runtime):
...         return None
>>> Count().name
'Count'
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Annotated, Any, Awaitable, Callable, Literal, Optional, Sequence, TypedDict, TypeVar, Union

from rag.agents._tool_call import ToolCallRequest  # one request type for ToolNode interceptors and middleware
from rag.graph import add_messages
from rag.graph.runtime import Runtime  # LangGraph's runtime, the one hooks get (langgraph.runtime.Runtime)
from rag.messages import AIMessage, BaseMessage, SystemMessage

__all__ = [
    "OmitFromSchema", "OmitFromInput", "OmitFromOutput", "PrivateStateAttr", "UntrackedValue",
    "AgentMiddleware", "AgentState", "ModelRequest", "ModelResponse", "ExtendedModelResponse", "ToolCallRequest",
    "Runtime", "JumpTo", "hook_config", "NODE_HOOKS", "WRAP_HOOKS",
]

#: Where a node hook may send the run next: back to the model, to the tools, or to the end.
JumpTo = Literal["model", "tools", "end"]
JUMP_TARGETS: tuple[str, ...] = ("model", "tools", "end")

#: The node hooks, in the order they appear in a round (before/after hooks become nodes).
NODE_HOOKS: tuple[str, ...] = ("before_agent", "before_model", "after_model", "after_agent")
WRAP_HOOKS: tuple[str, ...] = ("wrap_model_call", "wrap_tool_call")

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class OmitFromSchema:
    """A state key's marker (``Annotated[int, PrivateStateAttr]``): ``output=True`` keeps
    the key out of what ``invoke`` returns; ``input=True`` drops it from a run's input."""

    input: bool = True
    output: bool = True


OmitFromInput = OmitFromSchema(input=True, output=False)
OmitFromOutput = OmitFromSchema(input=False, output=True)
#: A middleware's own bookkeeping key: neither input nor output.
PrivateStateAttr = OmitFromSchema(input=True, output=True)


class UntrackedValue:
    """A state key's marker (``Annotated[int, UntrackedValue]``): the value lasts one run
    (each ``invoke``/``stream`` starts without it), as LangGraph's untracked channel, which
    is not saved in checkpoints."""


class _Messages(TypedDict):
    messages: Annotated[list, add_messages]


class AgentState(_Messages, total=False):
    """The agent's state: ``messages`` (reduced by :func:`~rag.graph.add_messages`),
    ``jump_to`` (a hook's routing request, cleared by the next node; private) and
    ``structured_response`` (set with ``response_format``)."""

    jump_to: Annotated[Optional[str], PrivateStateAttr]
    structured_response: Any


@dataclass(frozen=True, init=False)
class ModelRequest:
    """One model call about to be made: the model, the conversation without the system
    message, the system message, the tools offered, ``tool_choice``, ``response_format``,
    ``model_settings`` (extra ``bind`` arguments), the state and the runtime. Frozen:
    change it with :meth:`override`."""

    model: Any
    messages: list[BaseMessage]
    system_message: Optional[SystemMessage] = None
    tool_choice: Any = None
    tools: list[Any] = field(default_factory=list)
    response_format: Any = None
    state: dict[str, Any] = field(default_factory=dict)
    runtime: Optional[Runtime] = None
    model_settings: dict[str, Any] = field(default_factory=dict)

    def __init__(self, *, model: Any, messages: list[BaseMessage], system_message: Optional[SystemMessage] = None,
                 system_prompt: Optional[str] = None, tool_choice: Any = None, tools: Optional[list[Any]] = None,
                 response_format: Any = None, state: Optional[dict[str, Any]] = None,
                 runtime: Optional[Runtime] = None, model_settings: Optional[dict[str, Any]] = None) -> None:
        if system_prompt is not None:  # LangChain's older spelling, still accepted
            if system_message is not None:
                raise ValueError("Cannot specify both system_prompt and system_message")
            system_message = SystemMessage(system_prompt)
        values = {"model": model, "messages": messages, "system_message": system_message, "tool_choice": tool_choice,
                  "tools": [] if tools is None else tools, "response_format": response_format,
                  "state": {"messages": []} if state is None else state, "runtime": runtime,
                  "model_settings": {} if model_settings is None else model_settings}
        for key, value in values.items():
            object.__setattr__(self, key, value)

    @property
    def system_prompt(self) -> Optional[str]:
        """The system message's text (None without one)."""
        return None if self.system_message is None else self.system_message.text

    def override(self, **overrides: Any) -> "ModelRequest":
        """A copy with the given fields replaced; ``system_prompt="..."`` sets the system message."""
        if "system_prompt" in overrides:
            if "system_message" in overrides:
                raise ValueError("override() takes system_prompt or system_message, not both")
            text = overrides.pop("system_prompt")
            overrides["system_message"] = None if text is None else SystemMessage(text)
        return replace(self, **overrides)


@dataclass
class ModelResponse:
    """What a model call gave: ``result`` (the AIMessage, and the ToolMessage of a
    structured-output tool call when there is one) and ``structured_response``."""

    result: list[BaseMessage]
    structured_response: Any = None


@dataclass
class ExtendedModelResponse:
    """A :class:`ModelResponse` with a ``Command`` whose ``update`` is applied after the
    model's own update (only ``update``: a ``goto`` or ``resume`` there raises)."""

    model_response: ModelResponse
    command: Any = None


def hook_config(*, can_jump_to: Optional[list[str]] = None) -> Callable[[F], F]:
    """Declare where a node hook may jump (``"model"``, ``"tools"``, ``"end"``): the graph
    gets conditional edges to those nodes only; a jump elsewhere raises at run time."""

    def decorator(func: F) -> F:
        if can_jump_to is not None:
            func.__can_jump_to__ = list(can_jump_to)  # type: ignore[attr-defined]
        return func

    return decorator


class AgentMiddleware:
    """The base class: override any hook (see the module docstring). ``name`` defaults to
    the class name; graph nodes are named ``f"{name}.{hook}"``. ``state_schema``: a
    TypedDict of extra state keys (default: none); ``tools``: extra tools (default: none).
    """

    state_schema: type = AgentState
    tools: Sequence[Any] = ()

    def __class_getitem__(cls, params: Any) -> type:
        # LangChain's AgentMiddleware is generic in its state, context and response types
        # (AgentMiddleware[MyState]); the parameters only inform type checkers.
        return cls

    @property
    def name(self) -> str:
        return type(self).__name__

    # Node hooks: state update (dict, may hold "jump_to") or None. The async forms run the
    # sync ones unless overridden (hooks rarely do I/O; calling one directly works too).
    def before_agent(self, state: dict[str, Any], runtime: Runtime) -> Optional[dict[str, Any]]: ...

    async def abefore_agent(self, state: dict[str, Any], runtime: Runtime) -> Optional[dict[str, Any]]:
        return self.before_agent(state, runtime)

    def before_model(self, state: dict[str, Any], runtime: Runtime) -> Optional[dict[str, Any]]: ...

    async def abefore_model(self, state: dict[str, Any], runtime: Runtime) -> Optional[dict[str, Any]]:
        return self.before_model(state, runtime)

    def after_model(self, state: dict[str, Any], runtime: Runtime) -> Optional[dict[str, Any]]: ...

    async def aafter_model(self, state: dict[str, Any], runtime: Runtime) -> Optional[dict[str, Any]]:
        return self.after_model(state, runtime)

    def after_agent(self, state: dict[str, Any], runtime: Runtime) -> Optional[dict[str, Any]]: ...

    async def aafter_agent(self, state: dict[str, Any], runtime: Runtime) -> Optional[dict[str, Any]]:
        return self.after_agent(state, runtime)

    # Call wrappers: handler(request) runs the rest of the chain and the call. The base
    # forms refuse (as LangChain's do): a middleware that wraps only one way says so at the
    # call, rather than being silently skipped on the other path.
    def wrap_model_call(self, request: ModelRequest,
                        handler: Callable[[ModelRequest], ModelResponse]) -> Union[ModelResponse, AIMessage]:
        raise NotImplementedError(_one_form(self, "wrap_model_call", "invoke()/stream()"))

    async def awrap_model_call(self, request: ModelRequest,
                               handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
                               ) -> Union[ModelResponse, AIMessage]:
        raise NotImplementedError(_one_form(self, "awrap_model_call", "ainvoke()/astream()"))

    def wrap_tool_call(self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Any]) -> Any:
        raise NotImplementedError(_one_form(self, "wrap_tool_call", "invoke()/stream()"))

    async def awrap_tool_call(self, request: ToolCallRequest,
                              handler: Callable[[ToolCallRequest], Awaitable[Any]]) -> Any:
        raise NotImplementedError(_one_form(self, "awrap_tool_call", "ainvoke()/astream()"))


def _one_form(middleware: AgentMiddleware, missing: str, calls: str) -> str:
    return (f"middleware {middleware.name!r} does not define {missing}, which {calls} needs; define it "
            f"(or an async def with the decorator form), or run the agent the other way")


def overrides(middleware: AgentMiddleware, hook: str) -> bool:
    """Whether ``middleware``'s class overrides ``hook`` (sync or async form)."""
    cls = type(middleware)
    return any(getattr(cls, h) is not getattr(AgentMiddleware, h) for h in (hook, f"a{hook}"))


def overrides_sync(middleware: AgentMiddleware, hook: str) -> bool:
    return getattr(type(middleware), hook) is not getattr(AgentMiddleware, hook)


def overrides_async(middleware: AgentMiddleware, hook: str) -> bool:
    return getattr(type(middleware), f"a{hook}") is not getattr(AgentMiddleware, f"a{hook}")


def can_jump_to(middleware: AgentMiddleware, hook: str) -> list[str]:
    """The jump targets declared on ``hook`` (sync form first, then async)."""
    for name in (hook, f"a{hook}"):
        targets = getattr(getattr(type(middleware), name), "__can_jump_to__", None)
        if targets:
            return list(targets)
    return []
