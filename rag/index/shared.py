"""A shared index in a database engine: ``rag index/search/ask --store pgvector|milvus
--store-uri URI``.

Everything lives in the engine, so a second machine needs only the URI: the chunks, their
vectors and metadata (a vector store collection), the lexical side of hybrid search, the
record of indexed sources (content hash and chunk ids per source) and the configuration
(embedding spec, chunking, fusion and MMR parameters). Where each lives, and how
concurrent updates are kept apart, is the engine's (:mod:`rag.index.engine`): PostgreSQL
(:mod:`rag.index.engine_pgvector`: full-text search in the database, updates serialised by
an advisory lock) or Milvus (:mod:`rag.index.engine_milvus`: BM25 rebuilt in each process
from the engine's chunks; updates not serialised). The embedding model and dimension are
checked as for folder indexes.

Updates are incremental as for folder indexes (unchanged sources are skipped by content
hash; a source gone from a root is deleted unless something under that root failed).
Each source's chunks are written, then its record: a run cut short leaves every source
either as before or fully updated (PostgreSQL: each source's chunks in one transaction;
Milvus: a source's chunks may be half-replaced, and its record still says to redo it),
and the next run finishes the rest. The URI may also be given as ``$RAG_STORE_URI``.
"""

from __future__ import annotations

import time
from typing import Any, Optional, Sequence

import numpy as np

from rag.documents import Document
from rag.embeddings.base import model_id_of
from rag.errors import EmbeddingMismatchError, IndexNotFoundError, ValidationError
from rag.hybrid import fuse
from rag.index.answer import Answer, IndexRetriever, answer_chain
from rag.index.config import ANSWER_K, IndexConfig, check_k
from rag.index.engine import IndexEngine, SourceRecord, open_engine
from rag.index.info import IndexInfo
from rag.index.registry import check_embedding_spec, default_embedding_spec, make_embeddings
from rag.index.sources import iter_root
from rag.index.chunk_ids import chunk_ids
from rag.index.update import Progress, UpdateSummary, _content_hash, parse_roots
from rag.search_types import INDEX_SEARCH_TYPES, SearchType, check_fraction
from splitters import RecursiveCharacterTextSplitter

__all__ = ["SharedIndex", "DEFAULT_COLLECTION"]

DEFAULT_COLLECTION = "rag"


class SharedIndex:
    """An index kept in a database engine (see the module docstring); the same operations
    as a folder :class:`~rag.index.Index`: update, search, as_retriever, chain, ask, info."""

    def __init__(self, engine: IndexEngine, store: Any, config: IndexConfig, collection: str) -> None:
        """Use :meth:`open` or :meth:`open_or_create`."""
        self.engine, self.store, self._config, self.collection = engine, store, config, collection

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, uri: str, *, collection: str = DEFAULT_COLLECTION, embeddings: Optional[str] = None,
             store: Optional[str] = None, token: Optional[str] = None) -> "SharedIndex":
        """The index in ``collection`` at ``uri``; ``embeddings``, when given, must be the
        spec it was built with. ``store``: the engine (``pgvector``, ``milvus``; default:
        the one the URI's scheme names, see :func:`~rag.index.engine.engine_name_for_uri`);
        ``token``: Milvus's token (``user:password`` or an API key)."""
        return cls.open_or_create(uri, collection=collection, embeddings=embeddings, store=store, token=token,
                                  _create=False)

    @classmethod
    def open_or_create(cls, uri: str, *, collection: str = DEFAULT_COLLECTION, embeddings: Optional[str] = None,
                       chunk_size: Optional[int] = None, chunk_overlap: Optional[int] = None,
                       store: Optional[str] = None, token: Optional[str] = None,
                       _create: bool = True) -> "SharedIndex":
        """The index in ``collection`` at ``uri``, or a new one built with ``embeddings``
        (default: ``local`` when installed, else ``hashing``) and chunks of ``chunk_size``
        characters (default 1000) overlapping by ``chunk_overlap`` (default 200), written by
        its first update. An existing index keeps its own chunking (another is refused).
        ``store`` and ``token`` as for :meth:`open`."""
        if embeddings is not None:
            check_embedding_spec(embeddings)
        engine = open_engine(uri, collection=collection, store=store, token=token)
        try:
            config = cls._config_of(engine, collection, embeddings, chunk_size, chunk_overlap, _create)
            vectors = engine.open_store(make_embeddings(config.embeddings))
        except BaseException:
            engine.close()
            raise
        return cls(engine, vectors, config, collection)

    @staticmethod
    def _config_of(engine: IndexEngine, collection: str, embeddings: Optional[str], chunk_size: Optional[int],
                   chunk_overlap: Optional[int], create: bool) -> IndexConfig:
        saved = engine.read_config()
        if saved is None:
            if not create:
                raise IndexNotFoundError(
                    f"no index named {collection!r} at {engine.where}; create one with: rag index SOURCE --store "
                    f"{engine.store_name} --store-uri URI" + ("" if collection == DEFAULT_COLLECTION
                                                               else f" --collection {collection}"))
            return IndexConfig(embeddings or default_embedding_spec(), engine.store_name).with_chunking(
                chunk_size, chunk_overlap)
        config = IndexConfig.from_json(saved)
        asked = config.with_chunking(chunk_size, chunk_overlap)
        if asked != config:
            raise ValidationError(
                f"the index {collection!r} at {engine.where} chunks by {config.chunk_size}/{config.chunk_overlap} "
                f"(--chunk-size/--chunk-overlap), not {asked.chunk_size}/{asked.chunk_overlap}; "
                "drop --chunk-size/--chunk-overlap, or use another --collection")
        if embeddings is not None and embeddings != config.embeddings:
            raise EmbeddingMismatchError(
                f"the index {collection!r} at {engine.where} was built with --embeddings {config.embeddings}, not "
                f"{embeddings}; drop --embeddings, or use another --collection")
        return config

    # ------------------------------------------------------------------ facts

    @property
    def config(self) -> IndexConfig:
        return self._config

    @property
    def embeddings(self) -> Any:
        return self.store.embeddings

    @property
    def where(self) -> str:
        """The database (URI without password) and collection, for messages."""
        return self.engine.where

    def __len__(self) -> int:
        return len(self.store)

    def close(self) -> None:
        self.engine.close()

    def info(self) -> IndexInfo:
        records = self.engine.records()
        return IndexInfo(
            index=self.where, embeddings=self.config.embeddings, model_id=model_id_of(self.embeddings),
            dimension=self.store.dimension, store=self.engine.description, sources=len(records), chunks=len(self.store),
            bm25=False, chunk_size=self.config.chunk_size, chunk_overlap=self.config.chunk_overlap,
            size_on_disk_bytes=self.engine.size_bytes(), roots=sorted({record.root for record in records.values()}),
            hybrid=self.config.hybrid.to_json(), saved_at=None)

    # ------------------------------------------------------------------ updating

    def update(self, sources: Sequence[Any], *, crawl: Optional[int] = None, sitemap: bool = False,
               glob: Optional[str] = None, exclude: Sequence[str] = (), beir: bool = False,
               progress: Optional[Progress] = None) -> UpdateSummary:
        """Bring the index up to date with ``sources`` (as :meth:`rag.index.Index.update`)."""
        began = time.perf_counter()
        roots = parse_roots(sources, crawl=crawl, sitemap=sitemap, beir=beir)
        summary = UpdateSummary(embeddings=self.config.embeddings)
        splitter = RecursiveCharacterTextSplitter(chunk_size=self.config.chunk_size,
                                                  chunk_overlap=self.config.chunk_overlap, add_start_index=True)
        with self.engine.updating():
            records = self.engine.records()
            seen: set[str] = set()
            failed: set[str] = set()
            unreachable: set[str] = set()
            for root in roots:
                any_document = root_failed = False
                for item in iter_root(root, glob=glob, excludes=tuple(exclude), progress=progress):
                    if item.failed is not None:
                        summary.failed.append((item.source, item.failed))
                        failed.add(item.source)
                        root_failed = True
                    elif item.skipped is not None:
                        summary.skipped_files.append((item.source, item.skipped))
                    elif item.source not in seen and item.documents is not None:
                        seen.add(item.source)
                        any_document = True
                        self._update_source(root.key, item.source, item.documents, records, splitter, summary)
                if root_failed and (root.kind in ("crawl", "sitemap", "beir") or not any_document):
                    unreachable.add(root.key)  # what was not seen may still exist
            gone = [source for source, (root, _, _) in records.items()
                    if root not in unreachable and root in {r.key for r in roots}
                    and source not in seen and source not in failed]
            for source in gone:
                self._forget_source(source, self.engine.held_chunk_ids(source, records[source]))
                summary.deleted += 1
            if self.store.dimension is not None:
                self.engine.save_config(self.config.to_json())
        summary.total_chunks = len(self.store)
        summary.seconds = time.perf_counter() - began
        return summary

    def _update_source(self, root: str, source: str, documents: list[Document], records: dict[str, SourceRecord],
                       splitter: Any, summary: UpdateSummary) -> None:
        summary.documents += len(documents)
        content_hash = _content_hash(documents, self.config.chunking)
        previous = records.get(source)
        if previous is not None and previous.content_hash == content_hash:
            summary.unchanged += 1
            return
        chunks = splitter.split_documents(documents)
        ids = chunk_ids(source, len(chunks))
        if chunks:
            self.engine.chunks_changing()
            self.store.add_documents(chunks, ids=ids)
            summary.chunks += len(chunks)
        held = self.engine.held_chunk_ids(source, previous) if previous is not None else []
        stale = sorted(set(held) - set(ids))
        if stale:  # before the record, which alone remembers them: a run cut short here redoes this source
            self.engine.chunks_changing()
            self.store.delete(stale)
        if chunks or stale:
            self.engine.chunks_changed()
        self.engine.save_record(source, SourceRecord(root, content_hash, ids))
        summary.added += previous is None
        summary.updated += previous is not None

    def _forget_source(self, source: str, chunk_ids: list[str]) -> None:
        if chunk_ids:
            self.engine.chunks_changing()
            self.store.delete(chunk_ids)
            self.engine.chunks_changed()
        self.engine.forget_record(source)

    # ------------------------------------------------------------------ searching

    def search(self, query: str, *, k: int = 4, search_type: str = "hybrid", filter: Any = None,
               threshold: Optional[float] = None, fetch_k: Optional[int] = None,
               lambda_mult: Optional[float] = None) -> list[tuple[Document, float]]:
        """``(chunk, score)`` pairs, best first, as :meth:`rag.index.Index.search`; the
        ``bm25`` type ranks by the engine's lexical side (PostgreSQL: full-text ``ts_rank``
        normalised by document length instead of BM25; Milvus: BM25)."""
        if not isinstance(query, str):
            raise ValidationError(f"query must be a string, got {type(query).__name__}: {query!r:.60}")
        search_type = INDEX_SEARCH_TYPES.check(search_type)
        check_k(k)
        if search_type is SearchType.SIMILARITY_SCORE_THRESHOLD:
            if threshold is None:
                raise ValidationError("search type 'threshold' needs threshold=X, a number between 0 and 1")
            return self.store.similarity_search_with_relevance_scores(
                query, k, filter, score_threshold=check_fraction(threshold, "threshold"))
        if threshold is not None:
            raise ValidationError(f"threshold applies to search type 'threshold' only, not {search_type.value!r}")
        if search_type is SearchType.SIMILARITY:
            return self.store.similarity_search_with_relevance_scores(query, k, filter)
        if search_type is SearchType.MMR:
            vector = self.store._query_vector(query)
            pairs = self.store.max_marginal_relevance_search_with_score_by_vector(
                vector, k=k, fetch_k=fetch_k or self.config.mmr_fetch_k,
                lambda_mult=self.config.lambda_mult if lambda_mult is None else lambda_mult, filter=filter)
            # Raw scores are the engine's own (pgvector: cosine distance; Milvus: cosine
            # similarity): the store's relevance gives both in [0, 1], as similarity does.
            relevance = self.store._relevance(np.asarray([raw for _, raw in pairs], dtype=np.float32), vector)
            return [(doc, float(score)) for (doc, _), score in zip(pairs, relevance.tolist())]
        if search_type is SearchType.BM25:
            return self.engine.lexical_search(query, k, filter)
        per_side = self.config.hybrid.per_side(k)
        dense = self.store.similarity_search(query, k=per_side, filter=filter)
        lexical = [doc for doc, _ in self.engine.lexical_search(query, per_side, filter)]
        return fuse(dense, lexical, self.config.hybrid, k)

    def as_retriever(self, search_type: str = "hybrid", search_kwargs: Optional[dict[str, Any]] = None) -> IndexRetriever:
        kwargs = dict(search_kwargs or {})
        return IndexRetriever(self, k=kwargs.get("k", 4), search_type=search_type, filter=kwargs.get("filter"),
                              threshold=kwargs.get("score_threshold"))

    def get_by_ids(self, ids: Sequence[str]) -> list[Document]:
        """The stored chunks with these ids (others skipped)."""
        return self.store.get_by_ids(list(ids))

    def chain(self, *, k: int = ANSWER_K, llm: Any = None, search_type: str = "hybrid", filter: Any = None,
              window: int = 1, openings: int = 2, contents: int = 1) -> Any:
        """As :meth:`rag.index.Index.chain`."""
        retriever = IndexRetriever(self, k=check_k(k), search_type=search_type, filter=filter)
        return answer_chain(retriever, self.embeddings, llm, get_by_ids=self.get_by_ids, window=window,
                            openings=openings, contents=contents)

    def ask(self, question: str, *, k: int = ANSWER_K, llm: Any = None, config: Optional[dict[str, Any]] = None,
            window: int = 1, openings: int = 2, contents: int = 1) -> Answer:
        return Answer.from_result(self.chain(k=k, llm=llm, window=window, openings=openings, contents=contents).invoke(
            {"input": question}, config))
