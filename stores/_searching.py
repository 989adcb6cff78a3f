"""A store's search API, once for every backend: similarity, relevance, MMR, search types.

Mixed into :class:`stores.base.VectorStore`, whose lock and engine primitives
(``_search_documents``, ``_vectors_by_ids``, ``_relevance``) it uses. Filters are parsed
here (:mod:`stores.filters`) and evaluated by the backend; scoring and MMR are the pure
functions of :mod:`stores.scoring` and :mod:`stores.mmr`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

import numpy as np

from rag.documents import Document
from rag.embeddings.base import embed_query_text
from rag.errors import ValidationError
from rag.search_types import check_fraction, check_k, search_store
from rag.vectors import MatrixLike, VectorLike, as_matrix, as_vector
from stores.filters import Filter, parse_filter
from stores.mmr import maximal_marginal_relevance

# Type hints name rag.retrievers' classes by module: the package imports it on first
# attribute access (a store alone does without the Runnable machinery it brings).
import rag

if TYPE_CHECKING:
    import rag.retrievers

__all__ = ["SearchMethods"]


class SearchMethods:
    """LangChain's search methods over the backend primitives (see the module docstring)."""

    # ------------------------------------------------------------------ queries

    def _query_vector(self, query: str) -> np.ndarray:
        return embed_query_text(self._require_embedding(), query, dimension=self._dimension)

    def _as_query(self, embedding: VectorLike) -> np.ndarray:
        return as_vector(embedding, dimension=self._dimension, name="query embedding")

    def _parsed_filter(self, filter: Filter) -> Any:
        """``filter`` as an expression tree (:mod:`stores.filters`), a callable, or None.

        A store whose engine evaluates filters (``supports_callable_filter = False``)
        refuses a Python callable here, before anything is searched.
        """
        if callable(filter) and not isinstance(filter, Mapping):
            if not self.supports_callable_filter:
                raise ValidationError(
                    f"{type(self).__name__} filters in its database and cannot run a Python callable "
                    f"({filter!r:.60}); pass a dict filter such as {{'source': {{'$eq': 'a.md'}}}}"
                )
            return filter
        return parse_filter(filter)

    # ------------------------------------------------------------------ core search

    def _search(
        self, queries: np.ndarray, k: int, filter: Filter = None, fetch_k: Optional[int] = None
    ) -> list[list[tuple[Document, float]]]:
        """Core search: best ``k`` (document, raw score) pairs for each query row."""
        k = check_k(k)
        if fetch_k is not None:
            fetch_k = check_k(fetch_k, "fetch_k")
        return self._search_documents(queries, k, self._parsed_filter(filter), fetch_k)

    def _mmr_candidates(self, query: np.ndarray, fetch: int, filter: Filter) -> tuple[list[tuple[Document, float]], np.ndarray]:
        """The ``fetch`` best (document, raw score) pairs for ``query`` and their stored
        vectors (one row each). A backend that can read both at once overrides this."""
        with self._lock:
            candidates = self._search(query[None, :], fetch, filter)[0]
            if not candidates:
                return [], np.empty((0, query.shape[0]), dtype=np.float32)
            return candidates, self._vectors_by_ids([doc.id for doc, _ in candidates])

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

    def similarity_search_with_relevance_scores_by_vector(
        self, embedding: VectorLike, k: int = 4, filter: Filter = None, *, score_threshold: Optional[float] = None,
        fetch_k: Optional[int] = None,
    ) -> list[tuple[Document, float]]:
        """:meth:`similarity_search_with_relevance_scores` for a query vector (one embedded
        once and used for several searches)."""
        check_k(k)
        threshold = None if score_threshold is None else check_fraction(score_threshold, "score_threshold")
        return self._relevance_search(self._as_query(embedding), k, filter, threshold, fetch_k)

    def relevance_scores_by_ids(self, embedding: VectorLike, ids: Sequence[str]) -> dict[str, float]:
        """id -> relevance in [0, 1] of each stored document of ``ids`` to the query vector
        ``embedding``: the score a similarity search that returned it would give (same
        mapping, see :meth:`similarity_search_with_relevance_scores`), whatever its rank.
        Absent ids are left out. One vectorised pass (a database: one round trip); no
        filter applies: the caller names the documents. Hybrid search scores the lexical
        side's candidates with it."""
        if isinstance(ids, str):
            raise ValidationError(f"ids must be a list of ids, got the single string {ids!r:.60}; wrap it in a list")
        query = self._as_query(embedding)
        wanted = list(dict.fromkeys(str(i) for i in ids))
        if not wanted:
            return {}
        with self._lock:
            found, raw = self._raw_scores_by_ids(query, wanted)
            if not found:
                return {}
            relevance = self._relevance(np.asarray(raw, dtype=np.float32), query)
        return dict(zip(found, (float(score) for score in relevance.tolist())))

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
        candidates, vectors = self._mmr_candidates(query, max(fetch_k, k), filter)
        if not candidates:
            return []
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
    ) -> rag.retrievers.VectorStoreRetriever:
        """A :class:`~rag.retrievers.VectorStoreRetriever` over this store (validated now)."""
        from rag.retrievers import VectorStoreRetriever

        return VectorStoreRetriever(self, search_type=search_type, search_kwargs=search_kwargs, **kwargs)
