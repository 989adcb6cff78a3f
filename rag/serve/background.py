"""Run an ASGI app with uvicorn in a background thread (tests, benchmarks, notebooks).

>>> from starlette.applications import Starlette
>>> with serve_in_thread(Starlette()) as url:
...     url.startswith("http://127.0.0.1:")
True
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from rag._optional import require
from rag.errors import UsageError
from rag.serve._asgi import ASGIApp

__all__ = ["serve_in_thread", "serve_forever", "base_url"]


#: How long an idle kept-alive connection stays open: 20 s, longer than clients keep theirs
#: (httpx, which LangServe's and OpenAI's clients use: 5 s). With uvicorn's 5 s both sides
#: gave up at the same moment, and a request sent on a connection the server was closing
#: failed (ReadError) for about 1 in 500 requests under load (benchmarks/serve_freshness.py).
KEEP_ALIVE_SECONDS = 20


def base_url(host: str, port: int) -> str:
    """``http://host:port``, an IPv6 address in brackets (``http://[::1]:8000``)."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _config(app: ASGIApp, host: str, port: int, log_level: str, header_seconds: float) -> Any:
    uvicorn = require("uvicorn", feature="rag.serve", extra="serve")
    from rag.serve.deadlines import header_deadline_protocol

    # lifespan "auto": an app with startup/shutdown work (rag serve's index watcher) gets it.
    return uvicorn.Config(app, host=host, port=port, log_level=log_level, lifespan="auto",
                          http=header_deadline_protocol(header_seconds), timeout_keep_alive=KEEP_ALIVE_SECONDS)


@contextmanager
def serve_in_thread(app: ASGIApp, *, host: str = "127.0.0.1", port: int = 0, log_level: str = "warning",
                    startup_timeout: float = 10.0, header_seconds: float = 10.0) -> Iterator[str]:
    """Serve ``app`` on ``host`` (default 127.0.0.1, this machine only) and ``port``
    (default 0: a free one) while the block runs; yields the base URL. The server stops
    (open connections closed) when the block ends. ``startup_timeout``: seconds to wait for
    the socket before giving up with :class:`~rag.errors.UsageError`; ``header_seconds``:
    a connection that has not sent a request's headers within this long is closed
    (default 10; see :mod:`rag.serve.deadlines`)."""
    uvicorn = require("uvicorn", feature="serve_in_thread", extra="serve")
    server = uvicorn.Server(_config(app, host, port, log_level, header_seconds))
    thread = threading.Thread(target=server.run, name="rag-serve", daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise UsageError(f"the server did not start on {host}:{port} within {startup_timeout} s")
        time.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield base_url(host, bound)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def serve_forever(app: ASGIApp, *, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info",
                  on_ready: Callable[[int], None] = lambda port: None, header_seconds: float = 10.0) -> None:
    """Serve ``app`` in this thread until interrupted (Ctrl-C stops it cleanly).
    ``on_ready(port)`` is called once the socket is bound (``port`` 0 picks a free one);
    ``header_seconds``: as for :func:`serve_in_thread`."""
    import asyncio

    uvicorn = require("uvicorn", feature="serve_forever", extra="serve")
    server = uvicorn.Server(_config(app, host, port, log_level, header_seconds))

    async def announce() -> None:
        while not server.started:
            await asyncio.sleep(0.01)
        on_ready(server.servers[0].sockets[0].getsockname()[1])

    async def run() -> None:
        watcher = asyncio.ensure_future(announce())
        try:
            await server.serve()
        finally:
            watcher.cancel()

    asyncio.run(run())
