"""The trace store: one SQLite file that many processes write runs into and read back.

Tables: ``traces`` (one row per trace: the top run and the tree's totals, what a list
shows), ``runs`` (every run, found by ``trace_id`` in ``dotted_order``), ``feedback``
(scores beside a run) and ``meta`` (``schema``: this module's :data:`SCHEMA_VERSION`).
The file is in WAL mode, so readers never wait for a writer and writers from several
processes take turns (each waits up to ``busy_timeout_s``). A run is stored once: its id
is the primary key and a second insert of it is ignored. Values are JSON text, never pickle.

>>> import tempfile, pathlib
>>> store = TraceStore(pathlib.Path(tempfile.mkdtemp()) / "traces.sqlite3")
>>> store.list_traces()
[]
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Optional, Union

from rag.errors import RagError, StorageError
from rag.tracing.records import RunRow, TraceRow

__all__ = ["TraceStore", "TraceStoreError", "RunNotFoundError", "SCHEMA_VERSION", "since_micros"]

#: The layout this module reads and writes; a file of another version is refused, by name.
SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS traces (
  trace_id TEXT PRIMARY KEY, project TEXT NOT NULL, name TEXT NOT NULL, start_us INTEGER NOT NULL,
  start_time TEXT NOT NULL, duration_ms REAL, status TEXT NOT NULL, error TEXT, runs INTEGER NOT NULL,
  errors INTEGER NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
  total_tokens INTEGER NOT NULL, tags TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS traces_by_time ON traces (start_us);
CREATE INDEX IF NOT EXISTS traces_by_project ON traces (project, start_us);
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY, trace_id TEXT NOT NULL, parent_run_id TEXT, dotted_order TEXT NOT NULL,
  project TEXT NOT NULL, name TEXT NOT NULL, run_type TEXT NOT NULL, start_us INTEGER NOT NULL,
  start_time TEXT NOT NULL, end_time TEXT, duration_ms REAL, status TEXT NOT NULL, error TEXT, inputs TEXT,
  outputs TEXT, tags TEXT NOT NULL, metadata TEXT NOT NULL, input_tokens INTEGER, output_tokens INTEGER,
  total_tokens INTEGER, notes TEXT);
CREATE INDEX IF NOT EXISTS runs_by_trace ON runs (trace_id, dotted_order);
CREATE TABLE IF NOT EXISTS feedback (
  id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, key TEXT NOT NULL, score REAL, comment TEXT,
  created TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS feedback_by_run ON feedback (run_id);
"""

_RUN_COLUMNS = RunRow._fields
_TRACE_COLUMNS = TraceRow._fields
_INSERT_RUN = f"INSERT OR IGNORE INTO runs ({', '.join(_RUN_COLUMNS)}) VALUES ({', '.join('?' * len(_RUN_COLUMNS))})"
_INSERT_TRACE = (f"INSERT OR IGNORE INTO traces ({', '.join(_TRACE_COLUMNS)}) "
                 f"VALUES ({', '.join('?' * len(_TRACE_COLUMNS))})")
_JSON_COLUMNS = ("inputs", "outputs", "tags", "metadata", "notes")


class TraceStoreError(StorageError):
    """The trace database cannot be used: corrupt, of another schema version, not a trace
    database, or not writable. The message names the file."""


class RunNotFoundError(RagError, LookupError):
    """No run (or trace) with the id given; the message says how to list them."""


def _roll_back(connection: sqlite3.Connection) -> None:
    # SQLite has already rolled back after some errors (a full disk): a second ROLLBACK
    # would fail and hide the error that matters.
    if connection.in_transaction:
        connection.execute("ROLLBACK")


def _is_full(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and "full" in str(exc).lower() or (
        isinstance(exc, OSError) and exc.errno == 28)


class TraceStore:
    """The SQLite trace database at ``path`` (created with its folder when missing).

    ``busy_timeout_s``: how long a write waits for another process's (default 30);
    ``readonly``: for readers (``rag trace list/show/serve``): the file and its tables are
    never created, and a missing file is an empty store. Every method opens its own short-lived connection,
    so one store serves many threads.

    Raises :class:`TraceStoreError` naming the file when it is corrupt, of another
    version or not a trace database.
    """

    def __init__(self, path: Union[str, os.PathLike[str]], *, busy_timeout_s: float = 30.0,
                 readonly: bool = False) -> None:
        self.path = Path(path)
        self.busy_timeout_s = busy_timeout_s
        self.readonly = readonly
        if readonly and not self.path.exists():
            return  # nothing recorded yet: every read is empty
        try:
            with closing(self.connect()) as connection:
                self._check_or_create(connection)
        except sqlite3.DatabaseError as exc:
            raise self._error(exc) from exc
        except OSError as exc:
            raise TraceStoreError(f"cannot use the trace database {self.path}: {exc}") from exc

    def __repr__(self) -> str:
        return f"TraceStore({str(self.path)!r})"

    def _error(self, exc: BaseException) -> TraceStoreError:
        if _is_full(exc):
            return TraceStoreError(f"the disk holding the trace database {self.path} is full ({exc})")
        if "not a database" in str(exc) or "malformed" in str(exc):
            return TraceStoreError(f"{self.path} is not a readable trace database ({exc}); move it away, or set "
                                   "$RAG_TRACING_DB to another file")
        return TraceStoreError(f"cannot use the trace database {self.path}: {exc}")

    def connect(self) -> sqlite3.Connection:
        """A new connection (autocommit: transactions are explicit), WAL mode."""
        if not self.readonly:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=self.busy_timeout_s, isolation_level=None)
        else:
            # mode=rw, not ro: a reader of a WAL file needs its shared-memory index; it only
            # must not create the database (a mistyped --db is an error, not a new file).
            connection = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=rw", uri=True,
                                         timeout=self.busy_timeout_s, isolation_level=None)
        connection.row_factory = sqlite3.Row
        if not self.readonly:
            connection.execute("PRAGMA journal_mode=WAL")
            # NORMAL: a commit survives a crash of this process; only a power cut may lose
            # the last batches, which is the right trade for traces.
            connection.execute("PRAGMA synchronous=NORMAL")
        return connection

    def _check_or_create(self, connection: sqlite3.Connection) -> None:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "meta" in tables:
            row = connection.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            version = row[0] if row else None
            if version != SCHEMA_VERSION:
                raise TraceStoreError(f"{self.path} is a trace database of schema version {version}; this rag reads "
                                      f"version {SCHEMA_VERSION}: move it away, or set $RAG_TRACING_DB to another file")
            return
        if tables:
            raise TraceStoreError(f"{self.path} is an SQLite database but not a rag trace database (tables: "
                                  f"{', '.join(sorted(tables))}); set $RAG_TRACING_DB to another file")
        if self.readonly:
            raise TraceStoreError(f"{self.path} is an empty file, not a rag trace database")
        connection.execute("BEGIN IMMEDIATE")  # two processes creating it at once take turns
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    connection.execute(statement)
            connection.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,))
            connection.execute("COMMIT")
        except BaseException:
            _roll_back(connection)
            raise

    # -- writing ------------------------------------------------------------------------
    def write(self, connection: sqlite3.Connection, traces: Iterable[tuple[TraceRow, list[RunRow]]]) -> int:
        """Insert ``traces`` in one transaction on ``connection`` (the writer's own); runs
        already stored are left as they are. Returns how many runs were given."""
        count = 0
        connection.execute("BEGIN IMMEDIATE")
        try:
            for trace, runs in traces:
                connection.execute(_INSERT_TRACE, trace)
                connection.executemany(_INSERT_RUN, runs)
                count += len(runs)
            connection.execute("COMMIT")
        except BaseException:
            _roll_back(connection)
            raise
        return count

    def prune(self, connection: sqlite3.Connection, *, max_age_days: float, max_bytes: int) -> int:
        """Delete traces started more than ``max_age_days`` ago, then the oldest tenth at a
        time while the live pages exceed ``max_bytes``. Returns the traces deleted."""
        cutoff = int((time.time() - max_age_days * 86400) * 1_000_000)
        deleted = self._delete_where(connection, "start_us < ?", (cutoff,))
        for _ in range(20):  # bounded: each round deletes a tenth of what is left
            pages = connection.execute("PRAGMA page_count").fetchone()[0]
            free = connection.execute("PRAGMA freelist_count").fetchone()[0]
            size = connection.execute("PRAGMA page_size").fetchone()[0]
            if (pages - free) * size <= max_bytes:
                break
            total = connection.execute("SELECT count(*) FROM traces").fetchone()[0]
            if total == 0:
                break
            row = connection.execute("SELECT start_us FROM traces ORDER BY start_us LIMIT 1 OFFSET ?",
                                     (max(total // 10, 1) - 1,)).fetchone()
            deleted += self._delete_where(connection, "start_us <= ?", (row[0],))
        return deleted

    @staticmethod
    def _delete_where(connection: sqlite3.Connection, condition: str, values: tuple[Any, ...]) -> int:
        connection.execute("BEGIN IMMEDIATE")
        try:
            connection.execute(f"DELETE FROM runs WHERE trace_id IN (SELECT trace_id FROM traces WHERE {condition})",
                               values)
            deleted = connection.execute(f"DELETE FROM traces WHERE {condition}", values).rowcount
            connection.execute("COMMIT")
        except BaseException:
            _roll_back(connection)
            raise
        return int(deleted)

    # -- reading ------------------------------------------------------------------------
    def _read(self, sql: str, values: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        if self.readonly and not self.path.exists():
            return []
        try:
            with closing(self.connect()) as connection:
                return [dict(row) for row in connection.execute(sql, values)]
        except sqlite3.DatabaseError as exc:
            raise self._error(exc) from exc

    def list_traces(self, *, project: Optional[str] = None, name: Optional[str] = None, errors_only: bool = False,
                    status: Optional[str] = None, slower_than_ms: Optional[float] = None, since_us: Optional[int] = None,
                    before_us: Optional[int] = None, limit: int = 50) -> list[dict[str, Any]]:
        """Traces, newest first: each the ``traces`` row (``trace_id``, ``project``, ``name``,
        ``start_time``, ``duration_ms``, ``status``, ``error``, ``runs``, ``errors``, token
        totals, ``tags``). ``name`` matches a substring of the top run's name; ``status``:
        ``success`` or ``error`` (``errors_only`` is ``status="error"``);
        ``before_us`` pages on (the last row's ``start_us``); ``limit`` default 50."""
        where, values = [], []
        for condition, value in (("project = ?", project), ("name LIKE ? ESCAPE '\\'", _like(name)),
                                 ("duration_ms > ?", slower_than_ms), ("start_us >= ?", since_us),
                                 ("start_us < ?", before_us)):
            if value is not None:
                where.append(condition)
                values.append(value)
        if errors_only or status is not None:
            where.append("status = ?")
            values.append("error" if errors_only else str(status))
        sql = ("SELECT * FROM traces" + (" WHERE " + " AND ".join(where) if where else "")
               + " ORDER BY start_us DESC LIMIT ?")
        rows = self._read(sql, (*values, int(limit)))
        for row in rows:
            row["tags"] = json.loads(row["tags"])
        return rows

    def projects(self) -> list[dict[str, Any]]:
        """Per project, newest first: ``traces``, ``errors`` (failed traces), ``mean_ms``,
        ``mean_tokens``, ``last_start`` and each feedback key's mean score (``feedback``:
        ``{key: {"mean", "count"}}``): two versions' bench runs side by side."""
        rows = self._read("SELECT project, count(*) AS traces, sum(status = 'error') AS errors, "
                          "avg(duration_ms) AS mean_ms, avg(total_tokens) AS mean_tokens, "
                          "max(start_time) AS last_start FROM traces GROUP BY project ORDER BY max(start_us) DESC")
        scores = self._read("SELECT runs.project AS project, feedback.key AS key, avg(feedback.score) AS mean, "
                            "count(*) AS count FROM feedback JOIN runs ON runs.id = feedback.run_id "
                            "GROUP BY runs.project, feedback.key")
        for row in rows:
            row["feedback"] = {s["key"]: {"mean": s["mean"], "count": s["count"]} for s in scores
                               if s["project"] == row["project"]}
        return rows

    def project_names(self) -> list[str]:
        """The projects, by name: a walk of the project index, quick at any size (where
        :meth:`projects` reads every trace for its totals)."""
        # A skip-scan: each step seeks the next name in the index instead of reading the
        # traces in between (DISTINCT would read them all).
        rows = self._read("WITH RECURSIVE names(project) AS (SELECT min(project) FROM traces UNION ALL "
                          "SELECT (SELECT min(project) FROM traces WHERE project > names.project) FROM names "
                          "WHERE names.project IS NOT NULL) SELECT project FROM names WHERE project IS NOT NULL")
        return [row["project"] for row in rows]

    def resolve(self, run_id: str) -> dict[str, Any]:
        """The run whose id is ``run_id`` or begins with it (at least 8 characters, as
        ``rag trace list`` shows them). Raises :class:`RunNotFoundError`."""
        text = run_id.strip().lower()
        if len(text) < 8:
            raise RunNotFoundError(f"run id {run_id!r} is too short: give at least 8 characters (rag trace list shows them)")
        rows = self._read("SELECT id, trace_id FROM runs WHERE id >= ? AND id < ? LIMIT 2", (text, text + "\uffff"))
        if not rows:
            raise RunNotFoundError(f"no run {run_id!r} in {self.path}; list the runs with: rag trace list")
        if len(rows) > 1:
            raise RunNotFoundError(f"run id {run_id!r} is ambiguous in {self.path}: give more of it")
        return rows[0]

    def get_trace(self, run_id: str) -> dict[str, Any]:
        """The trace holding the run ``run_id`` (or an id prefix): ``{"trace": traces row,
        "runs": [run rows in dotted_order, JSON fields decoded, each with "depth",
        "session_name" (the project) and its "feedback"], "selected": the full run id}``. Raises :class:`RunNotFoundError`."""
        found = self.resolve(run_id)
        traces = self._read("SELECT * FROM traces WHERE trace_id = ?", (found["trace_id"],))
        runs = self._read("SELECT * FROM runs WHERE trace_id = ? ORDER BY dotted_order", (found["trace_id"],))
        feedback = self._read("SELECT feedback.* FROM feedback JOIN runs ON runs.id = feedback.run_id "
                              "WHERE runs.trace_id = ? ORDER BY feedback.id", (found["trace_id"],))
        for run in runs:
            for column in _JSON_COLUMNS:
                if run[column] is not None:
                    run[column] = json.loads(run[column])
            run["depth"] = run["dotted_order"].count(".")
            run["session_name"] = run["project"]  # LangSmith's name for it
            run["feedback"] = [item for item in feedback if item["run_id"] == run["id"]]
        trace = traces[0] if traces else {}
        if trace:
            trace["tags"] = json.loads(trace["tags"])
        return {"trace": trace, "runs": runs, "selected": found["id"]}

    def add_feedback(self, run_id: str, *, score: Optional[float], key: str = "user_score",
                     comment: Optional[str] = None, check: bool = True) -> str:
        """Store a feedback ``score`` (and ``comment``) under ``key`` beside the run
        ``run_id`` (an id or a prefix; ``check=False`` skips looking it up, for a run still
        in the writer's queue). Returns the full run id."""
        full = self.resolve(run_id)["id"] if check else run_id
        created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        try:
            with closing(self.connect()) as connection:
                connection.execute("INSERT INTO feedback (run_id, key, score, comment, created) VALUES (?, ?, ?, ?, ?)",
                                   (full, key, score, comment, created))
        except sqlite3.DatabaseError as exc:
            raise self._error(exc) from exc
        return str(full)

    def count_runs(self) -> int:
        """How many runs are stored."""
        rows = self._read("SELECT count(*) AS n FROM runs")
        return int(rows[0]["n"]) if rows else 0


_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhdw])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def since_micros(text: str) -> int:
    """A time filter as microseconds since the epoch: ``30m``, ``2h``, ``7d``, ``1w`` ago,
    or an ISO date/time (UTC unless it says otherwise). Raises ``ValueError`` saying so."""
    match = _RELATIVE.match(text.strip())
    if match:
        seconds = float(match.group(1)) * _UNITS[match.group(2)]
        return int((time.time() - seconds) * 1_000_000)
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"expected 30m, 2h, 7d or a date such as 2026-01-31, got {text!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1_000_000)


def _like(text: Optional[str]) -> Optional[str]:
    if text is None:
        return None
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"
