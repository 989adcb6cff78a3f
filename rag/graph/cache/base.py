"""The cache interface (LangGraph's ``langgraph.cache.base.BaseCache``).

A cache maps a full key, ``(namespace tuple of str, key str)``, to a value with an optional
time to live. Three primitives, :meth:`BaseCache.get`, :meth:`BaseCache.set` and
:meth:`BaseCache.clear`, are all a backend writes; the async forms are derived (run in a
worker thread when the backend does blocking I/O). Values are stored as JSON through the
checkpoint serializer (plain data, messages, Documents; never pickle): a value JSON cannot
hold is refused when set, naming its key.
"""

from __future__ import annotations

import asyncio
import math
import time
from abc import ABC, abstractmethod
from typing import Any, Callable, Generic, Mapping, Optional, Sequence, TypeVar

from rag.errors import InvalidTypeError, ValidationError

__all__ = ["BaseCache", "Namespace", "FullKey", "check_key", "check_ttl", "encode", "decode"]

ValueT = TypeVar("ValueT")
Namespace = tuple[str, ...]
FullKey = tuple[Namespace, str]


def check_key(full_key: Any) -> FullKey:
    """``full_key`` as a ``(namespace, key)`` pair, or a clear error naming it."""
    if not (isinstance(full_key, tuple) and len(full_key) == 2):
        raise InvalidTypeError(f"a cache key is a (namespace tuple, key str) pair, got {full_key!r:.120}")
    namespace, key = full_key
    if not isinstance(namespace, tuple) or not all(isinstance(part, str) for part in namespace):
        raise InvalidTypeError(f"a cache namespace is a tuple of str, got {namespace!r:.120}")
    if not isinstance(key, str):
        raise InvalidTypeError(f"a cache key is a str, got {type(key).__name__} {key!r:.80}")
    return namespace, key


def check_ttl(ttl: Any) -> Optional[float]:
    """``ttl`` in seconds (None: never expires); anything but a positive finite number is refused."""
    if ttl is None:
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not math.isfinite(ttl) or ttl <= 0:
        raise ValidationError(f"a cache ttl is a positive number of seconds or None, got {ttl!r}")
    return float(ttl)


def encode(full_key: FullKey, value: Any) -> bytes:
    """``value`` as JSON bytes; a value JSON cannot hold raises naming the key."""
    from rag.graph.checkpoint import serde

    try:
        return serde.dumps(value)
    except serde.SerializationError as exc:
        raise serde.SerializationError(
            f"the value for cache key {full_key!r} cannot be stored as JSON: {exc}", key=exc.key, path=exc.path
        ) from exc


def decode(data: bytes) -> Any:
    """The value :func:`encode` wrote."""
    from rag.graph.checkpoint import serde

    return serde.loads(data)


class BaseCache(ABC, Generic[ValueT]):
    """A cache of JSON values under ``(namespace, key)`` pairs, each with an optional TTL.

    ``clock``: the time source for expiry, seconds since the epoch (default
    ``time.time``; a test passes its own). Subclasses implement :meth:`get`, :meth:`set`
    and :meth:`clear`; set ``blocking_io = False`` when those never block, so the async
    forms call them directly instead of in a thread.
    """

    blocking_io: bool = True

    def __init__(self, *, clock: Optional[Callable[[], float]] = None) -> None:
        if clock is not None and not callable(clock):
            raise InvalidTypeError(f"clock must be a function returning seconds, got {clock!r:.80}")
        self.clock: Callable[[], float] = clock or time.time

    def expiry(self, ttl: Any) -> Optional[float]:
        """When an entry set now with ``ttl`` seconds expires (None: never)."""
        seconds = check_ttl(ttl)
        return None if seconds is None else self.clock() + seconds

    @abstractmethod
    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        """The values stored under ``keys`` that have not expired (missing keys are absent)."""

    @abstractmethod
    def set(self, pairs: Mapping[FullKey, tuple[ValueT, Optional[float]]]) -> None:
        """Store each ``key: (value, ttl seconds or None)``, replacing what was there."""

    @abstractmethod
    def clear(self, namespaces: Optional[Sequence[Namespace]] = None) -> None:
        """Delete every entry of ``namespaces`` (None: every entry)."""

    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        return await self._run(self.get, keys)

    async def aset(self, pairs: Mapping[FullKey, tuple[ValueT, Optional[float]]]) -> None:
        await self._run(self.set, pairs)

    async def aclear(self, namespaces: Optional[Sequence[Namespace]] = None) -> None:
        await self._run(self.clear, namespaces)

    async def _run(self, method: Callable[[Any], Any], argument: Any) -> Any:
        return await asyncio.to_thread(method, argument) if self.blocking_io else method(argument)
