"""What an index folder holds, in memory: a vector store, a BM25 index and the record of
what was indexed, committed together (so the three never disagree).

On disk (see :mod:`rag.index.segments`): append-only segments of chunks and vectors, the
BM25 arrays, and one manifest replaced atomically at each checkpoint. Folders of format
version 1 (one snapshot of store sections, ``bm25_*`` and ``record``) still open; their
first commit rewrites them as segments.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import numpy as np

from rag.bm25 import BM25Retriever
from rag.bm25.analysis import Analyzer
from rag.bm25.index import BM25Index
from rag.documents import Document
from rag.embeddings.base import model_id_of
from rag.errors import CorruptIndexError, RagError
from rag.index.config import IndexConfig
from rag.index.registry import make_embeddings, store_backend
from rag.index.segments import FORMAT_VERSION, Batch, SegmentFolder, manifest_version, read_manifest
from rag.persistence import FORMAT, read_index_folder
from rag.persistence.format import check_model

__all__ = ["KIND", "SourceRecord", "IndexState", "write_lock", "saved_version", "default_index_path"]

KIND = "RagIndex"
#: BM25 retrieves this many by default when used as a plain retriever (searches pass k).
_BM25_K = 20
#: Compact when the segments hold more than this many rows per live chunk.
_COMPACT_RATIO = 2.0


@dataclass
class SourceRecord:
    """What the index holds for one source (a file, a URL, or a BEIR document)."""

    root: str
    content_hash: str
    chunk_ids: list[str]
    title: str = ""
    #: For a file: (size in bytes, mtime in ns, inode) when it was read, and the wall-clock
    #: time (s) the update that read it started; lets a later update skip reading it.
    stat: Optional[tuple[int, int, int]] = None
    read_at: Optional[float] = None

    def to_json(self) -> dict[str, Any]:
        row = {"root": self.root, "hash": self.content_hash, "chunks": self.chunk_ids, "title": self.title}
        if self.stat is not None:
            row.update(stat=list(self.stat), read_at=self.read_at)
        return row

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "SourceRecord":
        stat = data.get("stat")
        return cls(data["root"], data["hash"], list(data["chunks"]), data.get("title", ""),
                   tuple(stat) if stat else None, data.get("read_at"))


def saved_version(path: Path) -> Optional[str]:
    """The version of the index saved at ``path`` now; None when there is none (or it
    cannot be read: loading it will say why)."""
    try:
        return manifest_version(read_manifest(Path(path)))
    except (OSError, RagError):
        return None


@dataclass
class IndexState:
    """One consistent version of an index: searches read it, an update changes it under
    the index's write lock. ``version`` identifies the save it was read from or written
    to (None: never saved)."""

    config: IndexConfig
    embeddings: Any
    _store: Any  # None until first needed when loaded lazily (see ``store``)
    record: dict[str, SourceRecord] = field(default_factory=dict)
    bm25: Optional[BM25Retriever] = None
    version: Optional[str] = None
    saved_at: Optional[str] = None
    #: The segments on disk (None: nothing in format 2 yet, so the next commit writes all).
    segments: Optional[list[dict[str, Any]]] = None
    #: Whether the BM25 arrays on disk match the chunks (False after a commit of changes
    #: until the final commit of that update writes them).
    bm25_on_disk: bool = False
    _bm25_entry: Optional[dict[str, Any]] = field(default=None, repr=False)
    _bm25_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _loader: Optional[Callable[[], tuple[Any, Optional[BM25Retriever]]]] = field(default=None, repr=False)
    _load_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def store(self) -> Any:
        """The vector store, read from the segments on first use when the state was loaded
        lazily (an update that finds nothing changed never reads vectors or texts)."""
        if self._store is None:
            with self._load_lock:
                if self._store is None and self._loader is not None:
                    self._store, bm25 = self._loader()
                    if self.bm25 is None:
                        self.bm25 = bm25
                    self._loader = None
        return self._store

    @classmethod
    def empty(cls, config: IndexConfig, embeddings: Any = None) -> "IndexState":
        embeddings = embeddings if embeddings is not None else make_embeddings(config.embeddings)
        return cls(config, embeddings, store_backend(config.store).create(embeddings))

    @classmethod
    def load(cls, path: Path, embeddings: Any = None, *, lazy: bool = False) -> "IndexState":
        """Read the index at ``path`` (checks every file, and that ``embeddings``, when
        given, is the model the index was built with). ``lazy``: read the record now and
        the vectors, texts and BM25 on first use; only for a caller that holds the write
        lock by then (no other commit can replace the files in between)."""
        for _attempt in range(5):
            data = read_manifest(Path(path))
            if data.get("format_version") != FORMAT_VERSION:
                return cls._load_snapshot(Path(path), embeddings)
            try:
                return cls._load_segments(Path(path), data, embeddings, lazy)
            except CorruptIndexError:
                # A commit may have replaced the manifest (and dropped files it no longer
                # names) while this one was read: read again unless nothing changed.
                if saved_version(Path(path)) == manifest_version(data):
                    raise
        raise CorruptIndexError(f"{path} kept changing while it was read (commits in progress); try again")

    @classmethod
    def _settings(cls, path: Path, data: dict[str, Any], embeddings: Any) -> tuple[IndexConfig, Any]:
        if data.get("store_class") != KIND:
            raise CorruptIndexError(f"{path} holds a {data.get('store_class')} index, not a {KIND}")
        config_data = data.get("config") or {}
        if not isinstance(config_data.get("embedding_spec"), str):
            raise CorruptIndexError(f"{path}: the manifest does not say which embeddings built it")
        try:
            config = IndexConfig.from_json(config_data)
        except (RagError, KeyError, TypeError, ValueError) as exc:
            raise CorruptIndexError(f"{path}: unreadable index settings: {exc}") from exc
        return config, embeddings if embeddings is not None else make_embeddings(config.embeddings)

    @classmethod
    def _load_segments(cls, path: Path, data: dict[str, Any], embeddings: Any, lazy: bool = False) -> "IndexState":
        config, embeddings = cls._settings(path, data, embeddings)
        embedding = data.get("embedding") or {}
        check_model(path, embedding.get("model_id"), embedding.get("dimension"),
                                model_id_of(embeddings), getattr(embeddings, "dimension", None))
        folder = SegmentFolder(path)
        segments = list(data.get("segments") or [])

        def read_store() -> tuple[Any, Optional[BM25Retriever]]:
            try:
                vectors, chunks, _ = folder.live_rows(segments)
            except (KeyError, TypeError, ValueError) as exc:
                raise CorruptIndexError(f"{path}: a segment is malformed: {exc}") from exc
            store = store_backend(config.store).create(embeddings)
            if chunks["ids"]:
                documents = [Document(text, metadata, chunk_id)
                             for chunk_id, text, metadata in zip(chunks["ids"], chunks["texts"], chunks["metadatas"])]
                store.add_vectors(vectors, documents, ids=chunks["ids"])
            entry = data.get("bm25")
            return store, (_load_bm25(_Bm25Part(folder, entry), entry["config"], store) if entry else None)

        try:
            record = {source: SourceRecord.from_json(row) for source, row in folder.live_record(segments).items()}
        except (KeyError, TypeError, ValueError) as exc:
            raise CorruptIndexError(f"{path}: a segment is malformed: {exc}") from exc
        state = cls(config, embeddings, None, record, saved_at=(data.get("config") or {}).get("saved_at"),
                    segments=segments)
        state._loader = read_store
        state.bm25_on_disk, state._bm25_entry = data.get("bm25") is not None, data.get("bm25")
        state.version = manifest_version(data)
        if not lazy:
            state.store  # noqa: B018 -- read now: the files may be replaced by a later commit
        return state

    @classmethod
    def _load_snapshot(cls, path: Path, embeddings: Any) -> "IndexState":
        """A format-1 folder: one snapshot written by ``write_index_folder``."""
        folder = read_index_folder(path, store_class=KIND)
        data = folder.manifest.config
        config, embeddings = cls._settings(path, {"store_class": KIND, "config": data}, embeddings)
        folder.check_embedding(model_id_of(embeddings), getattr(embeddings, "dimension", None))
        store = store_backend(config.store).load(folder, embeddings, data.get("store") or {}, "store_")
        try:
            record = {source: SourceRecord.from_json(row) for source, row in folder.json("record").items()}
        except (AttributeError, KeyError, TypeError) as exc:
            raise CorruptIndexError(f"{folder.path}: malformed record of indexed sources: {exc}") from exc
        state = cls(config, embeddings, store, record, saved_at=data.get("saved_at"))
        state.bm25 = _load_bm25(folder, data.get("bm25"), store)
        state.version = saved_version(path)
        return state

    def lexical(self) -> Optional[BM25Retriever]:
        """The BM25 retriever over every chunk, built on first use after a change (guarded:
        concurrent searches build it once); None when the index is empty."""
        if self.bm25 is None and self.chunk_count:
            store = self.store  # a lazy first load brings the saved BM25 with it
            with self._bm25_lock:
                if self.bm25 is None:
                    chunk_ids = [cid for rec in self.record.values() for cid in rec.chunk_ids]
                    self.bm25 = BM25Retriever.from_documents(store.get_by_ids(chunk_ids), k=_BM25_K)
        return self.bm25

    def commit(self, path: Path, batch: Batch, *, final: bool) -> None:
        """Make ``batch`` (already applied to this state) durable: one new segment and an
        atomic manifest swap. The first commit in format 2 writes everything live instead;
        a ``final`` commit also writes the BM25 arrays, and compacts the segments when
        replaced rows outnumber live ones. Callers hold the index's write lock."""
        folder = SegmentFolder(path)
        path.mkdir(parents=True, exist_ok=True)
        dimension = self.store.dimension or getattr(self.embeddings, "dimension", None) or 0
        if self.segments is None or (final and self.compaction_due(len(batch.ids))):
            self.segments = [folder.write_segment(self._everything(), dimension)]
        elif batch:
            self.segments = [*self.segments, folder.write_segment(batch, dimension)]
        if batch.ids or batch.removed_chunks:
            self.bm25_on_disk = False
        bm25 = self._bm25_entry if self.bm25_on_disk else None
        lexical = self.lexical() if final and not self.bm25_on_disk else None
        if lexical is not None:
            sections = {**lexical.index.sections("bm25"), "bm25_ids": [d.id for d in lexical.docs]}
            config = {"index": lexical.index.config(), "analyzer": lexical.analyzer.to_json(), "k": lexical.k}
            bm25 = folder.write_bm25(sections, config)
            self.bm25_on_disk = True
        self.saved_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        data = {
            "format": FORMAT, "format_version": FORMAT_VERSION, "store_class": KIND,
            "embedding": {"model_id": model_id_of(self.embeddings), "dimension": dimension or None},
            "config": {**self.config.to_json(), "saved_at": self.saved_at},
            "segments": self.segments, "bm25": bm25,
        }
        folder.write_manifest(data)
        self._bm25_entry = bm25
        self._drop_snapshot_files(path)
        self.version = manifest_version(data)

    def compaction_due(self, new_rows: int = 0) -> bool:
        """True when the segments hold more than twice the live chunks (plus 1000 rows):
        replaced and deleted chunks then cost more to keep than to rewrite."""
        stored_rows = sum(part["rows"] for part in self.segments or []) + new_rows
        return self.segments is not None and stored_rows > _COMPACT_RATIO * self.chunk_count + 1000

    def _everything(self) -> Batch:
        ids = [chunk_id for record in self.record.values() for chunk_id in record.chunk_ids]
        documents = self.store.get_by_ids(ids)
        return Batch(ids=[d.id for d in documents], texts=[d.page_content for d in documents],
                     metadatas=[d.metadata for d in documents],
                     vectors=self.store.get_vectors_by_ids([d.id for d in documents]),
                     record_set={source: rec.to_json() for source, rec in self.record.items()})

    @staticmethod
    def _drop_snapshot_files(path: Path) -> None:
        # A format-1 folder's section files, no longer named by the manifest.
        for leftover in path.iterdir():
            if leftover.is_file() and leftover.suffix in (".npy", ".json", ".bin") and leftover.name != "manifest.json":
                leftover.unlink(missing_ok=True)

    @property
    def chunk_count(self) -> int:
        """Chunks in the index (from the record: does not load a lazy store)."""
        return sum(len(record.chunk_ids) for record in self.record.values())


class _Bm25Part:
    """The reading side of an IndexFolder (``path``, ``json``, ``array``) over a BM25 part."""

    def __init__(self, folder: SegmentFolder, entry: dict[str, Any]) -> None:
        self.path, self._folder, self._entry = folder.path, folder, entry

    def json(self, name: str) -> Any:
        return self._folder.read_json("bm25", self._entry, f"{name}.json")

    def array(self, name: str) -> np.ndarray:
        return self._folder.read_array("bm25", self._entry, f"{name}.npy")


def _load_bm25(folder: Any, config: Optional[dict[str, Any]], store: Any) -> Optional[BM25Retriever]:
    if not config:
        return None
    try:
        index = BM25Index.from_sections(folder, config["index"], prefix="bm25")
        analyzer = Analyzer.from_json(config["analyzer"])
        ids = folder.json("bm25_ids")
        docs = store.get_by_ids(ids)
        if len(docs) != len(ids):
            raise CorruptIndexError(f"{folder.path}: the BM25 index names chunks the store does not hold")
        return BM25Retriever(index, docs, k=int(config.get("k", _BM25_K)), analyzer=analyzer)
    except (KeyError, TypeError) as exc:
        raise CorruptIndexError(f"{folder.path}: malformed BM25 section: {exc}") from exc


@contextmanager
def write_lock(path: Path, on_wait: Optional[Callable[[], None]] = None) -> Iterator[None]:
    """Hold the index's inter-process write lock (a ``.NAME.lock`` file beside the folder)
    for a whole load-change-save cycle, so two updates cannot overwrite each other's work.
    A second writer waits (``on_wait`` is called first); readers never lock (saves are
    atomic). No-op without fcntl (not POSIX)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / f".{path.name}.lock", "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def default_index_path() -> Path:
    """``$RAG_INDEX`` or ``./.rag``."""
    return Path(os.environ.get("RAG_INDEX", ".rag"))
