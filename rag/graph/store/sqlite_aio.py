"""The SQLite store for async code (LangGraph's ``langgraph.store.sqlite.aio.AsyncSqliteStore``):
concurrent calls in one event-loop tick run as one batch; the database work runs in a
worker thread (the standard library's ``sqlite3``, no aiosqlite), so the loop never blocks.

>>> import asyncio
>>> async def main():
...     async with AsyncSqliteStore.from_conn_string(":memory:") as store:
...         await store.aput(("users", "ann"), "food", {"likes": "pears"})
...         return (await store.aget(("users", "ann"), "food")).value
>>> asyncio.run(main())
{'likes': 'pears'}
"""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import asynccontextmanager
from typing import AsyncIterator, Iterable, Optional

from rag.graph.store._plan import plan_batch
from rag.graph.store._sqlite_queries import SqliteIndexConfig
from rag.graph.store.base import Op, Result, TTLConfig
from rag.graph.store.batch import AsyncBatchedBaseStore
from rag.graph.store.sqlite import SqliteStore

__all__ = ["AsyncSqliteStore"]


class AsyncSqliteStore(AsyncBatchedBaseStore):
    """``conn``: a ``sqlite3`` connection opened with ``check_same_thread=False``
    (``from_conn_string`` opens one); ``index`` and ``ttl`` as :class:`SqliteStore`'s.
    Create it inside a running event loop."""

    supports_ttl = True

    def __init__(self, conn: sqlite3.Connection, *, index: Optional[SqliteIndexConfig] = None,
                 ttl: Optional[TTLConfig] = None) -> None:
        super().__init__()
        self._store = SqliteStore(conn, index=index, ttl=ttl)
        self.conn = conn
        self.index_config = self._store.index_config
        self.embeddings = self._store.embeddings
        self.ttl_config = ttl
        self._sweeper_task: Optional[asyncio.Task] = None

    @classmethod
    @asynccontextmanager
    async def from_conn_string(cls, conn_string: str, *, index: Optional[SqliteIndexConfig] = None,
                               ttl: Optional[TTLConfig] = None) -> AsyncIterator["AsyncSqliteStore"]:
        """A store on the database file ``conn_string`` (or ``":memory:"``), closed on exit."""
        conn = await asyncio.to_thread(sqlite3.connect, conn_string, check_same_thread=False, isolation_level=None)
        try:
            if conn_string != ":memory:":
                conn.execute("PRAGMA journal_mode = WAL")
            store = cls(conn, index=index, ttl=ttl)
            try:
                yield store
            finally:
                await store.stop_ttl_sweeper()
        finally:
            conn.close()

    async def setup(self) -> None:
        """Create or migrate the tables (they are also created on first use)."""
        await asyncio.to_thread(self._store.setup)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        plan = await plan_batch(ops, self._store._index).aembed(self._store._index)
        return await asyncio.to_thread(self._store._run, plan)

    async def sweep_ttl(self) -> int:
        """Delete the expired items now; returns how many."""
        return await asyncio.to_thread(self._store.sweep_ttl)

    async def start_ttl_sweeper(self, sweep_interval_minutes: Optional[float] = None) -> asyncio.Task:
        """Sweep every ``sweep_interval_minutes`` (default: the TTL config's, else 5) in a task."""
        interval = sweep_interval_minutes or (self.ttl_config or {}).get("sweep_interval_minutes") or 5

        async def sweep() -> None:
            while True:
                await asyncio.sleep(interval * 60)
                await self.sweep_ttl()

        if self._sweeper_task is None or self._sweeper_task.done():
            self._sweeper_task = asyncio.get_running_loop().create_task(sweep())
        return self._sweeper_task

    async def stop_ttl_sweeper(self, timeout: Optional[float] = None) -> bool:
        """Stop the sweeper task; True once it has ended (or none ran)."""
        task, self._sweeper_task = self._sweeper_task, None
        if task is None:
            return True
        task.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout)
        except (asyncio.CancelledError, asyncio.TimeoutError):
            pass
        return task.done()
