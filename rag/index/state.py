"""What an index folder holds, in memory: a vector store, a BM25 index and the record of
what was indexed, read and written as one atomic save (so the three never disagree).

Folder layout (``store_class`` "RagIndex" in the manifest): the store's sections prefixed
``store_``, the BM25 arrays prefixed ``bm25_``, ``bm25_ids`` (chunk id of each BM25 row)
and ``record`` (per source: its root, content hash, chunk ids and title). The manifest's
``config`` holds :meth:`IndexConfig.to_json` plus the store's and BM25's own settings.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from rag.bm25 import BM25Retriever
from rag.bm25.analysis import Analyzer
from rag.bm25.index import BM25Index
from rag.embeddings.base import model_id_of
from rag.errors import CorruptIndexError, RagError
from rag.index.config import IndexConfig
from rag.index.registry import make_embeddings, store_backend
from rag.persistence import IndexFolder, Manifest, read_index_folder, write_index_folder

__all__ = ["KIND", "SourceRecord", "IndexState", "write_lock", "saved_version", "default_index_path"]

KIND = "RagIndex"
#: BM25 retrieves this many by default when used as a plain retriever (searches pass k).
_BM25_K = 20


@dataclass
class SourceRecord:
    """What the index holds for one source (a file, a URL, or a BEIR document)."""

    root: str
    content_hash: str
    chunk_ids: list[str]
    title: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"root": self.root, "hash": self.content_hash, "chunks": self.chunk_ids, "title": self.title}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "SourceRecord":
        return cls(data["root"], data["hash"], list(data["chunks"]), data.get("title", ""))


def _version(manifest_json: dict[str, Any]) -> str:
    # Every file's sha256 plus the save time: equal versions mean the same saved index.
    saved = {"sections": manifest_json.get("sections"), "saved_at": (manifest_json.get("config") or {}).get("saved_at")}
    return hashlib.sha256(json.dumps(saved, sort_keys=True).encode()).hexdigest()


def saved_version(path: Path) -> Optional[str]:
    """The version of the index saved at ``path`` now; None when there is none (or it
    cannot be read: loading it will say why)."""
    try:
        return _version(json.loads((Path(path) / "manifest.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, AttributeError):
        return None


@dataclass
class IndexState:
    """One consistent version of an index: searches read it, an update changes it under
    the index's write lock. ``version`` identifies the save it was read from or written
    to (None: never saved)."""

    config: IndexConfig
    embeddings: Any
    store: Any
    record: dict[str, SourceRecord] = field(default_factory=dict)
    bm25: Optional[BM25Retriever] = None
    version: Optional[str] = None
    saved_at: Optional[str] = None
    _bm25_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def empty(cls, config: IndexConfig, embeddings: Any = None) -> "IndexState":
        embeddings = embeddings if embeddings is not None else make_embeddings(config.embeddings)
        return cls(config, embeddings, store_backend(config.store).create(embeddings))

    @classmethod
    def load(cls, path: Path, embeddings: Any = None) -> "IndexState":
        """Read the index at ``path`` (checks every file, and that ``embeddings``, when
        given, is the model the index was built with)."""
        folder = read_index_folder(path, store_class=KIND)
        data = folder.manifest.config
        if not isinstance(data.get("embedding_spec"), str):
            raise CorruptIndexError(f"{folder.path}: the manifest does not say which embeddings built it")
        try:
            config = IndexConfig.from_json(data)
        except (RagError, KeyError, TypeError, ValueError) as exc:
            raise CorruptIndexError(f"{folder.path}: unreadable index settings: {exc}") from exc
        embeddings = embeddings if embeddings is not None else make_embeddings(config.embeddings)
        folder.check_embedding(model_id_of(embeddings), getattr(embeddings, "dimension", None))
        store = store_backend(config.store).load(folder, embeddings, data.get("store") or {}, "store_")
        try:
            record = {source: SourceRecord.from_json(row) for source, row in folder.json("record").items()}
        except (AttributeError, KeyError, TypeError) as exc:
            raise CorruptIndexError(f"{folder.path}: malformed record of indexed sources: {exc}") from exc
        state = cls(config, embeddings, store, record, saved_at=data.get("saved_at"))
        state.bm25 = _load_bm25(folder, data.get("bm25"), store)
        state.version = _version(folder.manifest.to_json())
        return state

    def lexical(self) -> Optional[BM25Retriever]:
        """The BM25 retriever over every chunk, built on first use after a change (guarded:
        concurrent searches build it once); None when the index is empty."""
        if self.bm25 is None and len(self.store):
            with self._bm25_lock:
                if self.bm25 is None:
                    chunk_ids = [cid for rec in self.record.values() for cid in rec.chunk_ids]
                    self.bm25 = BM25Retriever.from_documents(self.store.get_by_ids(chunk_ids), k=_BM25_K)
        return self.bm25

    def save(self, path: Path) -> None:
        """Write store, BM25 and record in one atomic save (the previous index survives a crash)."""
        store_config, sections = self.store.to_sections(prefix="store_")
        bm25_config = None
        lexical = self.lexical()
        if lexical is not None:
            sections.update(lexical.index.sections("bm25"))
            sections["bm25_ids"] = [d.id for d in lexical.docs]
            bm25_config = {"index": lexical.index.config(), "analyzer": lexical.analyzer.to_json(), "k": lexical.k}
        sections["record"] = {source: rec.to_json() for source, rec in sorted(self.record.items())}
        self.saved_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        manifest = Manifest(
            store_class=KIND,
            model_id=model_id_of(self.embeddings),
            dimension=self.store.dimension or getattr(self.embeddings, "dimension", None),
            distance_strategy=store_config.get("distance_strategy", "COSINE"),
            config={**self.config.to_json(), "store": store_config, "bm25": bm25_config, "saved_at": self.saved_at},
        )
        write_index_folder(path, manifest, sections)
        self.version = saved_version(path)  # callers hold the write lock: this is our save

    @property
    def chunk_count(self) -> int:
        return len(self.store)


def _load_bm25(folder: IndexFolder, config: Optional[dict[str, Any]], store: Any) -> Optional[BM25Retriever]:
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
