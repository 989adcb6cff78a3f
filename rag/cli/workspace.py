"""The command line's index: a vector store, a BM25 index and the record of what was
indexed, in one folder written by one atomic save (so the three can never disagree).

Folder layout (the foundation's index format, ``store_class`` "RagIndex"): the store's
sections prefixed ``store_``, the BM25 arrays prefixed ``bm25_``, ``bm25_ids`` (chunk id
of each BM25 row) and ``record`` (per source: its root, content hash and chunk ids).
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional

from rag.bm25 import BM25Retriever
from rag.bm25.analysis import Analyzer
from rag.bm25.index import BM25Index
from rag.documents import Document
from rag.embeddings.base import model_id_of
from rag.errors import CorruptIndexError, EmbeddingMismatchError, ValidationError
from rag.persistence import IndexFolder, Manifest, index_folder_exists, read_index_folder, write_index_folder
from stores import FAISS, InMemoryVectorStore, VectorStore

from rag.cli.embedding_spec import make_embeddings

__all__ = ["Workspace", "SourceRecord", "STORE_KINDS", "writing", "default_index_path"]

KIND = "RagIndex"
STORE_KINDS = {"faiss": FAISS, "memory": InMemoryVectorStore}
_STORE_BY_CLASS = {cls.__name__: cls for cls in STORE_KINDS.values()}


@dataclass
class SourceRecord:
    """What the index holds for one source (a file or a URL)."""

    root: str
    content_hash: str
    chunk_ids: list[str]
    title: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"root": self.root, "hash": self.content_hash, "chunks": self.chunk_ids, "title": self.title}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "SourceRecord":
        return cls(data["root"], data["hash"], list(data["chunks"]), data.get("title", ""))


@dataclass
class Workspace:
    """An index folder in memory: ``store``, ``record`` and the settings it was built with."""

    path: Path
    embeddings: Any
    embedding_spec: str
    store: VectorStore
    record: dict[str, SourceRecord] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    bm25: Optional[BM25Retriever] = None

    # ------------------------------------------------------------------ creation

    @classmethod
    def create(cls, path: Path, embedding_spec: str, store_kind: str, settings: dict[str, Any]) -> "Workspace":
        if store_kind not in STORE_KINDS:
            raise ValidationError(f"--store {store_kind!r} is not one of {', '.join(STORE_KINDS)}")
        embeddings = make_embeddings(embedding_spec)
        if store_kind == "faiss":
            # Cosine on a flat index: exact, and relevance means the same for every model.
            store: VectorStore = FAISS(embeddings, distance_strategy="COSINE")
        else:
            store = InMemoryVectorStore(embeddings)
        return cls(Path(path), embeddings, embedding_spec, store, {}, dict(settings))

    @classmethod
    def exists(cls, path: Path) -> bool:
        return index_folder_exists(path)

    @classmethod
    def open(cls, path: Path, *, embedding_spec: Optional[str] = None) -> "Workspace":
        """Load the index at ``path``; ``embedding_spec`` must match the one it was built with."""
        folder = read_index_folder(path, store_class=KIND)
        config = folder.manifest.config
        saved_spec = config.get("embedding_spec")
        if not isinstance(saved_spec, str):
            raise CorruptIndexError(f"{folder.path}: the manifest does not say which embeddings built it")
        if embedding_spec is not None and embedding_spec != saved_spec:
            raise EmbeddingMismatchError(
                f"the index at {folder.path} was built with --embeddings {saved_spec}, not {embedding_spec}; "
                f"drop --embeddings to use {saved_spec}, or rebuild: delete {folder.path} (or choose a new "
                f"--index folder) and run rag index again"
            )
        embeddings = make_embeddings(saved_spec)
        folder.check_embedding(model_id_of(embeddings), getattr(embeddings, "dimension", None))
        store_config = config.get("store") or {}
        store_class = _STORE_BY_CLASS.get(store_config.get("store_class"))
        if store_class is None:
            raise CorruptIndexError(f"{folder.path}: unknown store {store_config.get('store_class')!r}")
        store = store_class.from_sections(folder, embeddings, store_config, prefix="store_")
        try:
            record = {source: SourceRecord.from_json(row) for source, row in folder.json("record").items()}
        except (AttributeError, KeyError, TypeError) as exc:
            raise CorruptIndexError(f"{folder.path}: malformed record of indexed sources: {exc}") from exc
        workspace = cls(Path(path), embeddings, saved_spec, store, record, dict(config.get("settings") or {}))
        workspace.bm25 = _load_bm25(folder, config.get("bm25"), store)
        return workspace

    # ------------------------------------------------------------------ changes

    def replace_source(self, source: str, record: SourceRecord, chunks: list[Document], vectors: Any) -> None:
        """Put ``chunks`` (with ``vectors``) in place of whatever ``source`` had before."""
        old = self.record.get(source)
        if old is not None:
            stale = sorted(set(old.chunk_ids) - set(record.chunk_ids))
            if stale:
                self.store.delete(stale)
        if chunks:
            self.store.add_vectors(vectors, chunks, ids=record.chunk_ids)
        self.record[source] = record
        self.bm25 = None

    def remove_source(self, source: str) -> None:
        old = self.record.pop(source, None)
        if old is not None and old.chunk_ids:
            self.store.delete(old.chunk_ids)
        self.bm25 = None

    def lexical(self) -> Optional[BM25Retriever]:
        """The BM25 retriever over every chunk (rebuilt after changes); None when empty."""
        if self.bm25 is None and len(self.store):
            chunk_ids = [cid for rec in self.record.values() for cid in rec.chunk_ids]
            chunks = self.store.get_by_ids(chunk_ids)
            self.bm25 = BM25Retriever.from_documents(chunks, k=20)
        return self.bm25

    # ------------------------------------------------------------------ saving

    def save(self) -> None:
        """Write store, BM25 and record in one atomic save (the previous index survives a crash)."""
        store_config, sections = self.store.to_sections(prefix="store_")
        bm25_config = None
        lexical = self.lexical()
        if lexical is not None:
            sections.update(lexical.index.sections("bm25"))
            sections["bm25_ids"] = [d.id for d in lexical.docs]
            bm25_config = {"index": lexical.index.config(), "analyzer": lexical.analyzer.to_json(), "k": lexical.k}
        sections["record"] = {source: rec.to_json() for source, rec in sorted(self.record.items())}
        manifest = Manifest(
            store_class=KIND,
            model_id=model_id_of(self.embeddings),
            dimension=self.store.dimension or getattr(self.embeddings, "dimension", None),
            distance_strategy=store_config.get("distance_strategy", "COSINE"),
            config={
                "embedding_spec": self.embedding_spec,
                "store": store_config,
                "bm25": bm25_config,
                "settings": self.settings,
                "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            },
        )
        write_index_folder(self.path, manifest, sections)

    # ------------------------------------------------------------------ facts

    def size_on_disk(self) -> int:
        return sum(p.stat().st_size for p in self.path.iterdir() if p.is_file()) if self.path.is_dir() else 0

    @property
    def chunk_count(self) -> int:
        return len(self.store)


def _load_bm25(folder: IndexFolder, config: Optional[dict[str, Any]], store: VectorStore) -> Optional[BM25Retriever]:
    if not config:
        return None
    try:
        index = BM25Index.from_sections(folder, config["index"], prefix="bm25")
        analyzer = Analyzer.from_json(config["analyzer"])
        ids = folder.json("bm25_ids")
        docs = store.get_by_ids(ids)
        if len(docs) != len(ids):
            raise CorruptIndexError(f"{folder.path}: the BM25 index names chunks the store does not hold")
        return BM25Retriever(index, docs, k=int(config.get("k", 20)), analyzer=analyzer)
    except (KeyError, TypeError) as exc:
        raise CorruptIndexError(f"{folder.path}: malformed BM25 section: {exc}") from exc


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """Hold the index's write lock (a ``.NAME.lock`` file beside it) for a whole
    load-change-save cycle, so two ``rag index`` runs cannot overwrite each other's work.
    A second writer waits; readers never lock (saves are atomic). No-op without fcntl."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no advisory locks
        yield
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / f".{path.name}.lock", "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"rag: waiting for another rag index run on {path} to finish...", file=sys.stderr)
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def default_index_path() -> Path:
    return Path(os.environ.get("RAG_INDEX", ".rag"))
