"""Runnables over HTTP: LangServe-compatible :func:`add_routes` and :class:`RemoteRunnable`.

The server side needs the ``serve`` extra (``pip install "ragpath[serve]"``: Starlette
and uvicorn); the client needs only httpx. Both speak LangServe 0.3.3's wire format, so
LangServe's ``RemoteRunnable`` can call our server and ours can call a LangServe server.

>>> from rag.serve import RemoteRunnable
>>> RemoteRunnable("http://127.0.0.1:8000/chain").url
'http://127.0.0.1:8000/chain'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag._lazy import lazy_exports

if TYPE_CHECKING:  # what a type checker sees (the __getattr__ below would give it Any)
    from rag.serve.background import serve_in_thread
    from rag.serve.errors import RemoteConnectionError, RemoteInputError, RemoteRunnableError, RemoteServerError
    from rag.serve.remote import RemoteRunnable
    from rag.serve.routes import add_routes

__all__ = [
    "add_routes",
    "serve_in_thread",
    "RemoteRunnable",
    "RemoteRunnableError",
    "RemoteInputError",
    "RemoteServerError",
    "RemoteConnectionError",
]

# The server parts import Starlette/uvicorn (the `serve` extra): loaded on first use, so the
# client works without them. The client and its errors import httpx: loaded on first use
# too. The wire format they speak is rag.codec, below this package (chat histories use it).
__getattr__, __dir__ = lazy_exports(__name__, {
    "rag.serve.routes": ["add_routes"],
    "rag.serve.background": ["serve_in_thread"],
    "rag.serve.remote": ["RemoteRunnable"],
    "rag.serve.errors": ["RemoteRunnableError", "RemoteInputError", "RemoteServerError", "RemoteConnectionError"],
})
