"""The VectorStore base: validation, ids, filtering, scoring and MMR, once.

A backend implements the *engine primitives*: :meth:`VectorStore._write`,
:meth:`VectorStore._delete_ids`, :meth:`VectorStore._documents_by_ids`,
:meth:`VectorStore._vectors_by_ids`, :meth:`VectorStore._search_documents`,
:meth:`VectorStore._count` and :meth:`VectorStore._relevance`. The base assumes nothing
about where documents live: a database backend (:mod:`stores.pgvector`) keeps texts,
metadata and vectors in its engine and translates filters there. Backends whose documents
live in this process derive from :class:`stores._in_process.InProcessStore`, which keeps
them as columns and asks its backend for vectors under int64 labels only.

The base is composed of one module per concern: writing (here), searching
(:mod:`stores._searching`), the async twins (:mod:`stores._async`); in-process stores add
saving and loading (:mod:`stores._persisting`) and the document columns
(:mod:`stores._columns`).

A subclass may instead implement LangChain's methods (``add_texts`` or ``add_documents``,
``similarity_search``, ``from_texts`` ...): it is recognised when the class is defined and
given LangChain's derived methods (:mod:`stores._langchain_compat`).

Differences from LangChain, on purpose:

- Re-adding an existing id replaces the document and its vector ("add or update", as
  langchain-core documents). LangChain's FAISS raises there and leaves its index and
  docstore out of step.
- Relevance scores are in [0, 1] and monotone for every distance strategy (see
  :mod:`stores.scoring`).
- Filtered search on exact backends searches only the matching vectors, so it returns k
  results whenever at least k documents match (LangChain filters a fixed ``fetch_k``).
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from typing import Any, Callable, ClassVar, Iterable, Literal, Optional, Sequence, TypeVar, Union

import numpy as np

from rag.documents import Document
from rag.embeddings.base import embed_texts
from rag.errors import ValidationError
from rag.search_types import SearchType, check_fraction, check_k
from rag.vectors import MatrixLike, VectorLike, as_matrix
from stores._async import AsyncMethods
from stores._columns import check_id_list, columns_from_documents, columns_from_texts, resolve_ids
from stores._langchain_compat import adopt_langchain_methods
from stores._searching import SearchMethods
from stores.filters import Expr
from stores.scoring import DistanceStrategy

__all__ = ["VectorStore", "SearchType", "check_k", "check_threshold"]

VS = TypeVar("VS", bound="VectorStore")


def check_threshold(value: Any) -> float:
    """A relevance threshold: a number in [0, 1] (ints accepted)."""
    return check_fraction(value, "score_threshold")


class VectorStore(SearchMethods, AsyncMethods, ABC):
    """Vectors plus documents, searchable by similarity, with LangChain's API.

    Subclasses supply the engine primitives; everything public is defined here and in
    the mixins it is composed of (see the module docstring).
    """

    #: What a callable filter receives: the metadata dict (LangChain's FAISS) or the
    #: Document (LangChain's InMemoryVectorStore).
    callable_filter_receives: ClassVar[Literal["metadata", "document"]] = "metadata"
    #: False for stores that filter in a database: a callable filter is refused there.
    supports_callable_filter: ClassVar[bool] = True
    #: How the store compares vectors (saved in the manifest of an index folder).
    distance_strategy: DistanceStrategy

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A store written for LangChain (its methods, not our primitives) gets LangChain's
        # derived methods here, when the class is defined (see stores._langchain_compat).
        adopt_langchain_methods(cls, VectorStore)

    def __init__(self, embedding: Any = None) -> None:
        self._embedding = embedding
        self._lock = threading.RLock()
        self._dimension: Optional[int] = None

    # ------------------------------------------------------------------ engine primitives

    @abstractmethod
    def _write(self, ids: list[str], texts: list[str], metadatas: list[dict[str, Any]], vectors: np.ndarray) -> None:
        """Add or replace these documents (distinct ids) with float32 ``vectors`` (n, d):
        all or nothing. ``metadatas`` become the store's own (callers pass copies)."""

    @abstractmethod
    def _delete_ids(self, ids: list[str]) -> None:
        """Remove the documents with these distinct ids; absent ids are ignored."""

    @abstractmethod
    def _documents_by_ids(self, ids: list[str]) -> list[Document]:
        """New Documents for these ids, in that order, skipping absent ones."""

    @abstractmethod
    def _vectors_by_ids(self, ids: list[str]) -> np.ndarray:
        """float32 (n, d) vectors of these ids, in that order, skipping absent ones."""

    @abstractmethod
    def _search_documents(
        self, queries: np.ndarray, k: int, filter: Union[Expr, Callable[..., bool], None], fetch_k: Optional[int]
    ) -> list[list[tuple[Document, float]]]:
        """Best ``k`` (document, raw score) pairs for each query row (q, d), best first.

        ``filter``: a parsed expression, a callable (only if ``supports_callable_filter``)
        or None. ``fetch_k``: candidates an approximate filtered search may fetch first.
        Raw scores are in the backend's native unit (what ``similarity_search_with_score``
        returns).
        """

    @abstractmethod
    def _count(self) -> int:
        """How many documents the store holds."""

    @abstractmethod
    def _relevance(self, raw_scores: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Map raw scores of ``query`` (as given by the caller) to relevance in [0, 1]."""

    def _raw_scores_by_ids(self, query: np.ndarray, ids: list[str]) -> tuple[list[str], np.ndarray]:
        """``(found ids, raw scores)``: the raw score of ``query`` (d,) against each stored
        document of ``ids`` (distinct), in the unit :meth:`_search_documents` gives, in
        the order asked, absent ids skipped. Optional: hybrid search's score fusions over
        both sides' candidates need it (every built-in store has it)."""
        from rag.errors import UnsupportedOperationError

        raise UnsupportedOperationError(f"{type(self).__name__} cannot score given documents against a query; "
                                        "hybrid search over it needs fusion 'rrf', 'zscore' or 'minmax'")

    # ------------------------------------------------------------------ basics

    @property
    def embeddings(self) -> Any:
        """The embeddings object used for texts and queries (may be None)."""
        return self._embedding

    @property
    def dimension(self) -> Optional[int]:
        """Length of the stored vectors; None until the first add."""
        return self._dimension

    def __len__(self) -> int:
        return self._count()

    def _require_embedding(self) -> Any:
        if self._embedding is None:
            raise ValidationError(
                f"this {type(self).__name__} has no embeddings; pass embedding=... when creating "
                "it, or use the *_by_vector methods"
            )
        return self._embedding

    # ------------------------------------------------------------------ writing

    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: Optional[Sequence[dict]] = None,
        *,
        ids: Optional[Sequence[str]] = None,
    ) -> list[str]:
        """Embed and store ``texts``; returns their ids (given, else new uuid4 strings)."""
        texts, copies = columns_from_texts(texts, metadatas)
        return self._embed_and_store(texts, copies, resolve_ids([None] * len(texts), ids))

    def add_documents(self, documents: Iterable[Document], *, ids: Optional[Sequence[str]] = None) -> list[str]:
        """Embed and store ``documents``; id = ``ids[i]``, else ``document.id``, else a uuid4.

        An id already in the store is replaced. Returns the ids in input order. The
        documents are copied: changing them later does not change the store.
        """
        texts, copies, own_ids = columns_from_documents(documents)
        return self._embed_and_store(texts, copies, resolve_ids(own_ids, ids))

    def _embed_and_store(self, texts: list[str], metadatas: list[dict[str, Any]], ids: list[str]) -> list[str]:
        if not texts:
            return []
        vectors = embed_texts(self._require_embedding(), texts, dimension=self._dimension)
        return self._store(texts, metadatas, vectors, ids)

    def add_embeddings(
        self,
        text_embeddings: Iterable[tuple[str, VectorLike]],
        metadatas: Optional[Sequence[dict]] = None,
        *,
        ids: Optional[Sequence[str]] = None,
    ) -> list[str]:
        """Store precomputed ``(text, vector)`` pairs without calling the embeddings."""
        pairs = list(text_embeddings)
        texts, copies = columns_from_texts([text for text, _ in pairs], metadatas)
        resolved = resolve_ids([None] * len(texts), ids)
        if not texts:
            return []
        vectors = as_matrix([vector for _, vector in pairs], dimension=self._dimension, name="embeddings")
        if vectors.shape[0] != len(texts):
            raise ValidationError(f"got {vectors.shape[0]} vectors for {len(texts)} texts")
        return self._store(texts, copies, vectors, resolved)

    def add_vectors(
        self, vectors: MatrixLike, documents: Sequence[Document], *, ids: Optional[Sequence[str]] = None
    ) -> list[str]:
        """Store ``documents`` with precomputed ``vectors`` (n, d), one row per document."""
        texts, copies, own_ids = columns_from_documents(documents)
        resolved = resolve_ids(own_ids, ids)
        matrix = as_matrix(vectors, dimension=self._dimension, name="vectors")
        if matrix.shape[0] != len(texts):
            raise ValidationError(f"got {matrix.shape[0]} vectors for {len(texts)} documents")
        if not texts:
            return []
        return self._store(texts, copies, matrix, resolved)

    def _store(self, texts: list[str], metadatas: list[dict[str, Any]], vectors: np.ndarray, ids: list[str]) -> list[str]:
        """Add or replace under the lock; ``metadatas`` become the store's own (callers pass copies)."""
        with self._lock:
            if self._dimension is not None and vectors.shape[1] != self._dimension:
                # Re-checked under the lock: another thread may have set the dimension.
                as_matrix(vectors, dimension=self._dimension, name="vectors")
            self._write(ids, texts, metadatas, vectors)  # may raise: then nothing has changed
            self._dimension = int(vectors.shape[1])
        return ids

    def delete(self, ids: Optional[Sequence[str]] = None) -> bool:
        """Remove the documents with these ids; ids not in the store are ignored. Returns True."""
        if ids is None:
            raise ValidationError("delete() needs the list of ids to remove, got None")
        wanted = list(dict.fromkeys(check_id_list(ids)))
        if wanted:
            with self._lock:
                self._delete_ids(wanted)
        return True

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """The documents with these ids, in the order asked; missing ids are skipped."""
        if isinstance(ids, str):
            raise ValidationError(f"ids must be a list of ids, got the single string {ids!r:.60}; wrap it in a list")
        wanted = [str(i) for i in ids]
        if not wanted:
            return []
        with self._lock:
            return self._documents_by_ids(wanted)

    def get_vectors_by_ids(self, ids: Sequence[str], /) -> np.ndarray:
        """float32 (n, d) stored vectors of the documents with these ids, in the order
        asked; missing ids are skipped. (A store that normalises, such as cosine FAISS,
        returns the normalised vectors.)"""
        if isinstance(ids, str):
            raise ValidationError(f"ids must be a list of ids, got the single string {ids!r:.60}; wrap it in a list")
        wanted = [str(i) for i in ids]
        with self._lock:
            vectors = self._vectors_by_ids(wanted) if wanted else None
            if vectors is None or vectors.shape[0] == 0:
                return np.empty((0, self._dimension or 0), dtype=np.float32)
            return np.asarray(vectors, dtype=np.float32)

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_texts(
        cls: type[VS],
        texts: Sequence[str],
        embedding: Any,
        metadatas: Optional[Sequence[dict]] = None,
        *,
        ids: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> VS:
        """A new store (``kwargs`` go to the constructor) holding ``texts``."""
        store = cls(embedding=embedding, **kwargs)
        store.add_texts(texts, metadatas, ids=ids)
        return store

    @classmethod
    def from_documents(
        cls: type[VS], documents: Sequence[Document], embedding: Any, *, ids: Optional[Sequence[str]] = None, **kwargs: Any
    ) -> VS:
        """A new store (``kwargs`` go to the constructor) holding ``documents``."""
        store = cls(embedding=embedding, **kwargs)
        store.add_documents(documents, ids=ids)
        return store
