"""An index kept in a database engine: PostgreSQL + pgvector or Milvus.

Everything lives in the engine, so a second machine needs only the URI: the chunks, their
vectors and metadata (a vector store collection), the lexical side of hybrid search, the
record of indexed sources and the configuration. Where each lives and how concurrent
updates are kept apart is the engine's (:mod:`rag.index.engine`); this module is the one
:class:`~rag.index.backend.IndexBackend` over any engine.

A commit writes a batch's chunks (removed ones first), then the records that name them,
then (at the update's end) the configuration: PostgreSQL does it in one transaction;
Milvus, which has none, writes its write stamp between chunks and records, so a run cut
short leaves every source either as before or with a record that says to redo it.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Optional, Sequence

from rag.documents import Document
from rag.errors import EmbeddingMismatchError, IndexNotFoundError, ValidationError
from rag.hybrid import HybridConfig
from rag.index.backend import BackendFacts, Exclusive, OnWait
from rag.index.config import IndexConfig
from rag.index.engine import IndexEngine, open_engine
from rag.index.registry import check_embedding_spec, default_embedding_spec, make_embeddings
from rag.index.segments import Batch
from rag.index.state import SourceRecord

if TYPE_CHECKING:
    from rag.embeddings.base import Embeddings
    from rag.index.lexical import Predicate
    from stores.base import VectorStore

__all__ = ["EngineBackend", "DEFAULT_COLLECTION"]

#: The collection an index takes in its database when none is named.
DEFAULT_COLLECTION = "rag"


class EngineBackend:
    """The :class:`~rag.index.backend.IndexBackend` of an index in a database (see the module docstring)."""

    def __init__(self, engine: IndexEngine, store: VectorStore, config: IndexConfig, collection: str, *,
                 saved: bool) -> None:
        """Use :meth:`open`."""
        self.engine, self._store, self._config, self.collection = engine, store, config, collection
        self.name = engine.store_name
        self.capabilities = engine.capabilities
        self._saved = saved  # the configuration is in the engine (an update has finished)
        # During an update, the records as the update began plus its own commits; else None
        # (read from the engine on each use: another machine may have written since).
        self._records: Optional[dict[str, SourceRecord]] = None

    @classmethod
    def open(cls, uri: str, *, create: bool, collection: str = DEFAULT_COLLECTION, embeddings: Optional[str] = None,
             store: Optional[str] = None, chunk_size: int = 1000, chunk_overlap: int = 200,
             hybrid: Optional[HybridConfig] = None, token: Optional[str] = None,
             must_be_new: bool = False) -> "EngineBackend":
        """The index ``collection`` at ``uri``; with ``create``, a new one when there is none
        (written by its first update), built with ``embeddings`` (default ``local`` when
        installed, else ``hashing``) and chunks of ``chunk_size``/``chunk_overlap``
        characters (default 1000/200). An existing index keeps its own settings (another
        embeddings spec is refused, naming both; new chunking is an update's, as for a
        folder). ``must_be_new``: refuse an existing one (``Index.create``)."""
        if embeddings is not None:
            check_embedding_spec(embeddings)
        engine = open_engine(uri, collection=collection, store=store, token=token)
        try:
            saved = engine.read_config()
            if saved is not None and must_be_new:
                raise ValidationError(f"an index named {collection!r} already exists at {engine.where}; open it with "
                                      "Index.open(URI), or choose another collection")
            config = _config_of(engine, saved, collection, embeddings, chunk_size, chunk_overlap, hybrid, create)
            vectors = engine.open_store(make_embeddings(config.embeddings))
        except BaseException:
            engine.close()
            raise
        return cls(engine, vectors, config, collection, saved=saved is not None)

    # ------------------------------------------------------------------ facts

    @property
    def where(self) -> str:
        return self.engine.where

    @property
    def config(self) -> IndexConfig:
        return self._config

    @property
    def embeddings(self) -> Embeddings:
        return self._store.embeddings

    @property
    def store(self) -> VectorStore:
        return self._store

    @property
    def record(self) -> Mapping[str, SourceRecord]:
        return self._records if self._records is not None else self.engine.records()

    @property
    def dimension(self) -> Optional[int]:
        return self._store.dimension

    @property
    def chunk_count(self) -> int:
        return sum(len(record.chunk_ids) for record in self.record.values())

    @property
    def chats_folder(self) -> Path:
        from rag.index.engine import local_folder

        return local_folder("chats", self.engine.where, self.collection)

    def facts(self) -> BackendFacts:
        return BackendFacts(self.engine.description, self.engine.size_bytes(), None, self.engine.exact_bm25)

    def held_chunk_ids(self, source: str, record: SourceRecord) -> list[str]:
        return self.engine.held_chunk_ids(source, record)

    def lexical_search(self, query: str, k: int, filter: Any, predicate: Optional[Predicate]
                       ) -> list[tuple[Document, float]]:
        return self.engine.lexical_search(query, k, filter)

    def lexical_scores(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        return self.engine.lexical_scores(query, ids)

    def before_read(self) -> None:
        pass  # the engine serves every read

    def refresh(self, exclusive: Exclusive) -> bool:
        return False  # every read goes to the engine: always current

    # ------------------------------------------------------------------ writing

    @contextmanager
    def writing(self, on_wait: OnWait) -> Iterator[None]:
        with self.engine.updating():
            self._records = dict(self.engine.records())
            try:
                yield
            finally:
                self._records = None

    def commit(self, batch: Batch, config: IndexConfig, *, final: bool, exclusive: Exclusive) -> None:
        if not batch and not (final and (config != self._config or not self._saved)):
            return
        changes = bool(batch.ids or batch.removed_chunks)
        if changes:
            self.engine.chunks_changing()
        with exclusive():
            with self.engine.transaction():
                batch.apply_chunks(self._store)
                if changes:
                    self.engine.chunks_changed()
                for source, row in batch.record_set.items():
                    self.engine.save_record(source, SourceRecord.from_json(row))
                for source in batch.record_removed:
                    self.engine.forget_record(source)
                if final and self._store.dimension is not None:
                    self.engine.save_config(config.to_json())
                    self._saved = True
            # Still excluding searches: info() and sources() may be iterating the record.
            self._config = config
            if self._records is not None:
                for source in batch.record_removed:
                    self._records.pop(source, None)
                for source, row in batch.record_set.items():
                    self._records[source] = SourceRecord.from_json(row)

    def save_local(self, folder: Path) -> None:
        raise AssertionError("unreachable: the index checks the capability first")

    def close(self) -> None:
        self.engine.close()


def _config_of(engine: IndexEngine, saved: Optional[dict[str, Any]], collection: str, embeddings: Optional[str],
               chunk_size: int, chunk_overlap: int, hybrid: Optional[HybridConfig],
               create: bool) -> IndexConfig:
    if saved is None:
        if not create:
            raise IndexNotFoundError(
                f"no index named {collection!r} at {engine.where}; create one with: rag index SOURCE --store-uri URI"
                + ("" if collection == DEFAULT_COLLECTION else f" --collection {collection}"))
        return IndexConfig(embeddings or default_embedding_spec(), engine.store_name, chunk_size, chunk_overlap,
                           hybrid if hybrid is not None else HybridConfig())
    config = IndexConfig.from_json(saved)
    if embeddings is not None and embeddings != config.embeddings:
        raise EmbeddingMismatchError(
            f"the index {collection!r} at {engine.where} was built with --embeddings {config.embeddings}, not "
            f"{embeddings}; drop --embeddings, or use another --collection")
    return config
