"""``to_thread``: :func:`asyncio.to_thread`, with asyncio imported when first awaited.

Why: the async methods of embeddings and stores are defined at import time but run only
under an event loop, by which time asyncio is loaded. Importing asyncio (and its
concurrent.futures, ssl-free but still ~25 ms) at module level made every synchronous
user pay for it, ``rag search`` included.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

__all__ = ["to_thread"]

T = TypeVar("T")


async def to_thread(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run ``func(*args, **kwargs)`` in the default executor, as :func:`asyncio.to_thread`
    (context variables propagated)."""
    import asyncio

    return await asyncio.to_thread(func, *args, **kwargs)
