"""A deadline for a request's headers, in the HTTP server itself.

uvicorn bounds an idle keep-alive connection (5 s) but not a client that sends its
headers one byte at a time: each byte cancels the idle timer, so a slow-drip client holds
a connection (and its memory) for as long as it likes. An ASGI app cannot help: it is
called only once the headers are in. :func:`header_deadline_protocol` is uvicorn's h11
protocol with a timer: a connection whose request headers are not all in within
``seconds`` of it opening (or of the first byte of its next request) is closed. The body's deadline is the
app's (:class:`rag.serve.security.Guard`, 408).

:func:`rag.serve.background.serve_in_thread` and ``serve_forever`` (``rag serve``) use it.
Behind another ASGI server, set its own header timeout, or put a proxy in front that has
one (nginx's ``client_header_timeout``).
"""

from __future__ import annotations

import asyncio
from typing import Any, Optional

from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle

__all__ = ["HeaderDeadlineProtocol", "header_deadline_protocol", "DEFAULT_HEADER_SECONDS"]

#: Default time for a request's headers to arrive: 10 s (a browser or SDK sends them at once).
DEFAULT_HEADER_SECONDS = 10.0


class HeaderDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request headers are late: a new
    connection must send a request's headers within :attr:`header_seconds`, and so must
    a kept-alive one from the first byte of its next request. Idle time between requests
    is uvicorn's keep-alive timeout's business, not this."""

    #: Seconds a connection has to send the headers of a request.
    header_seconds = DEFAULT_HEADER_SECONDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: Optional[asyncio.TimerHandle] = None
        self._armed_for: Optional[RequestResponseCycle] = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()  # a connection that never sends a byte is held by no other timer

    def data_received(self, data: bytes) -> None:
        between_requests = self.cycle is None or self.cycle.response_complete
        if between_requests and self._header_timer is None:
            self._arm()  # the first bytes of the next request: its headers' clock starts
        super().data_received(data)
        if self._header_timer is not None and self.cycle is not self._armed_for:
            self._disarm()  # the headers are in (uvicorn started the request's cycle)

    def connection_lost(self, exc: Optional[Exception]) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        """Start the clock for the next request's headers: the request in progress when it
        runs out tells whether they came (uvicorn starts a new cycle for each request)."""
        self._disarm()
        if self.transport is None or self.transport.is_closing():
            return
        self._armed_for = self.cycle
        self._header_timer = self.loop.call_later(self.header_seconds, self._headers_late)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_late(self) -> None:
        self._header_timer = None
        if self.cycle is self._armed_for and not self.transport.is_closing():
            # No request began since the clock started: nothing to answer, only a socket to free.
            self.transport.close()


def header_deadline_protocol(seconds: float = DEFAULT_HEADER_SECONDS) -> type[HeaderDeadlineProtocol]:
    """:class:`HeaderDeadlineProtocol` with ``seconds`` (> 0) to send headers, for
    ``uvicorn.Config(http=...)``."""
    if not seconds > 0:
        from rag.errors import ValidationError

        raise ValidationError(f"header_seconds must be > 0, got {seconds}")
    return type("HeaderDeadlineProtocol", (HeaderDeadlineProtocol,), {"header_seconds": float(seconds)})
