"""Reading and checking an index folder's ``manifest.json`` (format version 2): the one
file that says which segments hold the index, so the one file that must not lie.

A manifest carries ``"checksum": "sha256:HEX"``, the sha256 of its own content without
that field, serialised canonically (keys sorted, ASCII, no spaces: see
:func:`manifest_checksum`). Reading one:

- the file must be a regular file (a FIFO, a device or a folder in its place is refused
  without being opened for reading, so ``rag info`` cannot hang on it);
- it must parse as JSON without duplicate keys, deeper than :data:`MAX_DEPTH` levels, or
  integers of more than 4300 digits (each a one-line :class:`~rag.errors.CorruptIndexError`
  naming the file, never a ``RecursionError`` or ``ValueError``);
- a checksum that is present must match; a format-2 manifest **without** one was written
  before checksums (rag up to this change): it is accepted, checked for structure only,
  and the next commit writes a checksum. A damaged old manifest can therefore only be
  caught by :func:`check_structure`, and a commit on top of one never deletes a segment
  folder the old manifest did not name (see :meth:`rag.index.segments.SegmentFolder.write_manifest`);
- every field must have its type: :func:`check_structure` (unknown top-level fields are
  refused too: a one-bit flip in the key ``"checksum"`` must not pass as an old manifest).

Each segment's files carry their own sha256 and size in the manifest, checked when read.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any

from rag.errors import CorruptIndexError

__all__ = ["MANIFEST", "MAX_DEPTH", "read_regular_file", "parse_json", "read_manifest", "manifest_checksum",
           "with_checksum", "check_structure", "verified"]

MANIFEST = "manifest.json"
#: Deepest nesting a manifest may have (a real one has 5 levels).
MAX_DEPTH = 64
#: Segment files every segment has (the BM25 postings came later; a segment without
#: them is analysed again when read).
REQUIRED_SEGMENT_FILES = ("vectors.npy", "chunks.json", "changes.json")
_TOP_LEVEL = frozenset({"format", "format_version", "store_class", "embedding", "config", "segments", "lexical",
                        "bm25", "checksum"})
_PART_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_FILE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
#: Largest integer any manifest field may hold (sizes, rows, dimension).
_MAX_INT = 2 ** 62


def read_regular_file(path: Path) -> bytes:
    """The bytes of ``path``, refusing anything but a regular file (a FIFO would block the
    read forever, a device never end) with a :class:`CorruptIndexError` naming it.
    FileNotFoundError is raised as is (callers say what a missing file means)."""
    # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a folder" if stat.S_ISDIR(mode) else "a device or socket"
            raise CorruptIndexError(f"{path} is {kind}, not a regular file: refusing to read it (an index folder "
                                    "holds only files rag wrote)")
        with os.fdopen(fd, "rb", closefd=True) as handle:
            fd = -1  # the file object closes it now
            return handle.read()
    finally:
        if fd >= 0:
            os.close(fd)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        duplicate = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise ValueError(f"the key {duplicate!r} appears twice in one object")
    return data


def parse_json(payload: bytes, where: Path, *, strict: bool = True) -> Any:
    """``payload`` parsed as strict UTF-8 JSON; every failure is one CorruptIndexError
    naming ``where`` (bad bytes, bad JSON, nesting too deep for the parser, integers too
    long to convert; ``strict``, default True: also duplicate keys, nesting deeper than
    :data:`MAX_DEPTH`, NaN or infinite numbers). A segment's files, whose sha256 the
    manifest holds, are parsed with ``strict=False``: those checks would double the
    time an index takes to open (70,000 chunks: 0.41 s instead of 0.22 s)."""
    try:
        data = json.loads(payload.decode("utf-8"), object_pairs_hook=_no_duplicates if strict else None,
                          parse_constant=_refuse_constant if strict else None)
    except UnicodeDecodeError as exc:
        raise CorruptIndexError(f"{where} is not UTF-8 text (byte {exc.start}): the file is damaged") from None
    except RecursionError:
        raise CorruptIndexError(f"{where} is nested too deeply to be an index file: the file is damaged") from None
    except ValueError as exc:  # JSONDecodeError, a duplicate key, an integer of more than 4300 digits
        reason = str(exc).splitlines()[0][:160]
        raise CorruptIndexError(f"{where} is not valid index JSON ({reason}): the file is damaged") from None
    if strict:
        _check_values(data, where)
    return data


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number an index file holds")


def _check_values(data: Any, where: Path) -> None:
    """Refuse nesting deeper than MAX_DEPTH and numbers out of range (iteratively: the
    check itself must not recurse)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise CorruptIndexError(f"{where} is nested more than {MAX_DEPTH} levels deep: the file is damaged")
        if isinstance(value, dict):
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int) and abs(value) > _MAX_INT:
            raise CorruptIndexError(f"{where} holds the number {str(value)[:20]}... ({len(str(value))} digits), "
                                    "larger than any index value: the file is damaged")
        elif isinstance(value, float) and not math.isfinite(value):
            raise CorruptIndexError(f"{where} holds a number out of range: the file is damaged")


def manifest_checksum(data: dict[str, Any]) -> str:
    """``"sha256:HEX"`` of ``data`` without its ``checksum`` field, serialised canonically
    (the same for the dict a commit writes and the one read back from its file)."""
    content = {key: value for key, value in data.items() if key != "checksum"}
    canonical = json.dumps(content, sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return "sha256:" + hashlib.sha256(canonical.encode("ascii")).hexdigest()


def with_checksum(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` plus its ``checksum`` field (what a commit writes)."""
    return {**{key: value for key, value in data.items() if key != "checksum"}, "checksum": manifest_checksum(data)}


def verified(data: dict[str, Any]) -> bool:
    """Whether ``data`` (read by :func:`read_manifest`) carried a checksum, which matched:
    False for a manifest written before checksums."""
    return "checksum" in data


def read_manifest(path: Path, *, fmt: str, version: int) -> dict[str, Any]:
    """The manifest of the index folder ``path``, read and checked as the module docstring
    says (``fmt``/``version``: the format name and the version whose structure is checked;
    other versions are returned for their own reader). CorruptIndexError names the file."""
    file = Path(path) / MANIFEST
    try:
        payload = read_regular_file(file)
    except FileNotFoundError as exc:
        raise CorruptIndexError(f"{path} has no {MANIFEST}: not an index folder, or an incomplete one") from exc
    except IsADirectoryError as exc:  # platforms where a folder cannot be opened
        raise CorruptIndexError(f"{file} is a folder, not a regular file") from exc
    data = parse_json(payload, file)
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise CorruptIndexError(f"{file} is not a rag index manifest")
    if "checksum" in data:
        if data["checksum"] != manifest_checksum(data):
            raise CorruptIndexError(f"{file} does not match its checksum: the manifest was altered or damaged "
                                    "(restore it from a backup, or rebuild the index)")
    if data.get("format_version") == version or "checksum" in data:
        check_structure(data, file)
    return data


def _fail(file: Path, field: str, expected: str, value: Any) -> CorruptIndexError:
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return CorruptIndexError(f"{file}: {field} must be {expected}, got {shown}: the manifest is damaged")


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_INT


def check_structure(data: dict[str, Any], file: Path) -> None:
    """Every field of a format-2 manifest has the type it must have; raises a
    CorruptIndexError naming ``file``, the field and the value. (The settings inside
    ``config`` and ``lexical`` are checked by the classes that read them.)"""
    unknown = sorted(set(data) - _TOP_LEVEL)
    if unknown:
        raise _fail(file, "the top-level fields", f"among {', '.join(sorted(_TOP_LEVEL))}", unknown[0])
    for field, expected in (("format_version", int), ("store_class", str), ("embedding", dict), ("config", dict),
                            ("segments", list)):
        if not isinstance(data.get(field), expected) or isinstance(data.get(field), bool):
            raise _fail(file, f'"{field}"', f"a JSON {'number' if expected is int else expected.__name__}",
                        data.get(field, "(missing)"))
    if "checksum" in data and not (isinstance(data["checksum"], str) and data["checksum"].startswith("sha256:")):
        raise _fail(file, '"checksum"', '"sha256:" and 64 hex digits', data["checksum"])
    embedding = data["embedding"]
    if not isinstance(embedding.get("model_id"), (str, type(None))):
        raise _fail(file, "embedding.model_id", "a string or null", embedding.get("model_id"))
    dimension = embedding.get("dimension")
    if dimension is not None and not (_count(dimension) and dimension >= 1):
        raise _fail(file, "embedding.dimension", "a positive integer or null", dimension)
    if not isinstance(data["config"].get("embedding_spec"), str):
        raise _fail(file, "config.embedding_spec", "a string", data["config"].get("embedding_spec", "(missing)"))
    if not isinstance(data["config"].get("saved_at"), (str, type(None))):
        raise _fail(file, "config.saved_at", "a string or null", data["config"].get("saved_at"))
    for field in ("lexical", "bm25"):
        if not isinstance(data.get(field), (dict, type(None))):
            raise _fail(file, f'"{field}"', "an object or null", data.get(field))
    if isinstance(data.get("bm25"), dict) and not _is_part(data["bm25"], "name"):
        raise _fail(file, "bm25.name", "a folder name", data["bm25"].get("name"))
    names: set[str] = set()
    for number, entry in enumerate(data["segments"]):
        _check_segment(file, number, entry)
        if entry["name"] in names:
            raise _fail(file, f"segments[{number}].name", "unique", entry["name"])
        names.add(entry["name"])


def _is_part(entry: dict[str, Any], key: str) -> bool:
    return isinstance(entry.get(key), str) and _PART_NAME.fullmatch(entry[key]) is not None


def _check_segment(file: Path, number: int, entry: Any) -> None:
    where = f"segments[{number}]"
    if not isinstance(entry, dict):
        raise _fail(file, where, "an object", entry)
    if not _is_part(entry, "name"):  # a name is a folder: never a path such as ../../x
        raise _fail(file, f"{where}.name", "a segment folder name (letters, digits, - and _)", entry.get("name"))
    if not _count(entry.get("rows")):
        raise _fail(file, f"{where}.rows", "an integer >= 0", entry.get("rows", "(missing)"))
    files = entry.get("files")
    if not isinstance(files, dict):
        raise _fail(file, f"{where}.files", "an object naming each file's sha256 and bytes", files)
    missing = [name for name in REQUIRED_SEGMENT_FILES if name not in files]
    if missing:
        raise _fail(file, f"{where}.files", f"an object naming {', '.join(REQUIRED_SEGMENT_FILES)}",
                    f"no {missing[0]}")
    for name, info in files.items():
        if _FILE_NAME.fullmatch(name) is None:
            raise _fail(file, f"{where}.files", "file names (letters, digits, ., - and _)", name)
        if not isinstance(info, dict) or not isinstance(info.get("sha256"), str) \
                or _SHA256.fullmatch(info["sha256"]) is None or not _count(info.get("bytes")):
            raise _fail(file, f"{where}.files[{name!r}]", '{"sha256": 64 hex digits, "bytes": an integer}', info)
