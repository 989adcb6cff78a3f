"""The types of ASGI's callables, as Starlette and uvicorn pass them (the same shapes as
``starlette.types``), without importing a framework: the SSE helpers and the guard are
plain ASGI."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, MutableMapping

__all__ = ["Scope", "Message", "Receive", "Send", "ASGIApp"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
