"""FileChatMessageHistory: a conversation in a JSON-lines file, appended to and never rewritten.

Each message is one line, ``{"type": ..., "data": {...}, "at": "2026-01-01T12:00:00+00:00"}``
(a :func:`~rag.memory.base.message_to_dict` record and when it was added, UTC). How it stays
crash-safe:

* ``add_messages`` writes all its lines with one ``write`` on a file opened ``O_APPEND``,
  then ``fsync``: nothing already stored is ever rewritten (LangChain's
  ``FileChatMessageHistory`` rewrites the whole JSON list on every message, so a crash
  mid-write can lose the whole conversation).
* The last line of each call carries ``"end": true``. A crash mid-write leaves either a
  torn last line (no newline) or lines after the last ``"end"``: both are an unfinished
  call, ignored when reading, and cut off (``truncate``) before the next append, so a
  question is never stored without the answer that came with it. The bytes cut are first
  appended to ``<file>.unfinished`` (fsynced): a crash's leftovers, or whole lines whose
  ``"end"`` a disk error changed, are set aside, never lost.
* Writers take an exclusive ``flock`` on the file, so two processes appending to one
  session interleave whole calls.
* A complete line in the middle that is not a message (a hand edit, a disk error) is
  corruption, not a crash: reading raises :class:`~rag.memory.base.CorruptHistoryError`
  naming ``path:line``, with the good messages before it in ``error.messages``; the
  file is left as it is.

>>> import os, tempfile
>>> history = FileChatMessageHistory(os.path.join(tempfile.mkdtemp(), "chat.jsonl"))
>>> history.add_user_message("hi")
>>> history.messages[0].content
'hi'
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator, Sequence, Union

from rag.errors import ValidationError
from rag.memory.base import BaseChatMessageHistory, CorruptHistoryError, checked_messages, message_from_dict, message_to_dict
from rag.messages import BaseMessage

__all__ = ["FileChatMessageHistory"]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class FileChatMessageHistory(BaseChatMessageHistory):
    """A history in the JSON-lines file ``file_path`` (created, with its folder, on the
    first message). ``encoding``: the file's text encoding (default UTF-8);
    ``ensure_ascii``: escape non-ASCII characters (default False, LangChain's True)."""

    def __init__(self, file_path: Union[str, os.PathLike], *, encoding: str = "utf-8", ensure_ascii: bool = False) -> None:
        if not isinstance(file_path, (str, os.PathLike)):
            raise ValidationError(f"file_path must be a path, got {type(file_path).__name__} {file_path!r:.60}")
        self.file_path = Path(file_path)
        if self.file_path.is_dir():
            raise ValidationError(f"{self.file_path} is a folder; FileChatMessageHistory needs a file path")
        try:
            newline = "\n".encode(encoding)
        except (LookupError, TypeError):
            raise ValidationError(f"encoding {encoding!r} is not a text encoding Python knows") from None
        if newline != b"\n":  # one line per message: the file is split at the byte 10
            raise ValidationError(f"encoding {encoding!r} writes a newline as {newline!r}; FileChatMessageHistory "
                                  "keeps one message per line and needs an encoding that writes it as b'\\n' "
                                  "(UTF-8, the default, or another ASCII-compatible one)")
        self.encoding = encoding
        self.ensure_ascii = ensure_ascii

    # ------------------------------------------------------------------ reading

    def _read(self) -> tuple[list[BaseMessage], int]:
        """The messages of every finished call, and the byte length they take (where an
        unfinished call's leftovers start)."""
        try:
            payload = self.file_path.read_bytes()
        except FileNotFoundError:
            return [], 0
        messages: list[BaseMessage] = []
        pending: list[BaseMessage] = []
        committed = position = 0
        lines = payload.split(b"\n")
        for number, raw in enumerate(lines, start=1):
            start, position = position, position + len(raw) + 1
            if number == len(lines):  # after the final newline: empty, or a line torn by a crash
                break
            if not raw.strip():
                continue
            if not raw.strip(b"\0") and not payload[start:].strip(b"\0\n"):
                break  # a crash can leave the file longer than what reached the disk, as NUL bytes
            try:
                record = json.loads(raw.decode(self.encoding))
                message = message_from_dict(record)
            # RecursionError: a line nested deeper than the JSON reader goes is no message either.
            except (ValueError, TypeError, RecursionError) as exc:
                problem = f"{type(exc).__name__}: {exc}" if isinstance(exc, RecursionError) else str(exc)
                raise CorruptHistoryError(
                    f"{self.file_path}:{number}: not a chat message record ({problem:.200}); the {len(messages)} "
                    "message(s) before it are intact in error.messages; fix or delete that line",
                    location=f"{self.file_path}:{number}", messages=messages) from exc
            pending.append(message)
            if record.get("end", True) is not False and ("end" in record or "at" not in record):
                # Records of other tools (no "at"): each is its own call.
                messages.extend(pending)
                pending, committed = [], position
        return messages, committed

    def get_messages(self) -> list[BaseMessage]:
        return self._read()[0]

    # ------------------------------------------------------------------ writing

    @contextmanager
    def _locked(self, flags: int) -> Iterator[int]:
        self.file_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.file_path, flags | os.O_CREAT, 0o600)
        try:
            try:
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX)
            except ImportError:  # not POSIX: no lock (one writer at a time is then the caller's job)
                pass
            yield fd
        finally:
            os.close(fd)  # closing releases the lock

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        messages = checked_messages(messages)
        if not messages:
            return
        at = _now()
        records = [{**message_to_dict(message), "at": at} for message in messages]
        records[-1]["end"] = True
        payload = "".join(json.dumps(record, ensure_ascii=self.ensure_ascii, separators=(",", ":")) + "\n"
                          for record in records).encode(self.encoding)
        with self._locked(os.O_RDWR | os.O_APPEND) as fd:
            if not self._ends_whole(fd):
                _, committed = self._read()  # the slow path, after a crash: read it all
                self._set_aside(fd, committed)
                os.ftruncate(fd, committed)  # an unfinished call's leftovers (see the module's notes)
            _write_all(fd, payload)
            os.fsync(fd)

    def _set_aside(self, fd: int, committed: int) -> None:
        """Append the bytes after ``committed`` (about to be cut) to ``<file>.unfinished``,
        unless they are only the NUL bytes or blanks a crash leaves."""
        size = os.fstat(fd).st_size
        tail = os.pread(fd, size - committed, committed) if size > committed else b""
        if not tail.strip(b"\0 \t\r\n"):
            return
        aside = os.open(self.file_path.with_name(self.file_path.name + ".unfinished"),
                        os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            _write_all(aside, tail)
            os.fsync(aside)
        finally:
            os.close(aside)

    def _ends_whole(self, fd: int) -> bool:
        """True when the file is empty or its last line is a whole, finished call's (the
        common case: appending then needs no full read)."""
        size = os.fstat(fd).st_size
        if size == 0:
            return True
        tail = os.pread(fd, min(size, 1 << 16), max(0, size - (1 << 16)))
        if not tail.endswith(b"\n"):
            return False
        last = tail[:-1].rsplit(b"\n", 1)[-1]
        if len(last) + 1 == len(tail) and size > len(tail):
            return False  # a line longer than the tail read: let the full read judge it
        try:
            record = json.loads(last.decode(self.encoding))
        except (ValueError, RecursionError):  # the full read judges it, and names the line
            return False
        return isinstance(record, dict) and (record.get("end") is True or "at" not in record)

    def clear(self) -> None:
        """Empty the file (truncated in place, then fsynced)."""
        if not self.file_path.exists():
            return
        with self._locked(os.O_RDWR) as fd:
            os.ftruncate(fd, 0)
            os.fsync(fd)

    def __repr__(self) -> str:
        return f"FileChatMessageHistory({str(self.file_path)!r})"


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]
