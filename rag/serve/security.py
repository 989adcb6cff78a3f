"""The guard in front of ``rag serve``: the sites it answers, a Bearer API key, JSON bodies
only, and a cap and deadline on request bodies (see :class:`Guard`).

Plain ASGI middleware, so it covers every route of the app it wraps (the index routes,
the OpenAI-compatible ones and any chain a user adds). The key is compared in constant
time (:func:`hmac.compare_digest`) and never written to a log or an error message.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
from typing import Any, Callable, Optional, Sequence

from rag.errors import ValidationError
from rag.serve._asgi import ASGIApp, Message, Receive, Scope, Send
from rag.serve.origins import SitePolicy

__all__ = ["Guard", "is_loopback", "check_exposure", "check_body_options", "json_content_type", "DEFAULT_MAX_BODY_BYTES",
           "DEFAULT_BODY_SECONDS"]

#: Default cap on a request body: 1 MiB, far above any question or chat history a person types.
DEFAULT_MAX_BODY_BYTES = 1 << 20
#: Default time for a request body to arrive once its headers have: 20 s (a 1 MiB body at 50 KB/s).
DEFAULT_BODY_SECONDS = 20.0


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


def check_body_options(max_body_bytes: int, body_seconds: float) -> None:
    """ValidationError unless the body cap is >= 1 byte and its deadline > 0 s."""
    if max_body_bytes < 1:
        raise ValidationError(f"max_body_bytes must be >= 1, got {max_body_bytes}")
    if not body_seconds > 0:
        raise ValidationError(f"body_seconds must be > 0, got {body_seconds}")


class _Refused(BaseException):
    """Raised from ``receive`` when the body is over the cap (413) or too slow (408); a
    BaseException so that no route's ``except Exception`` turns it into a 500 before the
    guard answers."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message


def _header(scope: Scope, name: bytes) -> Optional[str]:
    for key, value in scope.get("headers") or []:
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def json_content_type(value: Optional[str]) -> bool:
    """Whether a ``Content-Type`` header says JSON in UTF-8: ``application/json``, with no
    charset or ``charset=utf-8``."""
    if value is None:
        return False
    media_type, *params = (part.strip().lower() for part in value.split(";"))
    charset = [p.partition("=")[2].strip('"') for p in params if p.startswith("charset=")]
    return media_type == "application/json" and all(c in ("utf-8", "utf8") for c in charset)


#: Methods that carry no body: not held to the JSON content type.
_NO_BODY = ("GET", "HEAD", "OPTIONS")


class Guard:
    """ASGI middleware in front of every route, checking in this order:

    1. ``Host`` (:class:`~rag.serve.origins.SitePolicy`): 403 unless loopback or allowed;
    2. ``Origin``: 403 for another site's page unless in ``cors_origins``; a CORS
       preflight (``OPTIONS`` + ``Access-Control-Request-Method``) from an allowed origin
       gets 204 with the CORS headers, from another one 403;
    3. ``Authorization: Bearer <api_key>`` when ``api_key`` is set: 401 (paths in
       ``public`` are exempt; a WebSocket handshake failing 1-3 is refused before accept);
    4. a request with a body (not GET/HEAD/OPTIONS) must be ``Content-Type:
       application/json`` (UTF-8): 415 otherwise, so a page cannot send ``text/plain``
       without the preflight that step 2 answers;
    5. the body: 413 over ``max_body_bytes`` (declared in Content-Length or found while
       reading a chunked one); 408 (and the connection closed) if it is not all in within
       ``body_seconds`` of the headers (default 20 s: a client dripping a byte every few
       seconds cannot hold a worker). The headers' own deadline is the HTTP server's
       (:func:`rag.serve.background.serve_in_thread` sets one).

    Errors are JSON ``{"type", "message"}``, plus OpenAI's ``{"error": {...}}`` shape under
    ``/v1/``; answers to allowed cross-site pages carry ``Access-Control-Allow-Origin``.
    """

    def __init__(self, app: ASGIApp, *, api_key: Optional[str] = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
                 public: Callable[[str], bool] = lambda path: False, sites: SitePolicy = SitePolicy(),
                 body_seconds: float = DEFAULT_BODY_SECONDS) -> None:
        check_body_options(max_body_bytes, body_seconds)
        self.app, self.max_body_bytes, self.public, self.sites = app, max_body_bytes, public, sites
        self.body_seconds = body_seconds
        self._key = api_key.encode() if api_key is not None else None

    def __repr__(self) -> str:  # never show the key
        return f"Guard(api_key={'set' if self._key else 'none'}, max_body_bytes={self.max_body_bytes})"

    async def _refuse(self, scope: Scope, send: Send, status: int, kind: str, message: str,
                      headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
        headers = [*headers, (b"www-authenticate", b'Bearer realm="rag"')] if status == 401 else list(headers)
        payload: dict[str, Any] = {"type": kind, "message": message}
        if scope.get("path", "").startswith("/v1/"):
            payload = {"error": {"message": message, "type": kind, "param": None, "code": str(status)}}
        await _send_json(send, status, payload, headers)

    def _authorised(self, scope: Scope) -> bool:
        if self._key is None or self.public(scope.get("path", "")):
            return True
        given = (_header(scope, b"authorization") or "").encode("latin-1")
        scheme, _, token = given.partition(b" ")
        # compare_digest on every request, whatever was sent: the time taken says nothing about the key.
        return hmac.compare_digest(token.strip(), self._key) and scheme.lower() == b"bearer"

    def _site_refusal(self, scope: Scope) -> Optional[str]:
        """Why the request's Host or Origin is refused (step 1 or 2), or None."""
        host = _header(scope, b"host")
        if not self.sites.host_allowed(host):
            # Shown as sent, cut short: a header may be long, and it is the client's own.
            return (f"this server answers to loopback host names (127.0.0.1, localhost, [::1]), not Host "
                    f"{(host or '(none)')[:80]!r}; name others with rag serve --allowed-host NAME")
        origin = _header(scope, b"origin")
        scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
        if not self.sites.origin_allowed(origin, host, scheme):
            return (f"pages from {str(origin)[:80]!r} may not call this server; allow them with "
                    "rag serve --cors-origin ORIGIN")
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            if self._site_refusal(scope) is not None or not self._authorised(scope):
                # A WebSocket route a user added is a route too: closing before accepting makes
                # the server refuse the handshake (HTTP 403), and the app never sees the socket.
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 1008})
                return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._site_refusal(scope)
        if refusal is not None:
            await self._refuse(scope, send, 403, "forbidden", refusal)
            return
        origin = _header(scope, b"origin")
        cross_site = origin is not None and self.sites.cross_site_allowed(origin)
        cors = self.sites.cors_headers(origin) if cross_site and origin is not None else []
        if scope["method"] == "OPTIONS" and origin is not None and _header(scope, b"access-control-request-method"):
            # Only reached for an allowed origin (or the server's own, which a browser never preflights).
            await send({"type": "http.response.start", "status": 204, "headers": self.sites.preflight_headers(origin)})
            await send({"type": "http.response.body", "body": b""})
            return
        if not self._authorised(scope):
            await self._refuse(scope, send, 401, "authentication_error",
                               "missing or wrong API key: send it as 'Authorization: Bearer KEY'", cors)
            return
        content_type = _header(scope, b"content-type")
        if scope["method"] not in _NO_BODY and not json_content_type(content_type):
            await self._refuse(scope, send, 415, "unsupported_media_type",
                               f"send the body as JSON with 'Content-Type: application/json' (UTF-8), not "
                               f"{(content_type or 'no Content-Type')[:80]!r}", cors)
            return
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            await self._refuse(scope, send, 413, "request_too_large",
                               f"the request body is {int(declared)} bytes; at most {self.max_body_bytes} are accepted",
                               cors)
            return
        await self._serve(scope, receive, send, cors)

    async def _serve(self, scope: Scope, receive: Receive, send: Send, cors: list[tuple[bytes, bytes]]) -> None:
        limit, seen, started, complete = self.max_body_bytes, 0, False, False
        deadline = asyncio.get_running_loop().time() + self.body_seconds

        async def checked_receive() -> Message:
            nonlocal seen, complete
            if complete:  # the body is in: what follows is the wait for a disconnect, unbounded
                return await receive()
            left = deadline - asyncio.get_running_loop().time()
            try:
                message = await asyncio.wait_for(receive(), timeout=max(left, 0.0))
            except asyncio.TimeoutError:
                raise _Refused(408, "request_timeout", f"the request body did not arrive within {self.body_seconds:g} s "
                               f"of its headers ({seen} bytes came)") from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _Refused(413, "request_too_large",
                                   f"the request body is over {limit} bytes; at most {limit} are accepted")
                complete = not message.get("more_body", False)
            else:
                complete = True
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if cors:
                    message = {**message, "headers": [*message.get("headers", []), *cors]}
            await send(message)

        try:
            await self.app(scope, checked_receive, tracking_send)
        except _Refused as refused:
            if not started:
                # The rest of the body is never read: the connection cannot carry another request.
                await self._refuse(scope, send, refused.status, refused.kind, refused.message,
                                   [*cors, (b"connection", b"close")])
