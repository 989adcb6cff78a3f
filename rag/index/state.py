"""What an index folder holds, in memory: a vector store, BM25 postings and the record of
what was indexed, committed together (so the three never disagree).

On disk (see :mod:`rag.index.segments`): append-only segments of chunks, vectors and
postings, and one manifest replaced atomically at each checkpoint. The store and the
postings are read from the segments on first use, and an update that starts without them
(a new index, or one opened for updating) never reads them unless a change needs them: it
streams each checkpoint to disk, so building an index holds one batch, not the index.
Folders of format version 1 (one snapshot of store sections, ``bm25_*`` and ``record``)
still open; their first commit rewrites them as segments.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional

import numpy as np

from rag.documents import Document
from rag.embeddings.base import Embeddings, model_id_of
from rag.errors import CorruptIndexError, RagError
from rag.index.boilerplate import profile_from_text, profile_text
from rag.index.chunk_ids import stored_id
from rag.index.config import IndexConfig
from rag.index.lexical import LEXICAL_FILES, LexicalSettings, SegmentedBM25, postings_files, postings_from_files
from rag.index.registry import make_embeddings, store_backend, warm_up
from rag.index.segments import FORMAT_VERSION, Batch, Replay, SegmentFolder, manifest_version, read_manifest
from rag.persistence import FORMAT, read_index_folder
from rag.persistence.format import check_model

if TYPE_CHECKING:
    from stores.base import VectorStore

__all__ = ["KIND", "SourceRecord", "IndexState", "write_lock", "saved_version", "default_index_path"]

KIND = "RagIndex"
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
    #: For a folder's HTML/Markdown page: its documents' raw hash and their block
    #: profiles (rag.index.boilerplate.page_profile), so finding the folder's boilerplate
    #: needs no read of an unchanged page. None (older records): read it once to learn them.
    plan: Optional[tuple[str, list[list[Optional[str]]]]] = None

    @property
    def last_read(self) -> tuple[Optional[tuple[int, int, int]], Optional[float]]:
        """``(stat, read_at)``: what decides whether the file must be read again."""
        return self.stat, self.read_at

    def to_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {"root": self.root, "hash": self.content_hash, "chunks": self.chunk_ids,
                               "title": self.title}
        if self.stat is not None:
            row.update(stat=list(self.stat), read_at=self.read_at)
        if self.plan is not None:
            row["plan"] = {"raw": self.plan[0], "profiles": [profile_text(profile) for profile in self.plan[1]]}
        return row

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "SourceRecord":
        stat, plan = data.get("stat"), data.get("plan")
        return cls(data["root"], data["hash"], list(data["chunks"]), data.get("title", ""),
                   tuple(stat) if stat else None, data.get("read_at"),
                   (plan["raw"], [profile_from_text(text) for text in plan["profiles"]]) if plan else None)


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
    embeddings: Embeddings
    _store: Optional[VectorStore]  # None until first needed (see ``store``)
    record: dict[str, SourceRecord] = field(default_factory=dict)
    version: Optional[str] = None
    saved_at: Optional[str] = None
    #: The folder the segments are in (None: not saved yet).
    path: Optional[Path] = None
    #: The segments on disk (None: a format-1 snapshot, so the next commit writes all).
    segments: Optional[list[dict[str, Any]]] = field(default_factory=list)
    lexical_settings: LexicalSettings = field(default_factory=LexicalSettings.default)
    _dimension: Optional[int] = None
    _lexical: Optional[SegmentedBM25] = field(default=None, repr=False)
    _load_lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    @property
    def loaded(self) -> bool:
        """Whether the store (and the BM25 postings) are in memory."""
        return self._store is not None

    @property
    def store(self) -> VectorStore:
        """The vector store, read from the current segments on first use."""
        if self._store is None:
            with self._load_lock:
                if self._store is None:
                    self._store, self._lexical = self._read_segments()
        return self._store

    def lexical(self) -> SegmentedBM25:
        """BM25 over every live chunk (read with the store; for a format-1 snapshot,
        analysed from the stored chunks on first use)."""
        store = self.store
        if self._lexical is None:
            with self._load_lock:
                if self._lexical is None:
                    ids = [chunk_id for record in self.record.values() for chunk_id in record.chunk_ids]
                    documents = store.get_by_ids(ids)
                    lexical = SegmentedBM25(self.lexical_settings, store.get_by_ids)
                    lexical.append([stored_id(d) for d in documents],
                                   self.lexical_settings.postings([d.page_content for d in documents]))
                    self._lexical = lexical
        return self._lexical

    @property
    def dimension(self) -> Optional[int]:
        """The vectors' dimension: the store's, else the saved one, else the model's (None
        when nothing says yet)."""
        if self._store is not None and self._store.dimension:
            return int(self._store.dimension)
        return self._dimension or getattr(self.embeddings, "dimension", None)

    @property
    def store_name(self) -> str:
        """The vector store's class name (without reading the store)."""
        if self._store is not None:
            return type(self._store).__name__
        return store_backend(self.config.store).store_class.rpartition(":")[2]

    @classmethod
    def empty(cls, config: IndexConfig, embeddings: Optional[Embeddings] = None,
              path: Optional[Path] = None) -> "IndexState":
        embeddings = embeddings if embeddings is not None else make_embeddings(config.embeddings)
        # Created and dropped: a backend that cannot hold a folder index (or whose extra is
        # missing) is refused now, not at the first commit; the store itself is read from
        # the segments when first needed.
        store_backend(config.store).create(embeddings)
        return cls(config, embeddings, None, path=Path(path) if path is not None else None)

    @classmethod
    def load(cls, path: Path, embeddings: Optional[Embeddings] = None, *, lazy: bool = False,
             warm: bool = False) -> "IndexState":
        """Read the index at ``path`` (checks every file, and that ``embeddings``, when
        given, is the model the index was built with). ``lazy``: read the record now and
        the vectors, texts and postings on first use; only for a caller that holds the
        write lock by then (no other commit can replace the files in between). ``warm``:
        load a local model in a worker thread while the files are read (see
        :func:`~rag.index.registry.warm_up`)."""
        for _attempt in range(5):
            data = read_manifest(Path(path))
            if data.get("format_version") != FORMAT_VERSION:
                return cls._load_snapshot(Path(path), embeddings)
            try:
                return cls._load_segments(Path(path), data, embeddings, lazy, warm)
            except CorruptIndexError:
                # A commit may have replaced the manifest (and dropped files it no longer
                # names) while this one was read: read again unless nothing changed.
                if saved_version(Path(path)) == manifest_version(data):
                    raise
        raise CorruptIndexError(f"{path} kept changing while it was read (commits in progress); try again")

    @classmethod
    def _settings(cls, path: Path, data: dict[str, Any], embeddings: Optional[Embeddings]
                  ) -> tuple[IndexConfig, Embeddings]:
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
    def _load_segments(cls, path: Path, data: dict[str, Any], embeddings: Optional[Embeddings], lazy: bool = False,
                       warm: bool = False) -> "IndexState":
        config, embeddings = cls._settings(path, data, embeddings)
        if warm and not lazy:
            warm_up(embeddings, config.embeddings)
            warm = False  # once, should the read start again
        embedding = data.get("embedding") or {}
        check_model(path, embedding.get("model_id"), embedding.get("dimension"),
                    model_id_of(embeddings), getattr(embeddings, "dimension", None))
        try:
            settings = LexicalSettings.from_json(data.get("lexical") or _older_lexical(data.get("bm25")))
            segments = list(data.get("segments") or [])
            folder = SegmentFolder(path)
            # Lazy: the changes files only. Else one replay gives the record and the rows
            # the store is read from (each segment's files read once).
            replay = None if lazy else folder.replay(segments)
            rows = folder.live_record(segments) if replay is None else replay.record
            record = {source: SourceRecord.from_json(row) for source, row in rows.items()}
        except (KeyError, TypeError, ValueError, RagError) as exc:
            raise CorruptIndexError(f"{path}: a segment or the manifest is malformed: {exc}") from exc
        state = cls(config, embeddings, None, record, saved_at=(data.get("config") or {}).get("saved_at"),
                    path=Path(path), segments=segments, lexical_settings=settings,
                    _dimension=embedding.get("dimension"))
        state.version = manifest_version(data)
        if replay is not None:  # read now: the files may be replaced by a later commit
            state._store, state._lexical = state._read_segments(replay)
        return state

    def _read_segments(self, replay: Optional[Replay] = None) -> tuple[VectorStore, SegmentedBM25]:
        """A store and BM25 postings holding the live rows of the current segments
        (``replay``: those segments already replayed), read one segment at a time (no
        index-sized copy of the vectors on the way)."""
        store = store_backend(self.config.store).create(self.embeddings)
        lexical = SegmentedBM25(self.lexical_settings, store.get_by_ids)
        if not self.segments:
            return store, lexical
        assert self.path is not None  # segments are read from the folder that holds them
        folder = SegmentFolder(self.path)
        try:
            replay = replay if replay is not None else folder.replay(self.segments)
            for number, entry in enumerate(self.segments):
                chunks, live = replay.chunks[number], replay.live[number]
                replay.chunks[number] = {}  # the store keeps what it needs; let the rest go
                if all(name in entry["files"] for name in LEXICAL_FILES):
                    postings = postings_from_files(lambda name: folder.segment_file(entry, name), entry["rows"],
                                                   f"{self.path}: segment {entry['name']}")
                else:  # written before segments held postings
                    postings = self.lexical_settings.postings(chunks["texts"])
                lexical.append(chunks["ids"], postings, live, settle=False)
                rows = np.flatnonzero(live).tolist()
                if not rows:
                    continue
                vectors = folder.segment_file(entry, "vectors.npy")
                if vectors.ndim != 2 or vectors.shape[0] != entry["rows"]:
                    raise CorruptIndexError(f"{self.path}: segment {entry['name']} has vectors of shape "
                                            f"{vectors.shape} for {entry['rows']} chunks")
                ids = [chunks["ids"][row] for row in rows]
                store.add_vectors(vectors[rows], [Document(chunks["texts"][row], chunks["metadatas"][row], ids[n])
                                                  for n, row in enumerate(rows)], ids=ids)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise CorruptIndexError(f"{self.path}: a segment is malformed: {exc}") from exc
        lexical.consolidate()
        return store, lexical

    @classmethod
    def _load_snapshot(cls, path: Path, embeddings: Optional[Embeddings]) -> "IndexState":
        """A format-1 folder: one snapshot written by ``write_index_folder``."""
        folder = read_index_folder(path, store_class=KIND)
        data = folder.manifest.config
        config, embeddings = cls._settings(path, {"store_class": KIND, "config": data}, embeddings)
        folder.check_embedding(model_id_of(embeddings), getattr(embeddings, "dimension", None))
        store = store_backend(config.store).load(folder, embeddings, data.get("store") or {}, "store_")
        try:
            record = {source: SourceRecord.from_json(row) for source, row in folder.json("record").items()}
            settings = LexicalSettings.from_json(_older_lexical(data.get("bm25")))
        except (AttributeError, KeyError, TypeError, RagError) as exc:
            raise CorruptIndexError(f"{folder.path}: malformed record of indexed sources: {exc}") from exc
        state = cls(config, embeddings, store, record, saved_at=data.get("saved_at"), path=Path(path),
                    segments=None, lexical_settings=settings)
        state.version = saved_version(path)
        return state

    def commit(self, path: Path, batch: Batch, *, final: bool) -> None:
        """Make ``batch`` (already applied to the record, and to the store if it is in
        memory) durable: one new segment with its postings, and an atomic manifest swap.
        A format-1 snapshot's first commit writes everything live instead; a ``final``
        commit compacts the segments when replaced rows outnumber live ones. Callers hold
        the index's write lock."""
        folder = SegmentFolder(path)
        path.mkdir(parents=True, exist_ok=True)
        self.path = Path(path)
        if batch.vectors is not None and batch.vectors.shape[0]:
            self._dimension = int(batch.vectors.shape[1])
        if self.segments is None:
            self.segments = [self._write_segment(folder, self._everything(), fresh=True)]
        else:
            if batch:
                self.segments = [*self.segments, self._write_segment(folder, batch, fresh=False)]
            if final and self.compaction_due():
                # Everything live, as one segment (reads the store if it is not in memory:
                # the segments just written hold this update's chunks).
                self.segments = [self._write_segment(folder, self._everything(), fresh=True)]
        self.saved_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        data = {
            "format": FORMAT, "format_version": FORMAT_VERSION, "store_class": KIND,
            "embedding": {"model_id": model_id_of(self.embeddings), "dimension": self.dimension or None},
            "config": {**self.config.to_json(), "saved_at": self.saved_at},
            "segments": self.segments, "lexical": self.lexical_settings.to_json(), "bm25": None,
        }
        data = folder.write_manifest(data)
        self._drop_snapshot_files(path)
        self.version = manifest_version(data)

    def _write_segment(self, folder: SegmentFolder, batch: Batch, *, fresh: bool) -> dict[str, Any]:
        """Write ``batch`` with its postings; keep the in-memory postings in step (``fresh``:
        the batch is everything live, replacing every earlier segment)."""
        postings = self.lexical_settings.postings(batch.texts)
        entry = folder.write_segment(batch, self.dimension or 0, postings_files(postings))
        if fresh and self._store is not None:
            self._lexical = SegmentedBM25(self.lexical_settings, self._store.get_by_ids)
        if self._lexical is not None:
            self._lexical.remove(batch.removed_chunks)
            self._lexical.append(batch.ids, postings)
        return entry

    def compaction_due(self, new_rows: int = 0) -> bool:
        """True when the segments hold more than twice the live chunks (plus 1000 rows):
        replaced and deleted chunks then cost more to keep than to rewrite."""
        stored_rows = sum(part["rows"] for part in self.segments or []) + new_rows
        return self.segments is not None and stored_rows > _COMPACT_RATIO * self.chunk_count + 1000

    def _everything(self) -> Batch:
        ids = [chunk_id for record in self.record.values() for chunk_id in record.chunk_ids]
        documents = self.store.get_by_ids(ids)
        stored = [stored_id(d) for d in documents]
        return Batch(ids=stored, texts=[d.page_content for d in documents],
                     metadatas=[d.metadata for d in documents],
                     vectors=self.store.get_vectors_by_ids(stored),
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


def _older_lexical(bm25: Optional[dict[str, Any]]) -> Optional[dict[str, Any]]:
    """The BM25 settings of an index written before segments held postings (its ``bm25``
    part's configuration), in the manifest's ``lexical`` shape."""
    if not bm25:
        return None
    config = bm25.get("config", bm25)
    return {"analyzer": config["analyzer"], "params": (config.get("index") or {}).get("params")}


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
    # Resolved: "." or a symlink naming the folder must take the same lock as its real path.
    path = Path(path).resolve()
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
