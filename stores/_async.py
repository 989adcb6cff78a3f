"""A store's async API: LangChain's ``a*`` twins of the sync methods, once for every backend.

Mixed into :class:`stores.base.VectorStore`. Embedding uses the model's own async methods
when it has them (``aembed_documents_array``, else LangChain's ``aembed_documents``, and
the query twins: an HTTP client then waits without a thread); the store's work (numpy, faiss) runs in a worker thread, so the event
loop never blocks on it. Arguments are checked before anything is embedded.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence, TypeVar

import numpy as np

from rag._threads import to_thread
from rag.documents import Document
from rag.embeddings.base import embed_texts, model_id_of
from rag.errors import ValidationError
from rag.search_types import asearch_store, check_fraction, check_k
from rag.vectors import VectorLike, as_matrix, as_vector
from stores._columns import columns_from_documents, columns_from_texts, resolve_ids
from stores.filters import Filter

__all__ = ["AsyncMethods"]

AS = TypeVar("AS", bound="AsyncMethods")


class AsyncMethods:
    """The async API over the sync one (see the module docstring)."""

    # ------------------------------------------------------------------ embedding

    async def _aembed_texts(self, texts: list[str]) -> np.ndarray:
        embedding = self._require_embedding()
        # Ours have numpy twins; LangChain's async methods return lists.
        aembed = getattr(embedding, "aembed_documents_array", None) or getattr(embedding, "aembed_documents", None)
        if aembed is not None:
            matrix = as_matrix(await aembed(texts), dimension=self._dimension, name="embeddings")
            if matrix.shape[0] != len(texts):
                raise ValidationError(f"{model_id_of(embedding)} returned {matrix.shape[0]} vectors for {len(texts)} texts")
            return matrix
        return await to_thread(embed_texts, embedding, texts, dimension=self._dimension)

    async def _aquery_vector(self, query: str) -> np.ndarray:
        embedding = self._require_embedding()
        if not isinstance(query, str):
            raise ValidationError(f"query must be a str, got {type(query).__name__}: {query!r:.60}")
        aembed = getattr(embedding, "aembed_query_array", None) or getattr(embedding, "aembed_query", None)
        if aembed is not None:
            return as_vector(await aembed(query), dimension=self._dimension, name="query embedding")
        return await to_thread(self._query_vector, query)

    async def _aembed_and_store(self, texts: list[str], metadatas: list[dict[str, Any]], ids: list[str]) -> list[str]:
        if not texts:
            return []
        vectors = await self._aembed_texts(texts)
        return await to_thread(self._store, texts, metadatas, vectors, ids)

    # ------------------------------------------------------------------ writing and reading

    async def aadd_documents(self, documents: Iterable[Document], *, ids: Optional[Sequence[str]] = None) -> list[str]:
        """Async :meth:`add_documents` (embeds with the model's async API when it has one)."""
        texts, copies, own_ids = columns_from_documents(documents)
        return await self._aembed_and_store(texts, copies, resolve_ids(own_ids, ids))

    async def aadd_texts(
        self, texts: Iterable[str], metadatas: Optional[Sequence[dict]] = None, *, ids: Optional[Sequence[str]] = None
    ) -> list[str]:
        """Async :meth:`add_texts`."""
        texts, copies = columns_from_texts(texts, metadatas)
        return await self._aembed_and_store(texts, copies, resolve_ids([None] * len(texts), ids))

    async def adelete(self, ids: Optional[Sequence[str]] = None) -> bool:
        """Async :meth:`delete`."""
        return await to_thread(self.delete, ids)

    async def aget_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """Async :meth:`get_by_ids`."""
        return await to_thread(self.get_by_ids, ids)

    # ------------------------------------------------------------------ searching

    async def asimilarity_search_with_score(
        self, query: str, k: int = 4, filter: Filter = None, *, fetch_k: Optional[int] = None
    ) -> list[tuple[Document, float]]:
        """Async :meth:`similarity_search_with_score`."""
        check_k(k)
        vector = await self._aquery_vector(query)
        return await to_thread(self.similarity_search_with_score_by_vector, vector, k, filter, fetch_k=fetch_k)

    async def asimilarity_search(
        self, query: str, k: int = 4, filter: Filter = None, *, fetch_k: Optional[int] = None
    ) -> list[Document]:
        """Async :meth:`similarity_search`."""
        return [doc for doc, _ in await self.asimilarity_search_with_score(query, k, filter, fetch_k=fetch_k)]

    async def asimilarity_search_by_vector(
        self, embedding: VectorLike, k: int = 4, filter: Filter = None, *, fetch_k: Optional[int] = None
    ) -> list[Document]:
        """Async :meth:`similarity_search_by_vector`."""
        return await to_thread(self.similarity_search_by_vector, embedding, k, filter, fetch_k=fetch_k)

    async def asimilarity_search_with_relevance_scores(
        self, query: str, k: int = 4, filter: Filter = None, *, score_threshold: Optional[float] = None,
        fetch_k: Optional[int] = None,
    ) -> list[tuple[Document, float]]:
        """Async :meth:`similarity_search_with_relevance_scores`."""
        check_k(k)
        threshold = None if score_threshold is None else check_fraction(score_threshold, "score_threshold")
        vector = await self._aquery_vector(query)
        return await to_thread(self._relevance_search, vector, k, filter, threshold, fetch_k)

    async def amax_marginal_relevance_search(
        self, query: str, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, filter: Filter = None
    ) -> list[Document]:
        """Async :meth:`max_marginal_relevance_search`."""
        check_k(k)
        check_k(fetch_k, "fetch_k")
        check_fraction(lambda_mult, "lambda_mult")
        vector = await self._aquery_vector(query)
        return await to_thread(self.max_marginal_relevance_search_by_vector, vector, k, fetch_k, lambda_mult, filter)

    async def amax_marginal_relevance_search_by_vector(
        self, embedding: VectorLike, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, filter: Filter = None
    ) -> list[Document]:
        """Async :meth:`max_marginal_relevance_search_by_vector`."""
        return await to_thread(self.max_marginal_relevance_search_by_vector, embedding, k, fetch_k, lambda_mult, filter)

    async def amax_marginal_relevance_search_with_score_by_vector(
        self, embedding: VectorLike, *, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5,
        filter: Filter = None,
    ) -> list[tuple[Document, float]]:
        """Async :meth:`max_marginal_relevance_search_with_score_by_vector`."""
        return await to_thread(self.max_marginal_relevance_search_with_score_by_vector, embedding,
                                       k=k, fetch_k=fetch_k, lambda_mult=lambda_mult, filter=filter)

    async def asearch(self, query: str, search_type: str, **kwargs: Any) -> list[Document]:
        """Async :meth:`search`."""
        return await asearch_store(self, query, search_type, kwargs)

    # ------------------------------------------------------------------ construction

    @classmethod
    async def afrom_texts(
        cls: type[AS],
        texts: Sequence[str],
        embedding: Any,
        metadatas: Optional[Sequence[dict]] = None,
        *,
        ids: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> AS:
        """Async :meth:`from_texts`."""
        store = cls(embedding=embedding, **kwargs)
        await store.aadd_texts(texts, metadatas, ids=ids)
        return store

    @classmethod
    async def afrom_documents(
        cls: type[AS], documents: Sequence[Document], embedding: Any, *, ids: Optional[Sequence[str]] = None, **kwargs: Any
    ) -> AS:
        """Async :meth:`from_documents`."""
        store = cls(embedding=embedding, **kwargs)
        await store.aadd_documents(documents, ids=ids)
        return store
