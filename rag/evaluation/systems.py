"""Retrieval configurations to evaluate, each built only from the toolkit's public classes.

A system indexes (ids, texts) once and answers a batch of queries with ranked document ids.
Dense systems share a :class:`CorpusVectors` cache, so one embedding pass of the corpus
serves the flat, in-memory, MMR and hybrid runs (its time is counted in each index time).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Protocol, Sequence

import numpy as np

from rag.documents import Document
from rag.embeddings.base import embed_texts, model_id_of
from rag.hybrid import HybridConfig, fuse, rescorer

__all__ = ["RetrievalSystem", "CorpusVectors", "DenseSystem", "BM25System", "HybridSystem"]


class RetrievalSystem(Protocol):
    """What the runner needs: a name, ``index`` once, then ``search`` in batches."""

    name: str

    def index(self, ids: Sequence[str], texts: Sequence[str]) -> None: ...

    def search(self, queries: Sequence[str], k: int) -> list[list[str]]: ...


@dataclass
class CorpusVectors:
    """Embeds a corpus once per model and remembers how long it took (seconds)."""

    _cache: dict[str, tuple[np.ndarray, float]] = field(default_factory=dict)

    def get(self, embeddings: Any, texts: Sequence[str]) -> tuple[np.ndarray, float, bool]:
        """(vectors, seconds the embedding took, whether they came from the cache)."""
        key = f"{model_id_of(embeddings)}:{len(texts)}"
        if key in self._cache:
            return (*self._cache[key], True)
        started = time.perf_counter()
        vectors = embed_texts(embeddings, list(texts))
        self._cache[key] = (vectors, time.perf_counter() - started)
        return (*self._cache[key], False)


@dataclass
class DenseSystem:
    """Vectors in a store from ``store_factory(embeddings)``; similarity search, or MMR
    when ``mmr_fetch_k`` is set (``lambda_mult`` in [0, 1], default 0.5)."""

    name: str
    embeddings: Any
    store_factory: Callable[[Any], Any]
    vectors: CorpusVectors = field(default_factory=CorpusVectors)
    mmr_fetch_k: Optional[int] = None
    lambda_mult: float = 0.5
    embed_seconds: float = 0.0
    cached_seconds: float = 0.0  # embedding time saved by the cache, added to index time
    store: Any = None

    def index(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        matrix, self.embed_seconds, reused = self.vectors.get(self.embeddings, texts)
        self.cached_seconds = self.embed_seconds if reused else 0.0
        self.store = self.store_factory(self.embeddings)
        self.store.add_vectors(matrix, [Document(text, {}, doc_id) for doc_id, text in zip(ids, texts)], ids=list(ids))

    def search_documents(self, queries: Sequence[str], k: int) -> list[list[Document]]:
        if self.mmr_fetch_k is None:
            return [[doc for doc, _ in row] for row in self.search_scored(queries, k)]
        return [
            self.store.max_marginal_relevance_search_by_vector(vector, k, self.mmr_fetch_k, self.lambda_mult)
            for vector in embed_texts(self.embeddings, list(queries))
        ]

    def search_scored(self, queries: Sequence[str], k: int, query_vectors: Optional[np.ndarray] = None
                      ) -> list[list[tuple[Document, float]]]:
        """For each query, its best ``k`` by similarity, ``(document, relevance in [0, 1])``;
        ``query_vectors``: the queries already embedded (default: embedded here)."""
        if query_vectors is None:
            query_vectors = embed_texts(self.embeddings, list(queries))
        hits = self.store.similarity_search_with_score_by_vectors(query_vectors, k)
        scored = []
        for vector, row in zip(query_vectors, hits):
            relevance = self.store._relevance(np.asarray([raw for _, raw in row], dtype=np.float32), vector)
            scored.append([(doc, float(score)) for (doc, _), score in zip(row, relevance.tolist())])
        return scored

    def search(self, queries: Sequence[str], k: int) -> list[list[str]]:
        return [[doc.id for doc in row] for row in self.search_documents(queries, k)]


@dataclass
class BM25System:
    """A :class:`~rag.bm25.BM25Retriever` with the given ``stemmer`` and ``bm25_params``."""

    name: str
    stemmer: Optional[str] = "english"
    bm25_params: Optional[dict] = None
    retriever: Any = None

    def index(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        from rag.bm25 import BM25Retriever

        self.retriever = BM25Retriever.from_texts(texts, ids=ids, bm25_params=self.bm25_params, stemmer=self.stemmer)

    def search_documents(self, queries: Sequence[str], k: int) -> list[list[Document]]:
        return [[doc for doc, _ in row] for row in self.search_scored(queries, k)]

    def search_scored(self, queries: Sequence[str], k: int) -> list[list[tuple[Document, float]]]:
        """For each query, its best ``k`` ``(document, BM25 score)``."""
        positions, scores = self.retriever.search_positions(queries, k)
        docs = self.retriever.docs
        return [[(docs[p], float(s)) for p, s in zip(row.tolist(), values.tolist())]
                for row, values in zip(positions, scores)]

    def search(self, queries: Sequence[str], k: int) -> list[list[str]]:
        return [[doc.id for doc in row] for row in self.search_documents(queries, k)]


@dataclass
class HybridSystem:
    """Dense and BM25 results fused by :func:`rag.hybrid.fuse`, the fusion every index
    search uses; each side contributes ``config.per_side(k)`` candidates."""

    name: str
    dense: DenseSystem
    lexical: BM25System
    config: HybridConfig = field(default_factory=HybridConfig)

    @property
    def cached_seconds(self) -> float:
        return self.dense.cached_seconds

    def index(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        self.dense.index(ids, texts)
        self.lexical.index(ids, texts)

    def search(self, queries: Sequence[str], k: int) -> list[list[str]]:
        per_side = self.config.per_side(k)
        vectors = embed_texts(self.dense.embeddings, list(queries))
        dense = self.dense.search_scored(queries, per_side, vectors)
        lexical = self.lexical.search_scored(queries, per_side)
        store, bm25 = self.dense.store, self.lexical.retriever
        fused = []
        for query, vector, d, l in zip(queries, vectors, dense, lexical):
            # Each side's true scores of the other's candidates, for the union fusions.
            rescorers = (rescorer(lambda ids, v=vector: store.relevance_scores_by_ids(v, ids)),
                         rescorer(lambda ids, q=query: bm25.scores_of(q, ids)))
            fused.append([doc.id for doc, _ in fuse(d, l, self.config, k, rescorers)])
        return fused
