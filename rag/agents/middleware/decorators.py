"""Middleware from one function: ``@before_model``, ``@after_model``, ``@before_agent``,
``@after_agent``, ``@wrap_model_call``, ``@wrap_tool_call`` and ``@dynamic_prompt``.

Each returns an :class:`~rag.agents.middleware.AgentMiddleware` instance whose class is
named after the function (or ``name=``); an ``async def`` fills the async form of the hook.

>>> @before_model
... def log(state, runtime):
...     return None
>>> log.name
'log'
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional, Sequence

from rag.agents.middleware.types import AgentMiddleware, AgentState, ModelRequest, hook_config
from rag.messages import SystemMessage

__all__ = ["before_model", "after_model", "before_agent", "after_agent", "wrap_model_call", "wrap_tool_call",
           "dynamic_prompt"]


def _make(hook: str, func: Callable[..., Any], *, name: Optional[str], state_schema: Optional[type],
          tools: Optional[Sequence[Any]], can_jump_to: Optional[list[str]] = None,
          extra: Optional[dict[str, Any]] = None) -> AgentMiddleware:
    if not callable(func):
        raise TypeError(f"@{hook} decorates a function, got {type(func).__name__}")
    is_async = inspect.iscoroutinefunction(func)
    if is_async:
        async def method(self: AgentMiddleware, *args: Any) -> Any:
            return await func(*args)
    else:
        def method(self: AgentMiddleware, *args: Any) -> Any:  # type: ignore[misc]
            return func(*args)
    jumps = can_jump_to if can_jump_to is not None else getattr(func, "__can_jump_to__", None)
    if jumps:
        hook_config(can_jump_to=jumps)(method)
    attrs = {"state_schema": state_schema or AgentState, "tools": list(tools or ()),
             ("a" + hook if is_async else hook): method, "__doc__": func.__doc__, **(extra or {})}
    return type(name or getattr(func, "__name__", hook), (AgentMiddleware,), attrs)()


def _decorator(hook: str, *, jumps: bool) -> Callable[..., Any]:
    def decorator(func: Optional[Callable[..., Any]] = None, *, state_schema: Optional[type] = None,
                  tools: Optional[Sequence[Any]] = None, can_jump_to: Optional[list[str]] = None,
                  name: Optional[str] = None) -> Any:
        if can_jump_to is not None and not jumps:
            raise TypeError(f"@{hook} takes no can_jump_to (only node hooks jump)")

        def build(f: Callable[..., Any]) -> AgentMiddleware:
            return _make(hook, f, name=name, state_schema=state_schema, tools=tools, can_jump_to=can_jump_to)
        return build(func) if func is not None else build

    decorator.__name__ = hook
    decorator.__doc__ = (
        f"A middleware whose ``{hook}`` hook is the function ``(state, runtime) -> dict | None``; "
        "``can_jump_to`` lists where it may jump (default: nowhere)." if jumps else
        f"A middleware whose ``{hook}`` is the function ``(request, handler) -> result``: it may call "
        "``handler`` once, several times (retry) or not at all (short-cut).")
    return decorator


before_model = _decorator("before_model", jumps=True)
after_model = _decorator("after_model", jumps=True)
before_agent = _decorator("before_agent", jumps=True)
after_agent = _decorator("after_agent", jumps=True)
wrap_model_call = _decorator("wrap_model_call", jumps=False)
wrap_tool_call = _decorator("wrap_tool_call", jumps=False)


def dynamic_prompt(func: Optional[Callable[..., Any]] = None, *, state_schema: Optional[type] = None,
                   tools: Optional[Sequence[Any]] = None, name: Optional[str] = None) -> Any:
    """A middleware that sets the system prompt of every model call to ``func(request)``
    (a str or a SystemMessage), computed from the request (its state, messages...)."""

    def build(f: Callable[..., Any]) -> AgentMiddleware:
        def as_system(value: Any) -> SystemMessage:
            return value if isinstance(value, SystemMessage) else SystemMessage(str(value))

        if inspect.iscoroutinefunction(f):
            async def awrap(request: ModelRequest, handler: Callable[..., Any]) -> Any:
                return await handler(request.override(system_message=as_system(await f(request))))
            wrapper: Callable[..., Any] = awrap
        else:
            def wrap(request: ModelRequest, handler: Callable[..., Any]) -> Any:
                return handler(request.override(system_message=as_system(f(request))))
            wrapper = wrap

            async def awrap_sync(self: AgentMiddleware, request: ModelRequest, handler: Callable[..., Any]) -> Any:
                # A sync prompt function works on the async path too (it does no I/O).
                return await handler(request.override(system_message=as_system(f(request))))
            extra = {"awrap_model_call": awrap_sync}
        return _make("wrap_model_call", wrapper, name=name or getattr(f, "__name__", "dynamic_prompt"),
                     state_schema=state_schema, tools=tools, extra=extra if not inspect.iscoroutinefunction(f) else None)

    return build(func) if func is not None else build
