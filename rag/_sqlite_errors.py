"""One clear error for a SQLite file that cannot be used: damaged, or not a database.

The chat histories (:mod:`rag.memory.sql`) and the graph checkpoints
(:mod:`rag.graph.checkpoint.sqlite`) keep their data in SQLite files a user can copy, edit
or lose half of. Whatever ``sqlite3`` raises then (``DatabaseError: file is not a
database``, ``database disk image is malformed``, a lock held past the busy timeout) becomes
one :class:`~rag.errors.StorageError` naming the file and what was being done, with the
``sqlite3`` error chained as its cause.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import Iterator

from rag.errors import StorageError

__all__ = ["database_file", "sqlite_errors"]

# sqlite3's words for a file whose bytes are not (or no longer) a database.
_DAMAGE = ("not utf-8", "not a database", "malformed", "disk image", "corrupt", "file is encrypted")


def database_file(conn: sqlite3.Connection) -> str:
    """The file ``conn`` has open (``":memory:"`` for a private database), to name it in errors."""
    try:
        rows = conn.execute("PRAGMA database_list").fetchall()
    except sqlite3.Error:
        return "(a sqlite3 connection)"
    path = next((row[2] for row in rows if row[1] == "main"), "")
    return path or ":memory:"


@contextmanager
def sqlite_errors(what: str, path: str, *, doing: str = "") -> Iterator[None]:
    """Turn a ``sqlite3.DatabaseError`` raised inside into a StorageError saying ``what``
    (e.g. "the checkpoint database") at ``path`` failed, and while ``doing`` what.

    >>> import tempfile, os
    >>> bad = os.path.join(tempfile.mkdtemp(), "x.sqlite")
    >>> _ = open(bad, "wb").write(b"not a database at all" * 100)
    >>> with sqlite_errors("the chat history database", bad):  # doctest: +ELLIPSIS
    ...     sqlite3.connect(bad).execute("SELECT 1 FROM sqlite_master").fetchall()
    Traceback (most recent call last):
    rag.errors.StorageError: the chat history database .../x.sqlite cannot be read: file is not a database; ...
    """
    try:
        yield
    # OperationalError and the rest derive from DatabaseError; sqlite3 raises UnicodeDecodeError
    # for text (a message, the schema) that is not UTF-8 in a damaged file.
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        detail = str(exc) or type(exc).__name__
        if isinstance(exc, UnicodeDecodeError):
            detail = f"text that is not UTF-8 ({exc})"
        while_doing = f" while {doing}" if doing else ""
        if any(word in detail.lower() for word in _DAMAGE):
            raise StorageError(f"{what} {path} cannot be read{while_doing}: {detail}; the file is damaged or is "
                               "not a SQLite database: restore it from a backup, or move it aside to start "
                               "a new one") from exc
        raise StorageError(f"{what} {path} failed{while_doing}: {detail}") from exc
