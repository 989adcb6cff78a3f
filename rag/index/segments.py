"""The index folder on disk (format version 2): append-only segments and one manifest.

An update commits in checkpoints. Each checkpoint writes only what is new, as a segment
(``segments/NAME/``: ``vectors.npy``, ``chunks.json``, ``changes.json`` and the BM25
postings of its chunks, see :mod:`rag.index.lexical`), then replaces ``manifest.json`` in
one atomic rename. Files are never changed once written, so a reader that has read a
manifest can read its files; a crash leaves the last manifest and everything it names.
When replaced chunks outnumber live ones the segments are compacted into one. (Indexes
written before segments held postings have a ``bm25/NAME/`` part instead; it is dropped
at their next commit.)

``manifest.json``: ``format``, ``format_version`` (2), ``store_class`` ("RagIndex"),
``embedding`` (model id, dimension), ``config`` (the index's settings and ``saved_at``),
``segments`` (name, rows, and sha256 + size of each file), ``lexical`` (the BM25
analysis and parameters), ``bm25`` (null; older indexes: their BM25 part) and
``checksum`` (of the rest; see :mod:`rag.index.manifest`, which reads and checks it).
A commit deletes the parts the new manifest no longer names only as far as the manifest
it replaces verified; others go to ``orphans/`` (see :meth:`SegmentFolder._collect_garbage`).
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Optional, Sequence

import numpy as np

from rag.documents import Document
from rag.errors import CorruptIndexError
from rag.index.manifest import MANIFEST, parse_json, read_regular_file, verified, with_checksum
from rag.index.manifest import read_manifest as _read_checked_manifest
from rag.persistence import FORMAT
from rag.persistence import atomic

if TYPE_CHECKING:
    from stores.base import VectorStore

__all__ = ["FORMAT_VERSION", "MANIFEST", "Batch", "Replay", "SegmentFolder", "read_manifest", "manifest_version"]

FORMAT_VERSION = 2
logger = logging.getLogger("rag.index")
_SEGMENTS = "segments"
_BM25 = "bm25"
#: Where a commit puts parts an unverified manifest did not name (see _collect_garbage).
_ORPHANS = "orphans"


@dataclass
class Batch:
    """What one checkpoint commits: chunks added or replaced (``ids``, ``texts``,
    ``metadatas``, float32 ``vectors`` as embedded), chunk ids removed, and the record
    entries set (source -> JSON row) or removed."""

    ids: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    metadatas: list[dict[str, Any]] = field(default_factory=list)
    vectors: Optional[np.ndarray] = None
    removed_chunks: list[str] = field(default_factory=list)
    record_set: dict[str, dict[str, Any]] = field(default_factory=dict)
    record_removed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.ids or self.removed_chunks or self.record_set or self.record_removed)

    def apply_chunks(self, store: VectorStore) -> None:
        """Make ``store`` (a :class:`~stores.base.VectorStore`) hold this batch's chunks:
        the removed ones deleted first, then the added or replaced ones written with their
        vectors (never embedded again)."""
        if self.removed_chunks:
            store.delete(self.removed_chunks)
        if self.ids:
            assert self.vectors is not None  # a batch's chunks come with their vectors
            documents = [Document(text, metadata, chunk_id)
                         for chunk_id, text, metadata in zip(self.ids, self.texts, self.metadatas)]
            store.add_vectors(self.vectors, documents, ids=self.ids)


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def _json(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest of the index folder ``path``, checked (its checksum, the type of each
    field; see :mod:`rag.index.manifest`). Raises CorruptIndexError naming the file."""
    return _read_checked_manifest(path, fmt=FORMAT, version=FORMAT_VERSION)


def manifest_version(data: dict[str, Any]) -> str:
    """Equal for equal manifests: identifies one saved state of the index."""
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


class SegmentFolder:
    """Reads and writes one index folder's segments, BM25 arrays and manifest."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    # ------------------------------------------------------------------ writing

    def _write_part(self, kind: str, files: dict[str, bytes]) -> dict[str, Any]:
        """Write ``files`` as a new immutable folder ``kind/NAME`` (staged, then renamed)."""
        name = f"{uuid.uuid4().hex[:16]}"
        parent = self.path / kind
        parent.mkdir(parents=True, exist_ok=True)
        staging = parent / f".saving-{os.getpid()}-{name}"
        staging.mkdir()
        described = {}
        try:
            for filename, payload in files.items():
                atomic._write_file(staging / filename, payload)
                described[filename] = {"sha256": hashlib.sha256(payload).hexdigest(), "bytes": len(payload)}
            atomic._fsync_dir(staging)
            os.rename(staging, parent / name)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)  # a partial part is never named by a manifest
            raise
        atomic._fsync_dir(parent)
        return {"name": name, "files": described}

    def write_segment(self, batch: Batch, dimension: int, extra: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        """A new segment holding ``batch``, plus ``extra`` files (name ending in ``.npy``:
        an array; ``.json``: a JSON value)."""
        vectors = batch.vectors if batch.vectors is not None else np.empty((0, dimension), dtype=np.float32)
        files = {
            "vectors.npy": _npy(np.asarray(vectors, dtype=np.float32)),
            "chunks.json": _json({"ids": batch.ids, "texts": batch.texts, "metadatas": batch.metadatas}),
            "changes.json": _json({"removed_chunks": batch.removed_chunks, "record_set": batch.record_set,
                                   "record_removed": batch.record_removed}),
        }
        for name, value in (extra or {}).items():
            files[name] = _npy(value) if name.endswith(".npy") else _json(value)
        entry = self._write_part(_SEGMENTS, files)
        entry["rows"] = len(batch.ids)
        return entry

    def write_manifest(self, data: dict[str, Any]) -> dict[str, Any]:
        """Replace the manifest in one rename (after fsync), with its checksum; then drop
        the files no manifest names any more (see :meth:`_collect_garbage`). Returns the
        manifest as written (``data`` plus ``checksum``)."""
        base = self._base_manifest()
        data = with_checksum(data)
        temporary = self.path / f".{MANIFEST}.{os.getpid()}-{uuid.uuid4().hex[:8]}"
        atomic._write_file(temporary, json.dumps(data, indent=1, ensure_ascii=False).encode("utf-8"))
        os.replace(temporary, self.path / MANIFEST)
        atomic._fsync_dir(self.path)
        self._collect_garbage(data, base)
        return data

    def _base_manifest(self) -> tuple[Optional[set[str]], bool, str]:
        """The part names the manifest about to be replaced names (None: it cannot be
        read), whether it verified against its checksum, and why not (for the warning)."""
        try:
            data = read_manifest(self.path)
        except CorruptIndexError:
            if not (self.path / MANIFEST).exists():
                return set(), False, "there was no manifest"
            return None, False, "unreadable"
        names = {part["name"] for part in data.get("segments") or []}
        if isinstance(data.get("bm25"), dict):
            names.add(data["bm25"]["name"])
        return names, verified(data), "written before checksums"

    def _collect_garbage(self, data: dict[str, Any], base: tuple[Optional[set[str]], bool, str]) -> None:
        """Drop parts ``data`` does not name. The caller holds the index's write lock: no
        other save is running, so an unnamed part is one the replaced manifest named
        (replaced by a compaction: deleted) or a crashed save's leftover. A leftover is
        deleted only when the replaced manifest verified against its checksum; else (an
        old manifest without one, a damaged or missing one) it may be a segment that
        manifest lost, so it is moved to ``orphans/KIND-NAME`` and never deleted here.
        Staging folders (``.saving-*``) of crashed saves are always deleted."""
        keep = {part["name"] for part in data.get("segments") or []}
        if data.get("bm25"):
            keep.add(data["bm25"]["name"])
        named, trusted, why = base
        moved = 0
        for kind in (_SEGMENTS, _BM25):
            for child in (self.path / kind).glob("*") if (self.path / kind).is_dir() else ():
                if child.name in keep:
                    continue
                if child.name.startswith(".saving-") or trusted or (named is not None and child.name in named):
                    shutil.rmtree(child, ignore_errors=True)
                else:
                    orphans = self.path / _ORPHANS
                    orphans.mkdir(exist_ok=True)
                    os.replace(child, orphans / f"{kind}-{child.name}")
                    moved += 1
        if moved:
            # Said once, where a person sees it (the last-resort handler prints warnings).
            logger.warning("%s: %d part folder(s) that the replaced manifest (unverified: %s) did not name were moved "
                           "to %s instead of being deleted; check the index, then delete that folder",
                           self.path, moved, why,
                           self.path / _ORPHANS)
        for leftover in self.path.glob(f".{MANIFEST}.*"):
            leftover.unlink(missing_ok=True)

    # ------------------------------------------------------------------ reading

    def _read(self, kind: str, entry: dict[str, Any], filename: str) -> bytes:
        path = self.path / kind / entry["name"] / filename
        info = entry["files"].get(filename)
        if info is None:
            raise CorruptIndexError(f"{self.path / MANIFEST}: segment {entry['name']} names no file {filename}")
        try:
            payload = read_regular_file(path)
        except FileNotFoundError as exc:
            raise CorruptIndexError(f"{path} is missing: the index folder is incomplete") from exc
        if len(payload) != info["bytes"] or hashlib.sha256(payload).hexdigest() != info["sha256"]:
            raise CorruptIndexError(f"{path} does not match its manifest entry (truncated or altered)")
        return payload

    def read_array(self, kind: str, entry: dict[str, Any], filename: str) -> np.ndarray:
        return np.load(io.BytesIO(self._read(kind, entry, filename)), allow_pickle=False)

    def read_json(self, kind: str, entry: dict[str, Any], filename: str) -> Any:
        return parse_json(self._read(kind, entry, filename), self.path / kind / entry["name"] / filename, strict=False)

    def live_record(self, segments: Iterable[dict[str, Any]]) -> dict[str, Any]:
        """The record (source -> JSON row) after replaying ``segments``' changes only:
        what an update needs to decide what changed, without vectors or texts."""
        record: dict[str, Any] = {}
        for entry in segments:
            changes = self.read_json(_SEGMENTS, entry, "changes.json")
            for source in changes["record_removed"]:
                record.pop(source, None)
            record.update(changes["record_set"])
        return record

    def segment_file(self, entry: dict[str, Any], filename: str) -> Any:
        """One file of a segment, checked against the manifest: an array or a JSON value."""
        if filename.endswith(".npy"):
            return self.read_array(_SEGMENTS, entry, filename)
        return self.read_json(_SEGMENTS, entry, filename)

    def replay(self, segments: Sequence[dict[str, Any]]) -> "Replay":
        """Read every segment's chunks and changes (not its vectors) and work out which rows
        are live after the last one: a later add or removal of a chunk id wins."""
        where: dict[str, tuple[int, int]] = {}
        record: dict[str, Any] = {}
        chunks = []
        for number, entry in enumerate(segments):
            changes = self.read_json(_SEGMENTS, entry, "changes.json")
            part = self.read_json(_SEGMENTS, entry, "chunks.json")
            if len(part["ids"]) != entry["rows"]:
                raise CorruptIndexError(f"{self.path}: segment {entry['name']} lists {len(part['ids'])} chunks, "
                                        f"the manifest {entry['rows']}")
            for chunk_id in changes["removed_chunks"]:
                where.pop(chunk_id, None)
            for row, chunk_id in enumerate(part["ids"]):
                where[chunk_id] = (number, row)
            for source in changes["record_removed"]:
                record.pop(source, None)
            record.update(changes["record_set"])
            chunks.append(part)
        live = [np.zeros(len(part["ids"]), dtype=bool) for part in chunks]
        for number, row in where.values():
            live[number][row] = True
        return Replay(chunks, live, record)


@dataclass
class Replay:
    """Segments read back: each one's ``chunks`` ({ids, texts, metadatas}), which of its
    rows are ``live`` (bool per row), and the ``record`` after the last one."""

    chunks: list[dict[str, Any]]
    live: list[np.ndarray]
    record: dict[str, Any]
