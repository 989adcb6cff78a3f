"""SqliteSaver: checkpoints in a SQLite file, on the standard library's ``sqlite3``.

One connection in WAL mode, guarded by a lock, so one saver (and one compiled graph) can be
used from many threads and from async code (the async methods run in a worker thread;
LangGraph needs a separate ``AsyncSqliteSaver`` for that). Another process that opens the
same file sees every committed checkpoint and can resume a paused thread. Checkpoints and
writes are JSON (never pickle). ``keep_last=N`` keeps only the newest N checkpoints of
each thread; a paused or failed step's pending writes stay with its checkpoint (its
history shows them, and replaying from it ignores them: :mod:`rag.graph._time_travel`).

A damaged or crafted file gives one error, never a stray ``KeyError`` or ``sqlite3`` error:
a file that is not a database (or is damaged past SQLite's reading) is a
:class:`~rag.errors.StorageError` naming it, and a row that does not read back as saved is a
:class:`~rag.graph.checkpoint._checked.CorruptCheckpointError` (a StorageError) naming the
file, thread and checkpoint. Reading never deletes anything, and a failed read stops a run
before it writes.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "graph.sqlite")
>>> with SqliteSaver.from_conn_string(path) as saver:
...     list(saver.list({"configurable": {"thread_id": "none-yet"}}))
[]
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional, Sequence, Union

from rag._sqlite_errors import database_file, sqlite_errors
from rag.errors import StorageError, ValidationError
from rag.graph.checkpoint import serde
from rag.graph.checkpoint._checked import check_key, load_checkpoint, load_metadata, load_write
from rag.graph.checkpoint.base import (
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointTuple,
    checkpoint_config,
    matches_filter,
    thread_of,
)

__all__ = ["SqliteSaver", "switch_to_wal"]


def switch_to_wal(conn: sqlite3.Connection) -> None:
    """Put the database of ``conn`` in WAL mode (one fsync per commit, readers never blocked
    by the writer); a private in-memory database stays as it is.

    Two connections switching a new file at once can deadlock on the lock upgrade, and
    SQLite then answers "database is locked" at once, without waiting the busy timeout;
    the switch is retried (for up to 30 s, the busy timeout) until the other one is done.
    """
    deadline = time.monotonic() + 30.0
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] not in ("memory", "wal"):
                conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS checkpoints (
    seq INTEGER PRIMARY KEY,
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    parent_checkpoint_id TEXT,
    checkpoint BLOB NOT NULL,
    metadata BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS checkpoints_by_thread ON checkpoints (thread_id, checkpoint_ns, checkpoint_id);
CREATE INDEX IF NOT EXISTS checkpoints_in_order ON checkpoints (thread_id, checkpoint_ns, seq);
CREATE TABLE IF NOT EXISTS writes (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    channel TEXT NOT NULL,
    value BLOB NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, channel)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rag_graph_format (version INTEGER NOT NULL);
"""
_FORMAT_VERSION = 1


class SqliteSaver(BaseCheckpointSaver):
    """Checkpoints in SQLite. ``conn``: an open :class:`sqlite3.Connection` (opened with
    ``check_same_thread=False`` if several threads or async code use it; the saver then
    manages its transactions) or a path; ``keep_last``: the newest N checkpoints kept per
    thread (None: all).

    ``SqliteSaver.from_conn_string(path)`` opens a file (``":memory:"`` for a private
    in-memory database); use it as a context manager, as in LangGraph, or call ``close()``.
    """

    def __init__(self, conn: Union[sqlite3.Connection, str, Path], *, keep_last: Optional[int] = None) -> None:
        super().__init__(keep_last=keep_last)
        owned = isinstance(conn, (str, Path))
        if isinstance(conn, (str, Path)):
            conn = self._open(str(conn))
        if not isinstance(conn, sqlite3.Connection):
            raise ValidationError(f"SqliteSaver needs a sqlite3.Connection or a path, got {type(conn).__name__}")
        # The saver opens and commits its own transactions (BEGIN IMMEDIATE ... COMMIT), so a
        # connection made with sqlite3.connect's default implicit transactions is switched off them.
        conn.isolation_level = None
        self.conn = conn
        self.path = database_file(conn)  # named in errors
        self._lock = threading.Lock()
        try:
            with self._errors("opening it"):
                self._setup()
        except BaseException:
            if owned:  # a file that cannot be used must not stay open (and perhaps locked)
                conn.close()
            raise

    def _errors(self, doing: str) -> Any:
        return sqlite_errors("the checkpoint database", self.path, doing=doing)

    @staticmethod
    def _open(path: str) -> sqlite3.Connection:
        try:
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, one transaction per call.
            return sqlite3.connect(path, check_same_thread=False, timeout=30.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open the checkpoint database {path!r}: {exc}") from exc

    @classmethod
    def from_conn_string(cls, conn_string: str, *, keep_last: Optional[int] = None) -> "SqliteSaver":
        """A saver on the SQLite file ``conn_string``; usable as ``with ... as saver:``."""
        return cls(conn_string, keep_last=keep_last)

    def __enter__(self) -> "SqliteSaver":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    def _setup(self) -> None:
        with self._lock:
            self._switch_to_wal()
            # One transaction, so processes opening a new file at once do not race.
            with self._transaction():
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    self.conn.execute(statement)
                row = self.conn.execute("SELECT version FROM rag_graph_format").fetchone()
                if row is None:
                    self.conn.execute("INSERT INTO rag_graph_format (version) VALUES (?)", (_FORMAT_VERSION,))
            if row is not None and row[0] != _FORMAT_VERSION:
                raise StorageError(
                    f"the checkpoint database uses format {row[0]}; this version reads format {_FORMAT_VERSION}"
                )

    def _switch_to_wal(self) -> None:
        switch_to_wal(self.conn)

    def _writes_of(self, thread_id: str, ns: str, checkpoint_id: str, location: str) -> list[tuple[str, str, Any]]:
        rows = self.conn.execute(
            "SELECT task_id, channel, value FROM writes WHERE thread_id=? AND checkpoint_ns=? AND checkpoint_id=?",
            (thread_id, ns, checkpoint_id),
        ).fetchall()
        return [load_write(task, channel, value, location=location) for task, channel, value in rows]

    def _tuple(self, thread_id: Any, ns: Any, row: tuple) -> CheckpointTuple:
        checkpoint_id, parent_id, checkpoint, metadata = row
        location = f"{self.path}: thread {thread_id!r:.80}, checkpoint {checkpoint_id!r:.80}"
        for value, what in ((thread_id, "thread id"), (ns, "namespace"), (checkpoint_id, "id")):
            check_key(value, location=location, what=what)
        if parent_id is not None:
            check_key(parent_id, location=location, what="parent id")
        return CheckpointTuple(checkpoint_config(thread_id, ns, checkpoint_id),  # type: ignore[arg-type]
                               load_checkpoint(checkpoint, location=location, checkpoint_id=checkpoint_id),
                               load_metadata(metadata, location=location),
                               checkpoint_config(thread_id, ns, parent_id),
                               self._writes_of(thread_id, ns, checkpoint_id, location))

    def get_tuple(self, config: Mapping[str, Any]) -> Optional[CheckpointTuple]:
        thread_id, ns, checkpoint_id = thread_of(config)
        select = "SELECT checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM checkpoints"
        with self._errors(f"reading thread {thread_id!r}"), self._lock:
            if checkpoint_id is None:
                row = self.conn.execute(f"{select} WHERE thread_id=? AND checkpoint_ns=? ORDER BY seq DESC LIMIT 1",
                                        (thread_id, ns)).fetchone()
            else:
                row = self.conn.execute(f"{select} WHERE thread_id=? AND checkpoint_ns=? AND checkpoint_id=?",
                                        (thread_id, ns, checkpoint_id)).fetchone()
            return None if row is None else self._tuple(thread_id, ns, row)

    def list(self, config: Optional[Mapping[str, Any]], *, filter: Optional[dict[str, Any]] = None,
             before: Optional[Mapping[str, Any]] = None, limit: Optional[int] = None) -> Iterator[CheckpointTuple]:
        where, args = [], []
        if config is not None:
            thread_id, ns, _ = thread_of(config)
            where += ["thread_id=?", "checkpoint_ns=?"]
            args += [thread_id, ns]
        if before is not None:
            b_thread, b_ns, b_id = thread_of(before)
            where.append("seq < (SELECT seq FROM checkpoints WHERE thread_id=? AND checkpoint_ns=? AND checkpoint_id=?)")
            args += [b_thread, b_ns, b_id]
        sql = ("SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata "
               f"FROM checkpoints {'WHERE ' + ' AND '.join(where) if where else ''} ORDER BY seq DESC")
        found = []
        with self._errors("listing checkpoints"), self._lock:
            for row in self.conn.execute(sql, args).fetchall():
                item = self._tuple(row[0], row[1], row[2:])
                if limit is not None and len(found) >= limit:  # limit=0 lists none (as LangGraph's)
                    break
                if matches_filter(item.metadata, filter):
                    found.append(item)
        return iter(found)

    def put(self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: dict[str, Any],
            new_versions: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        return self._save_step(config, checkpoint, metadata, ())

    def put_step(self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: dict[str, Any],
                 writes: Sequence[tuple[str, Sequence[tuple[str, Any]]]]) -> dict[str, Any]:
        """The step's task writes and its new checkpoint in one transaction: one commit (one
        fsync under ``synchronous=FULL``) a step, as a checkpoint alone costs."""
        if type(self).put is not SqliteSaver.put or type(self).put_writes is not SqliteSaver.put_writes:
            return super().put_step(config, checkpoint, metadata, writes)  # a subclass's own put/put_writes run
        return self._save_step(config, checkpoint, metadata, writes)

    def _save_step(self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: dict[str, Any],
                   writes: Sequence[tuple[str, Sequence[tuple[str, Any]]]]) -> dict[str, Any]:
        thread_id, ns, parent_id = thread_of(config)
        data, meta = serde.dumps(checkpoint), serde.dumps(metadata)  # fails before anything is written
        rows = [(thread_id, ns, parent_id or "", task_id, channel, serde.dumps(value))
                for task_id, task_writes in writes for channel, value in task_writes]
        with self._errors(f"saving thread {thread_id!r}"), self._lock, self._transaction():
            if rows:
                self.conn.executemany(
                    "INSERT OR REPLACE INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, channel, value)"
                    " VALUES (?, ?, ?, ?, ?, ?)", rows)
            self.conn.execute(
                "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id,"
                " checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?)",
                (thread_id, ns, checkpoint["id"], parent_id, data, meta),
            )
            if self.keep_last is not None:
                self._trim(thread_id, ns)
        return checkpoint_config(thread_id, ns, checkpoint["id"])  # type: ignore[return-value]

    def _trim(self, thread_id: str, ns: str) -> None:
        cutoff = self.conn.execute(
            "SELECT seq FROM checkpoints WHERE thread_id=? AND checkpoint_ns=? ORDER BY seq DESC LIMIT 1 OFFSET ?",
            (thread_id, ns, self.keep_last),
        ).fetchone()
        if cutoff is None:
            return
        self.conn.execute(
            "DELETE FROM writes WHERE thread_id=? AND checkpoint_ns=? AND checkpoint_id IN "
            "(SELECT checkpoint_id FROM checkpoints WHERE thread_id=? AND checkpoint_ns=? AND seq<=?)",
            (thread_id, ns, thread_id, ns, cutoff[0]),
        )
        self.conn.execute("DELETE FROM checkpoints WHERE thread_id=? AND checkpoint_ns=? AND seq<=?",
                          (thread_id, ns, cutoff[0]))

    def put_writes(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str,
                   task_path: str = "") -> None:
        thread_id, ns, checkpoint_id = thread_of(config)
        rows = [(thread_id, ns, checkpoint_id or "", task_id, channel, serde.dumps(value)) for channel, value in writes]
        with self._errors(f"saving thread {thread_id!r}"), self._lock, self._transaction():
            self.conn.executemany(
                "INSERT OR REPLACE INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, channel, value)"
                " VALUES (?, ?, ?, ?, ?, ?)", rows)

    def delete_thread(self, thread_id: str) -> None:
        with self._errors(f"deleting thread {thread_id!r}"), self._lock, self._transaction():
            self.conn.execute("DELETE FROM checkpoints WHERE thread_id=?", (str(thread_id),))
            self.conn.execute("DELETE FROM writes WHERE thread_id=?", (str(thread_id),))

    def _transaction(self) -> "_Transaction":
        return _Transaction(self.conn)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error): a write is all or nothing, and two
    processes writing one file wait for each other (busy timeout) instead of failing."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: Any, *rest: Any) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")
