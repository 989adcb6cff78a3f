"""InMemoryCache: node results kept in this process (LangGraph's ``langgraph.cache.memory``).

Values are kept as JSON bytes, so what :meth:`InMemoryCache.get` returns is a fresh copy:
changing it does not change the cache.

>>> cache = InMemoryCache()
>>> cache.set({(("ns",), "k"): ({"answer": 42}, None)})
>>> cache.get([(("ns",), "k"), (("ns",), "missing")])
{(('ns',), 'k'): {'answer': 42}}
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Mapping, Optional, Sequence

from rag.graph.cache.base import BaseCache, FullKey, Namespace, check_key, decode, encode

__all__ = ["InMemoryCache"]


class InMemoryCache(BaseCache[Any]):
    """A cache in a dict, safe to share between threads; entries past their TTL are dropped
    when next read. ``clock``: see :class:`~rag.graph.cache.base.BaseCache`."""

    blocking_io = False

    def __init__(self, *, clock: Optional[Callable[[], float]] = None) -> None:
        super().__init__(clock=clock)
        self._entries: dict[Namespace, dict[str, tuple[bytes, Optional[float]]]] = {}
        self._lock = threading.Lock()

    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        checked = [check_key(key) for key in keys]
        found: dict[FullKey, Any] = {}
        if not checked:
            return found
        now = self.clock()
        with self._lock:
            for namespace, key in checked:
                entry = self._entries.get(namespace, {}).get(key)
                if entry is None:
                    continue
                data, expires = entry
                if expires is not None and now >= expires:
                    del self._entries[namespace][key]
                    continue
                found[namespace, key] = data
        return {key: decode(data) for key, data in found.items()}

    def set(self, pairs: Mapping[FullKey, tuple[Any, Optional[float]]]) -> None:
        # Encoded before the lock and before any entry changes: a value that cannot be
        # stored leaves the cache as it was.
        encoded = [(check_key(key), encode(key, value), self.expiry(ttl)) for key, (value, ttl) in pairs.items()]
        with self._lock:
            for (namespace, key), data, expires in encoded:
                self._entries.setdefault(namespace, {})[key] = (data, expires)

    def clear(self, namespaces: Optional[Sequence[Namespace]] = None) -> None:
        with self._lock:
            if namespaces is None:
                self._entries.clear()
                return
            for namespace in namespaces:
                self._entries.pop(tuple(namespace), None)

    def __len__(self) -> int:
        """Entries held, expired ones not yet read included."""
        with self._lock:
            return sum(len(entries) for entries in self._entries.values())
