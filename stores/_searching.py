"""A store's search API, once for every backend: similarity, relevance, MMR, search types.

Mixed into :class:`stores.base.VectorStore`, whose lock, documents
(:class:`~stores._columns.DocumentColumns`) and backend primitives (``_search_vectors``,
``_get_vectors``, ``_relevance``, ``exact_filtering``) it uses. Filtering, scoring and MMR
are the pure functions of :mod:`stores.filters`, :mod:`stores.scoring` and
:mod:`stores.mmr`; this module decides what to ask the backend for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from rag.documents import Document
from rag.embeddings.base import embed_query_text
from rag.search_types import check_fraction, check_k, search_store
from rag.vectors import MatrixLike, VectorLike, as_matrix, as_vector
from stores.filters import Filter, compile_filter
from stores.mmr import maximal_marginal_relevance

if TYPE_CHECKING:
    from rag.retrievers import VectorStoreRetriever

__all__ = ["SearchMethods"]


class SearchMethods:
    """LangChain's search methods over the backend primitives (see the module docstring)."""

    # ------------------------------------------------------------------ queries

    def _query_vector(self, query: str) -> np.ndarray:
        return embed_query_text(self._require_embedding(), query, dimension=self._dimension)

    def _as_query(self, embedding: VectorLike) -> np.ndarray:
        return as_vector(embedding, dimension=self._dimension, name="query embedding")

    def _allowed_labels(self, filter: Filter) -> Optional[np.ndarray]:
        """Labels a filter keeps (int64), or None for no filter. Callers hold the lock."""
        predicate = compile_filter(filter)
        if predicate is None:
            return None
        pass_document = self.callable_filter_receives == "document" and callable(filter) and not isinstance(filter, dict)
        return self._columns.allowed_labels(predicate, pass_document)

    # ------------------------------------------------------------------ core search

    def _search(
        self, queries: np.ndarray, k: int, filter: Filter = None, fetch_k: Optional[int] = None
    ) -> list[list[tuple[Document, float]]]:
        """Core search: best ``k`` (document, raw score) pairs for each query row."""
        k = check_k(k)
        if fetch_k is not None:
            fetch_k = check_k(fetch_k, "fetch_k")
        with self._lock:
            total = len(self._columns)
            allowed = self._allowed_labels(filter)
            if total == 0 or (allowed is not None and allowed.size == 0):
                return [[] for _ in range(queries.shape[0])]
            if allowed is None or self.exact_filtering:
                limit = total if allowed is None else int(allowed.size)
                scores, labels = self._search_vectors(queries, min(k, limit), allowed)
            else:
                scores, labels = self._overfetch(queries, k, allowed, fetch_k or 4 * k, total)
            document, id_by_label = self._columns.document, self._columns.id_by_label
            return [
                [
                    (document(id_by_label[label]), score)
                    for score, label in zip(row_scores.tolist(), row_labels.tolist())
                    if label >= 0
                ]
                for row_scores, row_labels in zip(scores, labels)
            ]

    def _overfetch(
        self, queries: np.ndarray, k: int, allowed: np.ndarray, fetch: int, total: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Approximate filtered search for backends that cannot restrict: fetch, then drop.

        The fetch doubles until every query has k allowed results or the whole store has
        been fetched, so a selective filter still fills k when the index can reach them.
        """
        fetch = min(max(fetch, k), total)
        while True:
            scores, labels = self._search_vectors(queries, fetch, None)
            keep = np.isin(labels, allowed) & (labels >= 0)
            if fetch >= total or keep.sum(axis=1).min() >= k:
                break
            fetch = min(fetch * 2, total)
        out_scores = np.zeros((queries.shape[0], k), dtype=np.float32)
        out_labels = np.full((queries.shape[0], k), -1, dtype=np.int64)
        for row in range(queries.shape[0]):
            hits = np.flatnonzero(keep[row])[:k]
            out_scores[row, : hits.size] = scores[row, hits]
            out_labels[row, : hits.size] = labels[row, hits]
        return out_scores, out_labels

    # ------------------------------------------------------------------ similarity

    def similarity_search(
        self, query: str, k: int = 4, filter: Filter = None, *, fetch_k: Optional[int] = None
    ) -> list[Document]:
        """The ``k`` documents most similar to ``query`` (k >= 1), best first."""
        return [doc for doc, _ in self.similarity_search_with_score(query, k, filter, fetch_k=fetch_k)]

    def similarity_search_with_score(
        self, query: str, k: int = 4, filter: Filter = None, *, fetch_k: Optional[int] = None
    ) -> list[tuple[Document, float]]:
        """``(document, raw score)`` pairs, best first; the score's unit depends on the store."""
        check_k(k)
        return self.similarity_search_with_score_by_vector(self._query_vector(query), k, filter, fetch_k=fetch_k)

    def similarity_search_by_vector(
        self, embedding: VectorLike, k: int = 4, filter: Filter = None, *, fetch_k: Optional[int] = None
    ) -> list[Document]:
        """The ``k`` documents most similar to the vector ``embedding`` (list or array)."""
        return [doc for doc, _ in self.similarity_search_with_score_by_vector(embedding, k, filter, fetch_k=fetch_k)]

    def similarity_search_with_score_by_vector(
        self, embedding: VectorLike, k: int = 4, filter: Filter = None, *, fetch_k: Optional[int] = None
    ) -> list[tuple[Document, float]]:
        """``(document, raw score)`` pairs for a query vector, best first."""
        return self._search(self._as_query(embedding)[None, :], k, filter, fetch_k)[0]

    def similarity_search_with_score_by_vectors(
        self, embeddings: MatrixLike, k: int = 4, filter: Filter = None, *, fetch_k: Optional[int] = None
    ) -> list[list[tuple[Document, float]]]:
        """Batched search: for each row of ``embeddings`` (q, d), its best ``(document, raw score)``.

        One backend call for all queries, which is much faster than q separate searches.
        """
        queries = as_matrix(embeddings, dimension=self._dimension, name="query embeddings")
        if queries.shape[0] == 0:
            return []
        return self._search(queries, k, filter, fetch_k)

    # ------------------------------------------------------------------ relevance

    def similarity_search_with_relevance_scores(
        self,
        query: str,
        k: int = 4,
        filter: Filter = None,
        *,
        score_threshold: Optional[float] = None,
        fetch_k: Optional[int] = None,
    ) -> list[tuple[Document, float]]:
        """``(document, relevance)`` pairs with relevance in [0, 1], best first.

        ``score_threshold`` (0 to 1) drops results below it. For unit vectors relevance is
        the cosine similarity clipped to [0, 1] on every store.
        """
        check_k(k)
        threshold = None if score_threshold is None else check_fraction(score_threshold, "score_threshold")
        return self._relevance_search(self._query_vector(query), k, filter, threshold, fetch_k)

    def _relevance_search(
        self, query: np.ndarray, k: int, filter: Filter, threshold: Optional[float], fetch_k: Optional[int]
    ) -> list[tuple[Document, float]]:
        with self._lock:
            pairs = self.similarity_search_with_score_by_vector(query, k, filter, fetch_k=fetch_k)
            if not pairs:
                return []
            relevance = self._relevance(np.asarray([score for _, score in pairs], dtype=np.float32), query)
        results = [(doc, float(score)) for (doc, _), score in zip(pairs, relevance.tolist())]
        if threshold is not None:
            results = [(doc, score) for doc, score in results if score >= threshold]
        return results

    # ------------------------------------------------------------------ MMR

    def max_marginal_relevance_search(
        self, query: str, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, filter: Filter = None
    ) -> list[Document]:
        """``k`` documents chosen for relevance and diversity among the ``fetch_k`` most similar.

        ``lambda_mult`` in [0, 1]: 1 = relevance only, 0 = diversity only. When
        ``fetch_k < k``, ``k`` candidates are used.
        """
        check_k(k)
        check_k(fetch_k, "fetch_k")
        check_fraction(lambda_mult, "lambda_mult")
        return self.max_marginal_relevance_search_by_vector(self._query_vector(query), k, fetch_k, lambda_mult, filter)

    def max_marginal_relevance_search_by_vector(
        self, embedding: VectorLike, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, filter: Filter = None
    ) -> list[Document]:
        """MMR for a query vector; see :meth:`max_marginal_relevance_search`."""
        pairs = self.max_marginal_relevance_search_with_score_by_vector(
            embedding, k=k, fetch_k=fetch_k, lambda_mult=lambda_mult, filter=filter)
        return [doc for doc, _ in pairs]

    def max_marginal_relevance_search_with_score_by_vector(
        self, embedding: VectorLike, *, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5,
        filter: Filter = None,
    ) -> list[tuple[Document, float]]:
        """MMR for a query vector, with each chosen document's raw score, in selection order.

        The score is the one :meth:`similarity_search_with_score_by_vector` gives that
        document (same unit). LangChain's FAISS, when a filter drops candidates, reports the
        score at the same position of the unfiltered list, which belongs to another document.
        """
        k = check_k(k)
        fetch_k = check_k(fetch_k, "fetch_k")
        lambda_mult = check_fraction(lambda_mult, "lambda_mult")
        query = self._as_query(embedding)
        with self._lock:
            candidates = self._search(query[None, :], max(fetch_k, k), filter)[0]
            if not candidates:
                return []
            vectors = self._get_vectors(self._columns.labels_of([doc.id for doc, _ in candidates]))
        order = maximal_marginal_relevance(query, vectors, lambda_mult, k)
        return [candidates[i] for i in order]

    # ------------------------------------------------------------------ search types

    def search(self, query: str, search_type: str, **kwargs: Any) -> list[Document]:
        """Dispatch on ``search_type`` (a :class:`~rag.search_types.SearchType`):
        "similarity", "similarity_score_threshold" (or "threshold") or "mmr"; ``kwargs``
        go to that search's method."""
        return search_store(self, query, search_type, kwargs)

    def as_retriever(
        self, search_type: str = "similarity", search_kwargs: Optional[dict[str, Any]] = None, **kwargs: Any
    ) -> "VectorStoreRetriever":
        """A :class:`~rag.retrievers.VectorStoreRetriever` over this store (validated now)."""
        from rag.retrievers import VectorStoreRetriever

        return VectorStoreRetriever(self, search_type=search_type, search_kwargs=search_kwargs, **kwargs)
