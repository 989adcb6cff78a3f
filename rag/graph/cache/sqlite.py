"""SqliteCache: node results in a SQLite file (LangGraph's ``langgraph.cache.sqlite``), on the
standard library's ``sqlite3``.

One connection in WAL mode guarded by a lock, so a cache can be shared by threads and async
code; several processes can use one file (each write is one transaction, so an entry is
either all there or absent after a crash; the newest entries can be lost to a power cut,
and are then recomputed). Values are JSON, never pickle. A file that is
damaged or not a database is a :class:`~rag.errors.StorageError` naming it.

>>> import os, tempfile
>>> with SqliteCache(path=os.path.join(tempfile.mkdtemp(), "cache.sqlite")) as cache:
...     cache.set({(("ns",), "k"): ([1, 2], None)})
...     cache.get([(("ns",), "k")])
{(('ns',), 'k'): [1, 2]}
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence, Union

from rag._sqlite_errors import sqlite_errors
from rag.errors import InvalidTypeError, StorageError
from rag.graph.cache.base import BaseCache, FullKey, Namespace, check_key, decode, encode

__all__ = ["SqliteCache"]

_SCHEMA = """CREATE TABLE IF NOT EXISTS rag_graph_cache (
    ns TEXT NOT NULL,
    key TEXT NOT NULL,
    expiry REAL,
    value BLOB NOT NULL,
    PRIMARY KEY (ns, key)
) WITHOUT ROWID"""
_CHUNK = 500  # bound variables per statement, under every SQLite build's limit


def _ns_text(namespace: Namespace) -> str:
    # JSON rather than LangGraph's ",".join: a namespace part holding a comma stays distinct.
    return json.dumps(list(namespace), ensure_ascii=False)


class SqliteCache(BaseCache[Any]):
    """A cache in the SQLite file ``path`` (created if absent; ``":memory:"``: a private
    in-memory database). Expired entries are deleted when next read. Use it as a context
    manager or call :meth:`close`. ``clock``: see :class:`~rag.graph.cache.base.BaseCache`."""

    def __init__(self, *, path: Union[str, Path], clock: Optional[Callable[[], float]] = None) -> None:
        super().__init__(clock=clock)
        if not isinstance(path, (str, Path)) or not str(path):
            raise InvalidTypeError(f"SqliteCache needs path= a file path (str or Path), got {path!r:.80}")
        self.path = str(path)
        try:
            self.conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open the node cache database {self.path!r}: {exc}") from exc
        self._lock = threading.Lock()
        try:
            with self._errors("opening it"):
                from rag.graph.checkpoint.sqlite import switch_to_wal

                switch_to_wal(self.conn)
                # WAL with synchronous=NORMAL: a commit survives a crash of the process and the
                # file stays consistent, but the last entries can be lost to a power cut; for a
                # cache that only means recomputing them, and it spares an fsync per stored result.
                self.conn.execute("PRAGMA synchronous=NORMAL")
                self.conn.execute(_SCHEMA)
        except BaseException:
            self.conn.close()  # a file that cannot be used must not stay open (and perhaps locked)
            raise

    def _errors(self, doing: str) -> Any:
        return sqlite_errors("the node cache database", self.path, doing=doing)

    def _transaction(self) -> Iterator[None]:
        return _Transaction(self.conn)

    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        checked = [check_key(key) for key in keys]
        if not checked:
            return {}
        now = self.clock()
        found: dict[FullKey, bytes] = {}
        expired: list[tuple[str, str]] = []
        with self._errors("reading"), self._lock:
            for namespace, key in checked:
                row = self.conn.execute("SELECT expiry, value FROM rag_graph_cache WHERE ns=? AND key=?",
                                        (_ns_text(namespace), key)).fetchone()
                if row is None:
                    continue
                if row[0] is not None and now >= row[0]:
                    expired.append((_ns_text(namespace), key))
                    continue
                found[namespace, key] = row[1]
            if expired:
                with self._transaction():
                    self.conn.executemany("DELETE FROM rag_graph_cache WHERE ns=? AND key=? AND expiry<=?",
                                          [(ns, key, now) for ns, key in expired])
        values = {}
        for full_key, data in found.items():
            try:
                values[full_key] = decode(data)
            except ValueError as exc:
                raise StorageError(f"the node cache database {self.path} holds an entry for {full_key!r} that is "
                                   f"not the JSON this cache writes ({exc}); clear() the cache or delete the file") from exc
        return values

    def set(self, pairs: Mapping[FullKey, tuple[Any, Optional[float]]]) -> None:
        rows = []
        for full_key, (value, ttl) in pairs.items():
            namespace, key = check_key(full_key)
            rows.append((_ns_text(namespace), key, self.expiry(ttl), encode(full_key, value)))
        if not rows:
            return
        with self._errors("writing"), self._lock, self._transaction():
            self.conn.executemany("INSERT OR REPLACE INTO rag_graph_cache (ns, key, expiry, value) VALUES (?, ?, ?, ?)",
                                  rows)

    def clear(self, namespaces: Optional[Sequence[Namespace]] = None) -> None:
        with self._errors("clearing"), self._lock, self._transaction():
            if namespaces is None:
                self.conn.execute("DELETE FROM rag_graph_cache")
                return
            texts = [_ns_text(tuple(namespace)) for namespace in namespaces]
            for start in range(0, len(texts), _CHUNK):
                chunk = texts[start:start + _CHUNK]
                self.conn.execute(f"DELETE FROM rag_graph_cache WHERE ns IN ({','.join('?' * len(chunk))})", chunk)

    def close(self) -> None:
        """Close the file (the cache cannot be used afterwards)."""
        with self._lock:
            self.conn.close()

    def __enter__(self) -> "SqliteCache":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on an error): a write is all or nothing."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        self.conn.execute("COMMIT" if kind is None else "ROLLBACK")
