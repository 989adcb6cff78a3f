"""Server-Sent Events as LangServe writes them, and cancelling work when the client leaves.

Plain ASGI, no framework: :class:`EventStreamResponse` sends an async iterator of
events; :func:`run_until_disconnect` runs a coroutine while watching the connection and
cancels it the moment the client disconnects (LangServe lets abandoned runs go on).
:func:`iter_sse` / :func:`aiter_sse` parse a stream on the client side.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import AsyncGenerator, AsyncIterator, Awaitable, Iterable, Iterator, Optional, TypeVar

from rag.serve._asgi import Receive, Scope, Send

__all__ = ["format_event", "EventStreamResponse", "run_until_disconnect", "ClientDisconnected",
           "iter_sse", "aiter_sse", "SSE_HEADERS"]

T = TypeVar("T")

# LangServe's (sse-starlette's) response headers.
SSE_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"connection", b"keep-alive"),
    (b"x-accel-buffering", b"no"),
]


def format_event(event: str, data: Optional[str] = None) -> bytes:
    """One event with CRLF line ends: ``event: NAME``, ``data: DATA`` (if any), blank line.
    ``data`` must be one line (compact JSON is)."""
    if data is None:
        return f"event: {event}\r\n\r\n".encode()
    return f"event: {event}\r\ndata: {data}\r\n\r\n".encode()


class ClientDisconnected(Exception):
    """The client closed the connection before the work finished (the work was cancelled)."""


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def run_until_disconnect(receive: Receive, work: Awaitable[T]) -> T:
    """Await ``work`` unless the client disconnects first; then cancel it (its ``finally``
    blocks and the runnables' error callbacks run) and raise :class:`ClientDisconnected`.
    ``receive`` must be the ASGI receive of a request whose body was already read."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_disconnected(receive))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        watcher.cancel()
        raise
    if task.done():
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
    raise ClientDisconnected()


class EventStreamResponse:
    """An ASGI response streaming ``events`` (bytes, e.g. from :func:`format_event`; an
    async generator, closed at the end) as ``text/event-stream``; the producer is cancelled
    if the client goes away."""

    def __init__(self, events: AsyncGenerator[bytes, None]) -> None:
        self.events = events

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})

        async def pump() -> None:
            try:
                async for chunk in self.events:
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
            finally:
                await self.events.aclose()
            await send({"type": "http.response.body", "body": b"", "more_body": False})

        with contextlib.suppress(ClientDisconnected, OSError):
            await run_until_disconnect(receive, pump())


def _events(lines: Iterable[str]) -> Iterator[dict[str, str]]:
    event = "message"
    data: list[str] = []
    for line in lines:
        line = line.rstrip("\r\n")
        if not line:
            if data or event != "message":
                yield {"event": event, "data": "\n".join(data)}
            event, data = "message", []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                event = value
            elif field == "data":
                data.append(value)
    if data or event != "message":
        yield {"event": event, "data": "\n".join(data)}


def iter_sse(lines: Iterable[str]) -> Iterator[dict[str, str]]:
    """``{"event", "data"}`` for each event in a stream of text lines (any line ends)."""
    return _events(lines)


async def aiter_sse(lines: AsyncIterator[str]) -> AsyncIterator[dict[str, str]]:
    """Async :func:`iter_sse`, yielding each event as soon as its blank line arrives."""
    buffered: list[str] = []
    async for line in lines:
        buffered.append(line)
        if not line.strip("\r\n"):
            for event in _events(buffered):
                yield event
            buffered = []
    for event in _events(buffered):
        yield event
