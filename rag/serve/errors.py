"""Errors of :class:`~rag.serve.RemoteRunnable`, carrying the server's status and message.

Each is also an ``httpx.HTTPStatusError`` (what LangServe's client raises), so code
written against LangServe keeps catching them::

    RemoteRunnableError (RagError, httpx.HTTPStatusError)
    ├── RemoteInputError (ValueError)     400 / 422: the server refused the input or config
    └── RemoteServerError (RuntimeError)  5xx: the runnable raised on the server
    RemoteConnectionError (RagError, ConnectionError): no answer (refused, timeout, cut off)
"""

from __future__ import annotations

from typing import Any, Optional

import httpx

from rag.errors import RagError

__all__ = ["RemoteRunnableError", "RemoteInputError", "RemoteServerError", "RemoteConnectionError", "error_for"]


class RemoteRunnableError(RagError, httpx.HTTPStatusError):
    """The server answered with an error: ``status_code``, ``message`` (the server's words),
    ``error_type`` (the exception class the server reported, if any) and ``detail`` (the
    decoded error body)."""

    def __init__(self, message: str, *, status_code: int, error_type: Optional[str] = None, detail: Any = None,
                 request: httpx.Request, response: httpx.Response) -> None:
        httpx.HTTPStatusError.__init__(self, message, request=request, response=response)
        self.status_code = status_code
        self.message = message
        self.error_type = error_type
        self.detail = detail

    def __str__(self) -> str:
        kind = f"{self.error_type}: " if self.error_type else ""
        return f"{self.status_code} from {self.request.url}: {kind}{self.message}"


class RemoteInputError(RemoteRunnableError, ValueError):
    """The server refused the request (400 config, 422 input); ``message`` names the field."""


class RemoteServerError(RemoteRunnableError, RuntimeError):
    """The runnable failed on the server (500); ``error_type`` is its exception class."""


class RemoteConnectionError(RagError, ConnectionError):
    """The server could not be reached, timed out or dropped the connection."""


def _describe(detail: Any, fallback: str) -> tuple[str, Optional[str]]:
    if isinstance(detail, dict):
        if isinstance(detail.get("message"), str):
            return detail["message"], detail.get("type") if isinstance(detail.get("type"), str) else None
        items = detail.get("detail")
        if isinstance(items, list) and items and isinstance(items[0], dict):
            first = items[0]
            loc = ".".join(str(part) for part in first.get("loc", []))
            return f"{loc}: {first.get('msg')}" if loc else str(first.get("msg")), None
        if isinstance(items, str):
            return items, None
    return fallback, None


def error_for(status_code: int, detail: Any, text: str, *, request: httpx.Request,
              response: Optional[httpx.Response] = None) -> RemoteRunnableError:
    """The error for an answer with ``status_code`` and body ``detail`` (decoded JSON, or
    None) / ``text``."""
    message, error_type = _describe(detail, text.strip() or f"HTTP {status_code}")
    cls = RemoteInputError if 400 <= status_code < 500 else RemoteServerError
    response = response if response is not None else httpx.Response(status_code, text=text, request=request)
    return cls(message, status_code=status_code, error_type=error_type, detail=detail, request=request,
               response=response)
