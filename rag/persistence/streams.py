"""Sections too large to hold as one ``bytes``: written straight to their file, read in pieces.

Two kinds, both hashed (sha256) in fixed-size pieces, never as a whole-file copy:

- :class:`FileSection`: a writer that wants a path, such as ``faiss.write_index``. The file
  is hashed after it is written (from the page cache), and a reader gets it back as an
  open file whose hash was checked (:func:`verify_file`; :class:`BackgroundHash` hashes
  it in a worker thread while the caller reads the rest), ready for a reader that wants
  a path, or a memory map.
- :class:`JsonLinesSection`: JSON values written one per line as they come (a store
  writes blocks of documents), read back one line at a time with the hash updated as the
  bytes go by (:func:`read_json_lines`); the check at the end of the file raises before
  the caller has used a single value from a file that does not match.

JSON never holds a raw newline inside a value (``json.dumps`` escapes it), so a newline
always ends a value.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable, Iterator, Mapping, Optional

from rag.errors import CorruptIndexError, ValidationError

__all__ = ["FileSection", "JsonLinesSection", "PIECE_BYTES", "BackgroundHash", "BACKGROUND_HASHING", "hash_file",
           "verify_file",
           "read_json_lines", "write_json_lines"]

#: Bytes hashed or read per step (8 MiB): large enough that the per-call cost vanishes,
#: small enough to add nothing noticeable to peak memory.
PIECE_BYTES = 8 << 20


@dataclass(frozen=True)
class FileSection:
    """A section whose file is written by ``write(path)`` (the file must not exist yet).

    ``suffix``: the file name's extension, with its dot (``".faiss"``). Example::

        FileSection(".faiss", lambda path: faiss.write_index(index, str(path)))
    """

    suffix: str
    write: Callable[[Path], None]


@dataclass(frozen=True)
class JsonLinesSection:
    """A section of JSON values, one per line (``.jsonl``), encoded as ``lines`` yields them.

    Only one line is held in memory at a time; a store yields blocks of documents, so a
    million documents are a few hundred lines of a few MiB each.
    """

    lines: Iterable[Any]


def hash_file(handle: BinaryIO) -> tuple[str, int]:
    """``(sha256 hex digest, size in bytes)`` of the open binary ``handle`` from its start,
    read in :data:`PIECE_BYTES` pieces into one reused buffer. Leaves the position at the end."""
    digest = hashlib.sha256()
    buffer = bytearray(PIECE_BYTES)
    view = memoryview(buffer)
    size = 0
    handle.seek(0)
    while True:
        count = handle.readinto(buffer)
        if not count:
            return digest.hexdigest(), size
        digest.update(view[:count])  # hashlib releases the GIL for pieces this large
        size += count


def json_bytes(value: Any, name: str) -> bytes:
    """``value`` as compact UTF-8 JSON; a ValidationError names section ``name`` when it is
    not JSON data (NaN included)."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise ValidationError(
            f"section {name!r} cannot be saved as JSON: {exc}. Metadata values must be JSON "
            "types (str, int, float, bool, None, lists and dicts of them)."
        ) from exc
    return text.encode("utf-8")


def write_json_lines(path: Path, section: JsonLinesSection, name: str) -> None:
    """Write ``section`` to ``path``; a ValidationError names section ``name`` when a value
    is not JSON data (the caller's staging folder is then discarded)."""
    with open(path, "wb") as handle:
        for value in section.lines:
            handle.write(json_bytes(value, name))
            handle.write(b"\n")


def _mismatch(where: Path, info: Mapping[str, Any], digest: str, size: int) -> None:
    if size != info["bytes"]:
        raise CorruptIndexError(f"{where} has {size} bytes, the manifest says {info['bytes']}: truncated or replaced")
    if digest != info["sha256"]:
        raise CorruptIndexError(f"{where} does not match its sha256 in the manifest: the file was altered")


class BackgroundHash:
    """The sha256 and size of an open file, computed by a worker thread from a duplicate
    descriptor (positioned reads: the file's own position is left alone), so that a
    large file is hashed while the caller reads the others. :meth:`result` waits for it.
    """

    def __init__(self, handle: BinaryIO) -> None:
        self._fd = os.dup(handle.fileno())
        self._outcome: Any = None
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="rag-verify", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            digest, buffer, offset = hashlib.sha256(), bytearray(PIECE_BYTES), 0
            view = memoryview(buffer)
            while not self._stop:
                count = _read_at(self._fd, buffer, offset)  # releases the GIL, as does update()
                if not count:
                    break
                digest.update(view[:count])
                offset += count
            self._outcome = (digest.hexdigest(), offset)
        except OSError as exc:
            self._outcome = exc
        finally:
            os.close(self._fd)

    def result(self) -> tuple[str, int]:
        """``(sha256 hex digest, size)``; raises the OSError reading met."""
        self._thread.join()
        if isinstance(self._outcome, OSError):
            raise self._outcome
        return self._outcome

    def cancel(self) -> None:
        """Stop hashing soon (the result is then meaningless)."""
        self._stop = True


def _read_at(fd: int, buffer: bytearray, offset: int) -> int:
    """Read into ``buffer`` at ``offset`` without moving the descriptor's position."""
    if hasattr(os, "preadv"):
        return os.preadv(fd, [buffer], offset)
    data = os.pread(fd, len(buffer), offset)  # macOS before 11 has pread only
    buffer[: len(data)] = data
    return len(data)


#: Whether :class:`BackgroundHash` can work here (positioned reads; not on Windows, where
#: files are hashed in the caller's thread instead).
BACKGROUND_HASHING = hasattr(os, "pread")


def verify_file(handle: BinaryIO, info: Mapping[str, Any], where: Path, started: Optional[BackgroundHash] = None) -> None:
    """Check the open ``handle`` against its manifest entry ``info`` (``bytes``, ``sha256``),
    reading it in pieces (or waiting for the ``started`` background hash of it);
    CorruptIndexError naming ``where`` when it does not match."""
    size = os.fstat(handle.fileno()).st_size
    if size != info["bytes"]:  # cheap, and spares hashing a truncated file
        if started is not None:
            started.cancel()
        _mismatch(where, info, "", size)
    digest, size = started.result() if started is not None else hash_file(handle)
    _mismatch(where, info, digest, size)
    handle.seek(0)


def read_json_lines(handle: BinaryIO, info: Mapping[str, Any], where: Path) -> Iterator[Any]:
    """The values of a :class:`JsonLinesSection` file, one per line, hashed as they are read.

    The file is read in :data:`PIECE_BYTES` pieces. Raises CorruptIndexError for a line
    that is not JSON, and, once the last value has been yielded, when size or sha256 do
    not match ``info``: consume the whole iterator before trusting what it gave.
    """
    digest = hashlib.sha256()
    size = 0
    carry = b""
    handle.seek(0)
    while True:
        piece = handle.read(PIECE_BYTES)
        if not piece:
            break
        digest.update(piece)
        size += len(piece)
        lines = (carry + piece).split(b"\n")
        carry = lines.pop()
        for line in lines:
            yield _parse_line(line, where)
    _mismatch(where, info, digest.hexdigest(), size)
    if carry.strip():  # a value without its newline: the write was cut short
        raise CorruptIndexError(f"{where} ends in the middle of a line: truncated")


def _parse_line(line: bytes, where: Path) -> Any:
    try:
        return json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptIndexError(f"{where}: a line is not valid JSON ({exc}): truncated or altered") from exc
