"""SQLChatMessageHistory: conversations in a SQLite file, on the standard library's ``sqlite3``.

One table (``message_store`` by default) holds every session's messages: ``id`` (the order
they were added), ``session_id`` (indexed), ``message`` (a JSON
:func:`~rag.memory.base.message_to_dict` record) and ``created_at`` (UTC, ISO 8601). It is
the table LangChain's ``SQLChatMessageHistory`` (langchain-community, on SQLAlchemy) makes,
plus ``created_at`` and the index, so a database either one wrote is read by the other (a
LangChain table gets the column and index added when opened here).

A file that is not a database (or is damaged past SQLite's reading) is a
:class:`~rag.errors.StorageError` naming it, whatever ``sqlite3`` raised; a row that is not
a message is a :class:`~rag.memory.base.CorruptHistoryError` naming the row. Nothing is
deleted on either.

>>> import os, tempfile
>>> history = SQLChatMessageHistory("alice", connection=os.path.join(tempfile.mkdtemp(), "chats.sqlite"))
>>> history.add_user_message("hi"); history.add_ai_message("hello")
>>> [m.content for m in history.get_messages(limit=1)]
['hello']
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from rag._sqlite_errors import database_file, sqlite_errors
from rag.errors import StorageError, ValidationError
from rag.graph.checkpoint.sqlite import switch_to_wal
from rag.memory._sqlite_target import sqlite_target
from rag.memory.base import (
    BaseChatMessageHistory,
    CorruptHistoryError,
    check_session_id,
    checked_messages,
    message_from_dict,
    message_to_dict,
)
from rag.messages import BaseMessage

__all__ = ["SQLChatMessageHistory"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _read_only(error: sqlite3.OperationalError) -> bool:
    return (getattr(error, "sqlite_errorname", None) or "").startswith("SQLITE_READONLY")


class SQLChatMessageHistory(BaseChatMessageHistory):
    """The messages of session ``session_id`` (a non-empty str) in the SQLite database
    ``connection``: a file path, a SQLAlchemy URL (``sqlite:///relative.db``,
    ``sqlite:////absolute.db``, with ``?mode=ro`` and SQLite's other URI parameters, or
    ``?timeout=SECONDS``), a SQLite URI (``file:chats.db?mode=ro``), or an open
    :class:`sqlite3.Connection` (opened with ``check_same_thread=False`` if several
    threads use it); see :mod:`rag.memory._sqlite_target` for the forms accepted. A
    read-only database (``mode=ro``) is read; writing to it raises
    :class:`~rag.errors.StorageError`.
    ``connection_string`` is accepted as LangChain's older name. ``table_name`` and
    ``session_id_field_name``: the table and column (letters, digits and ``_``).

    Each ``add_messages`` call is one transaction (the file is switched to WAL mode: one
    fsync per commit, and readers do not wait for a writer). ``get_messages(limit=N)``: the newest
    ``N`` messages, oldest first. Other processes may use the same file at once (SQLite
    locks it; a writer waits up to 30 s).
    """

    def __init__(self, session_id: str, connection: Union[str, os.PathLike, sqlite3.Connection, None] = None, *,
                 connection_string: Optional[str] = None, table_name: str = "message_store",
                 session_id_field_name: str = "session_id") -> None:
        self.session_id = check_session_id(session_id)
        for what, name in (("table_name", table_name), ("session_id_field_name", session_id_field_name)):
            if not isinstance(name, str) or not _NAME.match(name):
                raise ValidationError(f"{what} must be letters, digits and _ (not starting with a digit), got {name!r}")
        self.table_name, self.session_id_field_name = table_name, session_id_field_name
        connection = connection if connection is not None else connection_string
        if connection is None:
            raise ValidationError("SQLChatMessageHistory needs connection=PATH (a SQLite file) or a sqlite3.Connection")
        if isinstance(connection, sqlite3.Connection):
            self.conn, self._owned = connection, False
        elif isinstance(connection, (str, os.PathLike)):
            target = sqlite_target(connection)
            if target.folder is not None:
                Path(target.folder).mkdir(parents=True, exist_ok=True)
            try:
                self.conn = sqlite3.connect(target.database, check_same_thread=False, timeout=target.timeout,
                                            uri=target.uri)
            except sqlite3.Error as exc:
                raise StorageError(f"cannot open the chat history database {target.database!r}: {exc}") from exc
            self._owned = True
        else:
            raise ValidationError(f"connection must be a path or a sqlite3.Connection, got {type(connection).__name__}")
        # We issue BEGIN/COMMIT ourselves: one transaction per call. A connection we were
        # given keeps its mode (setting None would commit its pending changes at once and
        # make its later writes autocommit); sqlite3 never begins implicitly before BEGIN.
        if self._owned:
            self.conn.isolation_level = None
        self.path = database_file(self.conn)  # named in errors
        self._lock = threading.Lock()
        try:
            with self._errors("opening it"):
                self._setup()
        except BaseException:
            self.close()  # a file that cannot be used must not stay open (and perhaps locked)
            raise

    def _errors(self, doing: str) -> Any:
        return sqlite_errors("the chat history database", self.path, doing=doing)

    def _setup(self) -> None:
        table, column = self.table_name, self.session_id_field_name
        with self._lock:
            if not self.conn.in_transaction:  # else _transaction below refuses, naming why
                try:
                    switch_to_wal(self.conn)
                except sqlite3.OperationalError as exc:
                    if not _read_only(exc):
                        raise  # read-only: its journal mode is not ours to change
        with self._lock, self._transaction():
            self.conn.execute(f'CREATE TABLE IF NOT EXISTS "{table}" (id INTEGER PRIMARY KEY AUTOINCREMENT, '
                              f'"{column}" TEXT NOT NULL, message TEXT NOT NULL, created_at TEXT)')
            columns = {row[1] for row in self.conn.execute(f'PRAGMA table_info("{table}")')}
            if column not in columns or "message" not in columns:
                raise StorageError(f"table {table!r} has no {column!r} and 'message' columns: it is not a chat history "
                                   "table; choose another table_name")
            if "created_at" not in columns:  # a table LangChain made
                self.conn.execute(f'ALTER TABLE "{table}" ADD COLUMN created_at TEXT')
            self.conn.execute(f'CREATE INDEX IF NOT EXISTS "{table}_by_session" ON "{table}" ("{column}", id)')

    def _transaction(self) -> Any:
        conn = self.conn

        class _Tx:
            def __enter__(self) -> None:
                if conn.in_transaction:
                    raise ValidationError("the sqlite3.Connection given to SQLChatMessageHistory has uncommitted "
                                          "changes; commit or roll them back first (the history commits its own "
                                          "writes, and would commit yours with them)")
                conn.execute("BEGIN IMMEDIATE")

            def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
                conn.execute("COMMIT" if kind is None else "ROLLBACK")
                if isinstance(error, sqlite3.OperationalError) and _read_only(error):
                    raise StorageError(f"the chat history database is opened read-only ({error}); open it "
                                       "without mode=ro or immutable=1 to write to it") from error

        return _Tx()

    def get_messages(self, limit: Optional[int] = None) -> list[BaseMessage]:
        """The session's messages, oldest first; ``limit``: only the newest ``limit`` (>= 0)."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise ValidationError(f"limit must be a non-negative int or None, got {limit!r}")
        table, column = self.table_name, self.session_id_field_name
        query = f'SELECT id, message FROM "{table}" WHERE "{column}" = ? ORDER BY id DESC'
        with self._errors(f"reading session {self.session_id!r}"), self._lock:
            rows = self.conn.execute(query + (" LIMIT ?" if limit is not None else ""),
                                     (self.session_id, limit) if limit is not None else (self.session_id,)).fetchall()
        messages: list[BaseMessage] = []
        for row_id, text in reversed(rows):
            try:
                messages.append(message_from_dict(json.loads(text)))
            # RecursionError: JSON nested deeper than the reader goes is no message either.
            except (TypeError, ValueError, RecursionError) as exc:
                problem = f"{type(exc).__name__}: {exc}" if isinstance(exc, RecursionError) else str(exc)
                raise CorruptHistoryError(
                    f"{self.path}: {table} row id={row_id} (session {self.session_id!r}) is not a chat message "
                    f"record ({problem:.200}); the {len(messages)} message(s) before it are in error.messages",
                    location=f"{self.path}: {table} id={row_id}", messages=messages) from exc
        return messages

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        messages = checked_messages(messages)
        at = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        rows = [(self.session_id, json.dumps(message_to_dict(m), ensure_ascii=False), at) for m in messages]
        with self._errors(f"adding to session {self.session_id!r}"), self._lock, self._transaction():
            self.conn.executemany(f'INSERT INTO "{self.table_name}" ("{self.session_id_field_name}", message, '
                                  'created_at) VALUES (?, ?, ?)', rows)

    def clear(self) -> None:
        """Delete this session's messages (other sessions are untouched)."""
        with self._errors(f"clearing session {self.session_id!r}"), self._lock, self._transaction():
            self.conn.execute(f'DELETE FROM "{self.table_name}" WHERE "{self.session_id_field_name}" = ?',
                              (self.session_id,))

    def close(self) -> None:
        """Close the connection (when this history opened it)."""
        if self._owned:
            self.conn.close()

    def __repr__(self) -> str:
        return f"SQLChatMessageHistory({self.session_id!r}, table_name={self.table_name!r})"
