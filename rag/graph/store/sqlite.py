"""A store in a SQLite file (LangGraph's ``langgraph.store.sqlite.SqliteStore``), on the
standard library's ``sqlite3``: values are JSON text (never pickle), vectors float32
blobs ranked with numpy; WAL, a busy timeout and one ``BEGIN IMMEDIATE`` transaction per
batch that writes make it safe for several processes sharing one file.

>>> with SqliteStore.from_conn_string(":memory:") as store:
...     store.setup()
...     store.put(("users", "ann"), "food", {"likes": "pears"})
...     store.get(("users", "ann"), "food").value
{'likes': 'pears'}
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator, Optional

import numpy as np

from rag.graph.store._namespaces import list_namespaces
from rag.graph.store._plan import Plan, StoreIndex, plan_batch
from rag.graph.store._sqlite_queries import (MIGRATIONS, NS_MATCH_FUNCTION, BaseSqliteStore, SqliteIndexConfig,
                                             _namespace_prefix_condition, namespace_match)
from rag.graph.store._values import encode, matches
from rag.graph.store._vectors import best_per_owner, rank, similarities
from rag.graph.store.base import (BaseStore, GetOp, Item, ListNamespacesOp, Op, PutOp, Result, SearchItem, SearchOp,
                                  TTLConfig)

__all__ = ["SqliteStore", "SqliteIndexConfig"]

_COLUMNS = "prefix, key, value, created_at, updated_at, ttl_minutes"
_LIVE = "(expires_at IS NULL OR expires_at > ?)"


@dataclass
class _VectorCache:
    version: tuple[int, int]
    owner_of: dict[tuple[str, str], int]  # (prefix, key) -> owner number
    owners: np.ndarray  # each row's owner number
    matrix: np.ndarray  # unit rows, float32

    @property
    def keys(self) -> list[tuple[str, str]]:
        """Owner number -> (prefix, key)."""
        if not hasattr(self, "_keys"):
            self._keys = list(self.owner_of)  # dicts keep insertion order: the owner numbers
        return self._keys

    def in_scope(self, namespace_prefix: tuple[str, ...]) -> np.ndarray:
        """Which owners are at ``namespace_prefix`` or below it (checked once per distinct
        namespace, not per item)."""
        if not namespace_prefix:
            return np.ones(len(self.owner_of), bool)
        if not hasattr(self, "_by_prefix"):
            grouped: dict[str, list[int]] = {}
            for owner, (prefix, _) in enumerate(self.keys):
                grouped.setdefault(prefix, []).append(owner)
            self._by_prefix = {prefix: np.array(owners, np.int64) for prefix, owners in grouped.items()}
        text, mask = ".".join(namespace_prefix), np.zeros(len(self.owner_of), bool)
        for prefix, owners in self._by_prefix.items():
            if prefix == text or prefix.startswith(text + "."):
                mask[owners] = True
        return mask


def _item(row: tuple) -> Item:
    return Item(value=json.loads(row[2]), key=row[1], namespace=tuple(row[0].split(".")), created_at=row[3],
                updated_at=row[4])


def _found(row: tuple, score: Optional[float] = None) -> SearchItem:
    return SearchItem(tuple(row[0].split(".")), row[1], json.loads(row[2]), row[3], row[4], score)


class SqliteStore(BaseSqliteStore, BaseStore):
    """``conn``: a ``sqlite3`` connection (``from_conn_string`` opens one); ``index``:
    semantic search (``{"dims", "embed", "fields"}``); ``ttl``: ``{"default_ttl": minutes,
    "refresh_on_read": True, "sweep_interval_minutes": m}``. Calls from several threads
    are serialised on the connection. Tables are created on first use (or by ``setup()``).
    A connection given directly is switched to autocommit (``isolation_level=None``): the
    store opens its own transactions.
    """

    supports_ttl = True

    def __init__(self, conn: sqlite3.Connection, *, index: Optional[SqliteIndexConfig] = None,
                 ttl: Optional[TTLConfig] = None) -> None:
        self.conn = conn
        self._index = StoreIndex(index) if index is not None else None
        self.index_config: Optional[dict[str, Any]] = dict(index) if index is not None else None
        self.embeddings = self._index.embeddings if self._index is not None else None
        self.ttl_config = ttl
        self._lock = threading.RLock()
        self._is_setup = False
        self._writes = 0  # our own commits that may change vectors (see _vector_cache)
        self._cache: Optional[_VectorCache] = None
        self._sweeper: Optional[threading.Thread] = None
        self._stop_sweeping = threading.Event()
        conn.isolation_level = None  # transactions are explicit: BEGIN IMMEDIATE for writes
        conn.create_function(NS_MATCH_FUNCTION, 2, namespace_match, deterministic=True)
        conn.execute("PRAGMA busy_timeout = 30000")  # another process's write: wait, do not fail

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str, *, index: Optional[SqliteIndexConfig] = None,
                         ttl: Optional[TTLConfig] = None) -> Iterator["SqliteStore"]:
        """A store on the database file ``conn_string`` (or ``":memory:"``), closed on exit."""
        conn = sqlite3.connect(conn_string, check_same_thread=False, isolation_level=None)
        try:
            if conn_string != ":memory:":
                conn.execute("PRAGMA journal_mode = WAL")  # readers never block the writer
            store = cls(conn, index=index, ttl=ttl)
            yield store
        finally:
            if "store" in locals():
                store.stop_ttl_sweeper()
            conn.close()

    def setup(self) -> None:
        """Create or migrate the tables (each step once, recorded in ``store_migrations``)."""
        with self._lock, self._transaction():
            self.conn.execute("CREATE TABLE IF NOT EXISTS store_migrations (v INTEGER PRIMARY KEY)")
            done = self.conn.execute("SELECT COALESCE(MAX(v), -1) FROM store_migrations").fetchone()[0]
            for version in range(done + 1, len(MIGRATIONS)):
                self.conn.execute(MIGRATIONS[version])
                self.conn.execute("INSERT INTO store_migrations (v) VALUES (?)", (version,))
            self._is_setup = True

    @contextmanager
    def _transaction(self, write: bool = True) -> Iterator[None]:
        self.conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # -- BaseStore ---------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return self._run(plan_batch(ops, self._index).embed(self._index))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        import asyncio

        plan = await plan_batch(ops, self._index).aembed(self._index)
        return await asyncio.to_thread(self._run, plan)

    def _run(self, plan: Plan) -> list[Result]:
        with self._lock:
            if not self._is_setup:
                self.setup()
            writes = any(isinstance(op, PutOp) for op in plan.ops)
            refresh: list[tuple[str, str]] = []
            # Reads restart an item's clock only when the store opted in (LangGraph's rule).
            refreshing = bool((self.ttl_config or {}).get("refresh_on_read", False))
            results: list[Result] = []
            with self._transaction(write=writes):
                now = time.time()
                for position, op in enumerate(plan.ops):
                    if isinstance(op, GetOp):
                        row = self.conn.execute(f"SELECT {_COLUMNS} FROM store WHERE prefix = ? AND key = ? AND {_LIVE}",
                                                (".".join(op.namespace), op.key, now)).fetchone()
                        results.append(_item(row) if row else None)
                        if row and refreshing and op.refresh_ttl and row[5] is not None:
                            refresh.append((row[0], row[1]))
                    elif isinstance(op, PutOp):
                        self._put(op, plan, position, now)
                        results.append(None)
                    elif isinstance(op, SearchOp):
                        found, rows = self._search(op, plan, position, now)
                        results.append(found)
                        if refreshing and op.refresh_ttl:
                            refresh += [(r[0], r[1]) for r in rows if r[5] is not None]
                    else:
                        assert isinstance(op, ListNamespacesOp)
                        query, params = self._get_batch_list_namespaces_queries([(position, op)])[0]
                        prefixes = self.conn.execute(query, [*params, now]).fetchall()
                        results.append(list_namespaces((tuple(p.split(".")) for (p,) in prefixes), op))
                if refresh and writes:
                    self._refresh(refresh, now)
            if refresh and not writes:  # a read-only batch takes the write lock only when it must
                with self._transaction():
                    self._refresh(refresh, time.time())
        return results

    def _refresh(self, keys: list[tuple[str, str]], now: float) -> None:
        self.conn.executemany("UPDATE store SET expires_at = ? + ttl_minutes * 60 WHERE prefix = ? AND key = ? "
                              "AND ttl_minutes IS NOT NULL", [(now, p, k) for p, k in keys])

    def _put(self, op: PutOp, plan: Plan, position: int, now: float) -> None:
        prefix = ".".join(op.namespace)
        self._writes += 1
        self.conn.execute("DELETE FROM store_vectors WHERE prefix = ? AND key = ?", (prefix, op.key))
        if op.value is None:
            self.conn.execute("DELETE FROM store WHERE prefix = ? AND key = ?", (prefix, op.key))
            return
        stamp = datetime.fromtimestamp(now, timezone.utc).isoformat()
        expires = now + op.ttl * 60 if op.ttl is not None else None
        self.conn.execute(
            "INSERT INTO store (prefix, key, value, created_at, updated_at, expires_at, ttl_minutes) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (prefix, key) DO UPDATE SET value = excluded.value, "
            "updated_at = excluded.updated_at, expires_at = excluded.expires_at, ttl_minutes = excluded.ttl_minutes, "
            # an expired row that was not swept yet is a new item, not an update
            "created_at = CASE WHEN store.expires_at IS NOT NULL AND store.expires_at <= ? THEN excluded.created_at "
            "ELSE store.created_at END",
            (prefix, op.key, encode(op.value), stamp, stamp, expires, op.ttl, now))
        labels, vectors = plan.vectors_of(position)
        if labels:
            self.conn.executemany("INSERT OR REPLACE INTO store_vectors (prefix, key, field_name, embedding) "
                                  "VALUES (?, ?, ?, ?)",
                                  [(prefix, op.key, label, vectors[i].astype("<f4").tobytes())
                                   for i, label in enumerate(labels)])

    def _search(self, op: SearchOp, plan: Plan, position: int, now: float) -> tuple[list[SearchItem], list[tuple]]:
        scope, params = _namespace_prefix_condition(op.namespace_prefix)
        checked = plan.filters.get(position, ())
        query = plan.query_vectors.get(op.query) if op.query else None
        select = f"SELECT {_COLUMNS} FROM store WHERE {scope} AND {_LIVE} ORDER BY updated_at DESC, rowid DESC"
        if query is None and not checked:
            rows = self.conn.execute(select + " LIMIT ? OFFSET ?", [*params, now, op.limit, op.offset]).fetchall()
            return [_found(r) for r in rows], rows
        if query is None:  # a filter: read values in order until the page is full
            rows = []
            for row in self.conn.execute(select, [*params, now]):
                if matches(json.loads(row[2]), checked):
                    rows.append(row)
                    if len(rows) == op.offset + op.limit:
                        break
            rows = rows[op.offset:]
            return [_found(r) for r in rows], rows
        if not checked:
            return self._semantic_page(op, query, scope, params, now)
        candidates = [r for r in self.conn.execute(select, [*params, now]) if matches(json.loads(r[2]), checked)]
        page = self._ranked(candidates, query, op)
        rows = [candidates[i] for i, _ in page]
        return [_found(candidates[i], score) for i, score in page], rows

    def _semantic_page(self, op: SearchOp, query: np.ndarray, scope: str, params: list[Any],
                       now: float) -> tuple[list[SearchItem], list[tuple]]:
        """A query without a filter: ranked from the vector cache alone; only the page's
        rows are read (an expired one not swept yet is skipped), then items without a
        vector (score None), newest first, if the page is not full."""
        cache = self._vector_cache()
        in_scope = cache.in_scope(tuple(op.namespace_prefix))
        scores = best_per_owner(similarities(cache.matrix, query), cache.owners, len(cache.keys))
        wanted, ranked_enough = op.offset + op.limit, op.offset + op.limit
        while True:
            order = rank(scores, in_scope, offset=0, limit=ranked_enough)
            page: list[tuple[tuple, Optional[float]]] = []
            for owner, score in order:
                row = self.conn.execute(f"SELECT {_COLUMNS} FROM store WHERE prefix = ? AND key = ? AND {_LIVE}",
                                        (*cache.keys[owner], now)).fetchone()
                if row is not None:
                    page.append((row, score))
                    if len(page) == wanted:
                        break
            if len(page) == wanted or len(order) < ranked_enough:
                break
            ranked_enough *= 2  # expired rows were skipped: rank further down
        if len(page) < wanted:
            page += [(row, None) for row in self.conn.execute(
                f"SELECT {_COLUMNS} FROM store s WHERE {scope} AND {_LIVE} AND NOT EXISTS (SELECT 1 FROM store_vectors "
                "v WHERE v.prefix = s.prefix AND v.key = s.key) ORDER BY updated_at DESC, rowid DESC LIMIT ?",
                [*params, now, wanted - len(page)])]
        page = page[op.offset:]
        return [_found(row, score) for row, score in page], [row for row, _ in page]

    def _ranked(self, candidates: list[tuple], query: np.ndarray, op: SearchOp) -> list[tuple[int, Optional[float]]]:
        cache = self._vector_cache()
        # Candidate -> owner in the cache, then owner -> candidate position, as arrays.
        owner_of = np.fromiter((cache.owner_of.get((row[0], row[1]), -1) for row in candidates), np.int64,
                               len(candidates))
        position = np.full(len(cache.owner_of) + 1, -1, np.int64)  # the last slot answers owner -1
        known = owner_of >= 0
        position[owner_of[known]] = np.flatnonzero(known)
        rows_at = position[cache.owners]
        keep = rows_at >= 0
        best = best_per_owner(similarities(cache.matrix, query)[keep], rows_at[keep], len(candidates))
        return rank(best, np.ones(len(candidates), bool), offset=op.offset, limit=op.limit)

    def _vector_cache(self) -> "_VectorCache":
        """Every stored vector in one matrix, read again only after a write: ours (counted)
        or another connection's (SQLite's ``data_version`` changes), so a search is one
        product in memory instead of reading every blob."""
        version = (self.conn.execute("PRAGMA data_version").fetchone()[0], self._writes)
        if self._cache is None or self._cache.version != version:
            rows = self.conn.execute("SELECT prefix, key, embedding FROM store_vectors").fetchall()
            owner_of: dict[tuple[str, str], int] = {}
            owners = np.fromiter((owner_of.setdefault((p, k), len(owner_of)) for p, k, _ in rows), np.int64, len(rows))
            matrix = np.frombuffer(b"".join(blob for _, _, blob in rows), dtype="<f4").astype(np.float32)
            dims = self._index.dims if self._index is not None else 0
            self._cache = _VectorCache(version, owner_of, owners, matrix.reshape(len(rows), dims))
        return self._cache

    # -- time to live ------------------------------------------------------------------------
    def sweep_ttl(self) -> int:
        """Delete the expired items now; returns how many."""
        with self._lock:
            if not self._is_setup:
                self.setup()
            with self._transaction():
                now = time.time()
                self._writes += 1
                self.conn.execute("DELETE FROM store_vectors WHERE (prefix, key) IN (SELECT prefix, key FROM store "
                                  "WHERE expires_at IS NOT NULL AND expires_at <= ?)", (now,))
                return self.conn.execute("DELETE FROM store WHERE expires_at IS NOT NULL AND expires_at <= ?",
                                         (now,)).rowcount

    def start_ttl_sweeper(self, sweep_interval_minutes: Optional[float] = None) -> threading.Thread:
        """Sweep in a daemon thread every ``sweep_interval_minutes`` (default: the TTL
        config's, else 5); :meth:`stop_ttl_sweeper` ends it."""
        interval = sweep_interval_minutes or (self.ttl_config or {}).get("sweep_interval_minutes") or 5
        if self._sweeper is not None and self._sweeper.is_alive():
            return self._sweeper
        self._stop_sweeping.clear()

        def sweep() -> None:
            while not self._stop_sweeping.wait(interval * 60):
                self.sweep_ttl()

        self._sweeper = threading.Thread(target=sweep, name="rag-store-ttl-sweeper", daemon=True)
        self._sweeper.start()
        return self._sweeper

    def stop_ttl_sweeper(self, timeout: Optional[float] = None) -> bool:
        """Stop the sweeper thread; True once it has ended (or none ran)."""
        self._stop_sweeping.set()
        if self._sweeper is None:
            return True
        self._sweeper.join(timeout)
        return not self._sweeper.is_alive()
