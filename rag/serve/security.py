"""The guard in front of ``rag serve``: a Bearer API key and a cap on request bodies.

Plain ASGI middleware, so it covers every route of the app it wraps (the index routes,
the OpenAI-compatible ones and any chain a user adds). The key is compared in constant
time (:func:`hmac.compare_digest`) and never written to a log or an error message.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from typing import Any, Callable, Optional, Sequence

from rag.errors import ValidationError
from rag.serve._asgi import ASGIApp, Message, Receive, Scope, Send

__all__ = ["Guard", "is_loopback", "check_exposure", "DEFAULT_MAX_BODY_BYTES"]

#: Default cap on a request body: 1 MiB, far above any question or chat history a person types.
DEFAULT_MAX_BODY_BYTES = 1 << 20


def is_loopback(host: str) -> bool:
    """True for an address only this machine can reach (127.0.0.0/8, ::1, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything, so treat it as exposed


def check_exposure(host: str, api_key: Optional[str], insecure: bool) -> None:
    """Refuse to serve a non-loopback ``host`` without an API key unless ``insecure``."""
    if api_key is None and not insecure and not is_loopback(host):
        raise ValidationError(
            f"--host {host} is reachable from other machines: give an API key with --api-key-file FILE or "
            "$RAG_API_KEY (clients send it as 'Authorization: Bearer KEY'), or pass --insecure to serve without one")
    if api_key is not None and not api_key.strip():
        raise ValidationError("the API key is empty; put a non-empty key in --api-key-file FILE or $RAG_API_KEY")


async def _send_json(send: Send, status: int, payload: dict[str, Any], headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *headers]})
    await send({"type": "http.response.body", "body": body})


class _TooLarge(BaseException):
    """Raised from ``receive`` past the cap; a BaseException so that no route's
    ``except Exception`` turns it into a 500 before the guard answers 413."""


class Guard:
    """ASGI middleware: 401 unless ``Authorization: Bearer <api_key>`` (when ``api_key`` is
    set; paths in ``public`` are exempt; a WebSocket handshake without it is refused), 413 for a body over ``max_body_bytes`` (declared
    in Content-Length or found while reading a chunked one). Errors are JSON
    ``{"type", "message"}``, plus OpenAI's ``{"error": {...}}`` shape under ``/v1/``."""

    def __init__(self, app: ASGIApp, *, api_key: Optional[str] = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
                 public: Callable[[str], bool] = lambda path: False) -> None:
        if max_body_bytes < 1:
            raise ValidationError(f"max_body_bytes must be >= 1, got {max_body_bytes}")
        self.app, self.max_body_bytes, self.public = app, max_body_bytes, public
        self._key = api_key.encode() if api_key is not None else None

    def __repr__(self) -> str:  # never show the key
        return f"Guard(api_key={'set' if self._key else 'none'}, max_body_bytes={self.max_body_bytes})"

    async def _refuse(self, scope: Scope, send: Send, status: int, kind: str, message: str) -> None:
        headers = [(b"www-authenticate", b'Bearer realm="rag"')] if status == 401 else []
        payload: dict[str, Any] = {"type": kind, "message": message}
        if scope.get("path", "").startswith("/v1/"):
            payload = {"error": {"message": message, "type": kind, "param": None, "code": str(status)}}
        await _send_json(send, status, payload, headers)

    def _authorised(self, scope: Scope) -> bool:
        if self._key is None or self.public(scope.get("path", "")):
            return True
        given = b""
        for name, value in scope.get("headers") or []:
            if name == b"authorization":
                given = value
        scheme, _, token = given.partition(b" ")
        # compare_digest on every request, whatever was sent: the time taken says nothing about the key.
        return hmac.compare_digest(token.strip(), self._key) and scheme.lower() == b"bearer"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and not self._authorised(scope):
            # A WebSocket route a user added is a route too: closing before accepting makes
            # the server refuse the handshake (HTTP 403), and the app never sees the socket.
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not self._authorised(scope):
            await self._refuse(scope, send, 401, "authentication_error",
                               "missing or wrong API key: send it as 'Authorization: Bearer KEY'")
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            await self._refuse(scope, send, 413, "request_too_large",
                               f"the request body is {int(declared)} bytes; at most {self.max_body_bytes} are accepted")
            return
        limit, seen, started = self.max_body_bytes, 0, False

        async def capped_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge()
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, capped_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._refuse(scope, send, 413, "request_too_large",
                                   f"the request body is over {limit} bytes; at most {limit} are accepted")
