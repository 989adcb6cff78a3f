"""The VectorStore base: validation, ids, filtering, scoring, MMR and persistence, once.

A backend stores vectors under int64 *labels* that the base hands out, and implements five
primitives: :meth:`VectorStore._add_vectors`, :meth:`VectorStore._remove_vectors`,
:meth:`VectorStore._get_vectors`, :meth:`VectorStore._search_vectors` and
:meth:`VectorStore._relevance`. The base owns the documents and the id <-> label maps, and
changes them only after the backend has accepted the vectors, under one lock, so vectors,
documents and ids cannot disagree.

Documents are kept as columns (id -> text, id -> metadata), not as Document objects; a
Document is built when one is returned. Why: a Document is an object the cyclic garbage
collector must track, and 100k of them surviving one add triggered full collections that
walked the whole heap (adds took 1.4-1.7x as long, see benchmarks/gc_add.py). Strings and
metadata dicts of plain values are not tracked, so the store stays invisible to the
collector without pausing it: the gc is process-wide, and a library must not switch it off.

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

import asyncio
import threading
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Literal, Optional, Sequence, TypeVar

import numpy as np

from rag.documents import Document
from rag.embeddings.base import embed_query_text, embed_texts, model_id_of
from rag.errors import ValidationError
from rag.ids import uuid4_strings
from rag.persistence import IndexFolder, Manifest
from rag.vectors import MatrixLike, VectorLike, as_matrix, as_vector
from stores.filters import Filter, compile_filter
from stores.mmr import check_lambda_mult, maximal_marginal_relevance

if TYPE_CHECKING:
    from rag.retrievers import VectorStoreRetriever

__all__ = ["VectorStore", "SearchType", "check_k"]

SearchType = Literal["similarity", "similarity_score_threshold", "mmr"]
SEARCH_TYPES: tuple[str, ...] = ("similarity", "similarity_score_threshold", "mmr")

VS = TypeVar("VS", bound="VectorStore")

# search_type -> (method name, returns (document, score) pairs); "a" + name is the async one.
_SEARCH_METHODS: dict[str, tuple[str, bool]] = {
    "similarity": ("similarity_search", False),
    "similarity_score_threshold": ("similarity_search_with_relevance_scores", True),
    "mmr": ("max_marginal_relevance_search", False),
}


def _search_method(search_type: str) -> tuple[str, bool]:
    if search_type not in _SEARCH_METHODS:
        raise ValidationError(f"search_type must be one of {', '.join(map(repr, SEARCH_TYPES))}, got {search_type!r}")
    return _SEARCH_METHODS[search_type]


def check_k(value: Any, name: str = "k") -> int:
    """``value`` as a positive int, or a ValidationError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValidationError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def check_threshold(value: Any) -> float:
    """A relevance threshold: a number in [0, 1] (ints accepted)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValidationError(f"score_threshold must be a number between 0 and 1, got {value!r}")
    return float(value)


def _check_id(value: Any, position: int) -> str:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value:
        raise ValidationError(f"ids[{position}] must be a non-empty str, got {value!r:.60}")
    return value


class VectorStore(ABC):
    """Vectors plus documents, searchable by similarity, with LangChain's API.

    Subclasses supply the storage primitives; everything public is defined here.
    """

    #: What a callable filter receives: the metadata dict (LangChain's FAISS) or the
    #: Document (LangChain's InMemoryVectorStore).
    callable_filter_receives: ClassVar[Literal["metadata", "document"]] = "metadata"

    def __init__(self, embedding: Any = None) -> None:
        self._embedding = embedding
        self._lock = threading.RLock()
        # Both keyed by id, updated together (same keys, same order); see the module docstring.
        self._texts: dict[str, str] = {}
        self._metadatas: dict[str, dict[str, Any]] = {}
        self._filter_cache: Optional[dict[str, Document]] = None  # see _filter_documents
        self._label_by_id: dict[str, int] = {}
        self._id_by_label: dict[int, str] = {}
        self._next_label = 0
        self._dimension: Optional[int] = None

    # ------------------------------------------------------------------ primitives

    @abstractmethod
    def _add_vectors(self, labels: np.ndarray, vectors: np.ndarray) -> None:
        """Store float32 ``vectors`` (n, d) under int64 ``labels`` (n,); all or nothing."""

    @abstractmethod
    def _remove_vectors(self, labels: np.ndarray) -> None:
        """Forget the vectors of ``labels`` (all present)."""

    @abstractmethod
    def _get_vectors(self, labels: np.ndarray) -> np.ndarray:
        """float32 (len(labels), d) vectors of ``labels``, in that order."""

    @abstractmethod
    def _search_vectors(
        self, queries: np.ndarray, k: int, allowed: Optional[np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Best ``k`` matches of each query row, best first: (raw scores, labels), both (q, k).

        ``allowed`` (int64 labels) restricts the search when given; label -1 pads rows with
        fewer than k matches. Raw scores are in the backend's native unit (what
        ``similarity_search_with_score`` returns).
        """

    @abstractmethod
    def _relevance(self, raw_scores: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Map raw scores of ``query`` (as given by the caller) to relevance in [0, 1]."""

    @property
    def exact_filtering(self) -> bool:
        """True when ``_search_vectors`` restricts to ``allowed`` exactly (no over-fetch)."""
        return True

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
        return len(self._texts)

    def _document(self, doc_id: str) -> Document:
        """A new Document for a stored id: the caller may change it without changing ours."""
        return Document._unchecked(self._texts[doc_id], dict(self._metadatas[doc_id]), doc_id)

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
        texts, copies = self._columns_from_texts(texts, metadatas)
        return self._embed_and_store(texts, copies, self._resolve_ids([None] * len(texts), ids))

    def add_documents(self, documents: Iterable[Document], *, ids: Optional[Sequence[str]] = None) -> list[str]:
        """Embed and store ``documents``; id = ``ids[i]``, else ``document.id``, else a uuid4.

        An id already in the store is replaced. Returns the ids in input order. The
        documents are copied: changing them later does not change the store.
        """
        texts, copies, own_ids = self._columns_from_documents(documents)
        return self._embed_and_store(texts, copies, self._resolve_ids(own_ids, ids))

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
        texts, copies = self._columns_from_texts([text for text, _ in pairs], metadatas)
        resolved = self._resolve_ids([None] * len(texts), ids)
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
        texts, copies, own_ids = self._columns_from_documents(documents)
        resolved = self._resolve_ids(own_ids, ids)
        matrix = as_matrix(vectors, dimension=self._dimension, name="vectors")
        if matrix.shape[0] != len(texts):
            raise ValidationError(f"got {matrix.shape[0]} vectors for {len(texts)} documents")
        if not texts:
            return []
        return self._store(texts, copies, matrix, resolved)

    def _store(self, texts: list[str], metadatas: list[dict[str, Any]], vectors: np.ndarray, ids: list[str]) -> list[str]:
        """Add or replace under the lock; vectors first, so a backend failure changes nothing.

        ``metadatas`` become the store's own: callers pass copies.
        """
        with self._lock:
            if self._dimension is not None and vectors.shape[1] != self._dimension:
                # Re-checked under the lock: another thread may have set the dimension.
                as_matrix(vectors, dimension=self._dimension, name="vectors")
            count = len(ids)
            labels = np.arange(self._next_label, self._next_label + count, dtype=np.int64)
            self._add_vectors(labels, vectors)  # may raise: nothing has changed yet
            self._next_label += count
            self._dimension = int(vectors.shape[1])
            replaced = [self._label_by_id[i] for i in ids if i in self._label_by_id] if self._label_by_id else []
            if replaced:
                self._remove_vectors(np.asarray(replaced, dtype=np.int64))
                for label in replaced:
                    del self._id_by_label[label]
            label_list = labels.tolist()
            self._filter_cache = None
            self._texts.update(zip(ids, texts))
            self._metadatas.update(zip(ids, metadatas))
            self._label_by_id.update(zip(ids, label_list))
            self._id_by_label.update(zip(label_list, ids))
        return ids

    def delete(self, ids: Optional[Sequence[str]] = None) -> bool:
        """Remove the documents with these ids; ids not in the store are ignored. Returns True."""
        if ids is None:
            raise ValidationError("delete() needs the list of ids to remove, got None")
        if isinstance(ids, str):
            raise ValidationError(f"ids must be a list of ids, got the single string {ids!r:.60}; wrap it in a list")
        wanted = list(dict.fromkeys(_check_id(i, n) for n, i in enumerate(ids)))
        with self._lock:
            present = [i for i in wanted if i in self._texts]
            if present:
                labels = np.asarray([self._label_by_id[i] for i in present], dtype=np.int64)
                self._remove_vectors(labels)
                self._filter_cache = None
                for doc_id, label in zip(present, labels.tolist()):
                    del self._texts[doc_id], self._metadatas[doc_id], self._label_by_id[doc_id], self._id_by_label[label]
        return True

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """The documents with these ids, in the order asked; missing ids are skipped."""
        if isinstance(ids, str):
            raise ValidationError(f"ids must be a list of ids, got the single string {ids!r:.60}; wrap it in a list")
        with self._lock:
            wanted = [str(i) for i in ids]
            return [self._document(i) for i in wanted if i in self._texts]

    # ------------------------------------------------------------------ validation helpers

    @staticmethod
    def _columns_from_documents(
        documents: Iterable[Document],
    ) -> tuple[list[str], list[dict[str, Any]], list[Optional[str]]]:
        """Validate ``documents``; their texts, copies of their metadata, and their ids."""
        documents = list(documents)
        for position, document in enumerate(documents):
            if not isinstance(document, Document):
                raise ValidationError(
                    f"documents[{position}] must be a Document, got {type(document).__name__}: {document!r:.60}"
                )
        return (
            [d.page_content for d in documents],
            [dict(d.metadata) for d in documents],
            [d.id for d in documents],
        )

    @staticmethod
    def _columns_from_texts(
        texts: Iterable[str], metadatas: Optional[Sequence[dict]]
    ) -> tuple[list[str], list[dict[str, Any]]]:
        """Validate ``texts`` and ``metadatas``; the texts and copies of the metadata dicts."""
        if isinstance(texts, str):
            raise ValidationError(f"texts must be a list of strings, got the single string {texts!r:.60}; wrap it in a list")
        texts = list(texts)
        if metadatas is not None:
            metadatas = list(metadatas)
            if len(metadatas) != len(texts):
                raise ValidationError(f"got {len(metadatas)} metadatas for {len(texts)} texts; give one per text")
        copies: list[dict[str, Any]] = []
        for position, text in enumerate(texts):
            if not isinstance(text, str):
                raise ValidationError(f"texts[{position}] must be a str, got {type(text).__name__}: {text!r:.60}")
            metadata = metadatas[position] if metadatas is not None else None
            if metadata is not None and not isinstance(metadata, dict):
                raise ValidationError(f"metadatas[{position}] must be a dict, got {type(metadata).__name__}")
            copies.append(dict(metadata) if metadata else {})
        return texts, copies

    @staticmethod
    def _resolve_ids(own_ids: list[Optional[str]], ids: Optional[Sequence[str]]) -> list[str]:
        """The id of each new document: ``ids[i]`` if given, else its own id, else a new uuid4."""
        if ids is not None:
            if isinstance(ids, str):
                raise ValidationError(f"ids must be a list, got the single string {ids!r:.60}")
            ids = list(ids)
            if len(ids) != len(own_ids):
                raise ValidationError(f"got {len(ids)} ids for {len(own_ids)} documents; give one per document")
            resolved = [_check_id(i, n) for n, i in enumerate(ids)]
        else:
            missing = sum(1 for i in own_ids if not i)
            fresh = iter(uuid4_strings(missing))
            resolved = [i if i else next(fresh) for i in own_ids]
        if len(set(resolved)) != len(resolved):
            seen: set[str] = set()
            duplicates = sorted({i for i in resolved if i in seen or seen.add(i)})  # type: ignore[func-returns-value]
            raise ValidationError(f"duplicate ids in one call: {duplicates[:5]}; each id may appear once")
        return resolved

    # ------------------------------------------------------------------ searching

    def _query_vector(self, query: str) -> np.ndarray:
        return embed_query_text(self._require_embedding(), query, dimension=self._dimension)

    def _as_query(self, embedding: VectorLike) -> np.ndarray:
        return as_vector(embedding, dimension=self._dimension, name="query embedding")

    def _allowed_labels(self, filter: Filter) -> Optional[np.ndarray]:
        predicate = compile_filter(filter)
        if predicate is None:
            return None
        pass_document = self.callable_filter_receives == "document" and callable(filter) and not isinstance(filter, dict)
        label_by_id = self._label_by_id
        if pass_document:
            labels = [label_by_id[doc_id] for doc_id, document in self._filter_documents().items() if predicate(document)]
        else:
            labels = [label_by_id[doc_id] for doc_id, metadata in self._metadatas.items() if predicate(metadata)]
        return np.asarray(labels, dtype=np.int64)

    def _filter_documents(self) -> dict[str, Document]:
        """Every stored document as a Document, for callable filters that take one.

        Built on the first such search after a write and kept until the next write (callers
        hold the lock): building 100k costs about 20 ms, several times the filtering itself.
        They share the stored metadata dicts, as the predicate always has.
        """
        if self._filter_cache is None:
            texts, new, cache = self._texts, object.__new__, {}
            for doc_id, metadata in self._metadatas.items():
                document = new(Document)  # Document._unchecked inlined: half the time
                document.page_content, document.metadata, document.id = texts[doc_id], metadata, doc_id
                cache[doc_id] = document
            self._filter_cache = cache
        return self._filter_cache

    def _search(
        self, queries: np.ndarray, k: int, filter: Filter = None, fetch_k: Optional[int] = None
    ) -> list[list[tuple[Document, float]]]:
        """Core search: best ``k`` (document, raw score) pairs for each query row."""
        k = check_k(k)
        if fetch_k is not None:
            fetch_k = check_k(fetch_k, "fetch_k")
        with self._lock:
            total = len(self._texts)
            allowed = self._allowed_labels(filter)
            if total == 0 or (allowed is not None and allowed.size == 0):
                return [[] for _ in range(queries.shape[0])]
            if allowed is None or self.exact_filtering:
                limit = total if allowed is None else int(allowed.size)
                scores, labels = self._search_vectors(queries, min(k, limit), allowed)
            else:
                scores, labels = self._overfetch(queries, k, allowed, fetch_k or 4 * k, total)
            document, id_by_label = self._document, self._id_by_label
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
        threshold = None if score_threshold is None else check_threshold(score_threshold)
        query_vector = self._query_vector(query)
        return self._relevance_search(query_vector, k, filter, threshold, fetch_k)

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

    def max_marginal_relevance_search(
        self, query: str, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, filter: Filter = None
    ) -> list[Document]:
        """``k`` documents chosen for relevance and diversity among the ``fetch_k`` most similar.

        ``lambda_mult`` in [0, 1]: 1 = relevance only, 0 = diversity only. When
        ``fetch_k < k``, ``k`` candidates are used.
        """
        check_k(k)
        check_k(fetch_k, "fetch_k")
        check_lambda_mult(lambda_mult)
        return self.max_marginal_relevance_search_by_vector(self._query_vector(query), k, fetch_k, lambda_mult, filter)

    def max_marginal_relevance_search_by_vector(
        self, embedding: VectorLike, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, filter: Filter = None
    ) -> list[Document]:
        """MMR for a query vector; see :meth:`max_marginal_relevance_search`."""
        k = check_k(k)
        fetch_k = check_k(fetch_k, "fetch_k")
        lambda_mult = check_lambda_mult(lambda_mult)
        query = self._as_query(embedding)
        with self._lock:
            candidates = self._search(query[None, :], max(fetch_k, k), filter)[0]
            if not candidates:
                return []
            labels = np.asarray([self._label_by_id[doc.id] for doc, _ in candidates], dtype=np.int64)
            vectors = self._get_vectors(labels)
        order = maximal_marginal_relevance(query, vectors, lambda_mult, k)
        return [candidates[i][0] for i in order]

    def search(self, query: str, search_type: str, **kwargs: Any) -> list[Document]:
        """Dispatch on ``search_type``: "similarity", "similarity_score_threshold" or "mmr"."""
        name, scored = _search_method(search_type)
        found = getattr(self, name)(query, **kwargs)
        return [doc for doc, _ in found] if scored else found

    def as_retriever(
        self, search_type: str = "similarity", search_kwargs: Optional[dict[str, Any]] = None, **kwargs: Any
    ) -> "VectorStoreRetriever":
        """A :class:`~rag.retrievers.VectorStoreRetriever` over this store (validated now)."""
        from rag.retrievers import VectorStoreRetriever

        return VectorStoreRetriever(self, search_type=search_type, search_kwargs=search_kwargs, **kwargs)

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

    # ------------------------------------------------------------------ async

    async def _aembed_texts(self, texts: list[str]) -> np.ndarray:
        embedding = self._require_embedding()
        if not texts:
            return np.empty((0, self._dimension or 0), dtype=np.float32)
        if hasattr(embedding, "aembed_documents"):
            raw = await embedding.aembed_documents(texts)
            matrix = as_matrix(raw, dimension=self._dimension, name="embeddings")
            if matrix.shape[0] != len(texts):
                raise ValidationError(f"{model_id_of(embedding)} returned {matrix.shape[0]} vectors for {len(texts)} texts")
            return matrix
        return await asyncio.to_thread(embed_texts, embedding, texts, dimension=self._dimension)

    async def _aquery_vector(self, query: str) -> np.ndarray:
        embedding = self._require_embedding()
        if not isinstance(query, str):
            raise ValidationError(f"query must be a str, got {type(query).__name__}: {query!r:.60}")
        if hasattr(embedding, "aembed_query"):
            return as_vector(await embedding.aembed_query(query), dimension=self._dimension, name="query embedding")
        return await asyncio.to_thread(self._query_vector, query)

    async def aadd_documents(self, documents: Iterable[Document], *, ids: Optional[Sequence[str]] = None) -> list[str]:
        """Async :meth:`add_documents` (embeds with the model's async API when it has one)."""
        texts, copies, own_ids = self._columns_from_documents(documents)
        resolved = self._resolve_ids(own_ids, ids)
        if not texts:
            return []
        vectors = await self._aembed_texts(texts)
        return await asyncio.to_thread(self._store, texts, copies, vectors, resolved)

    async def aadd_texts(
        self, texts: Iterable[str], metadatas: Optional[Sequence[dict]] = None, *, ids: Optional[Sequence[str]] = None
    ) -> list[str]:
        """Async :meth:`add_texts`."""
        texts, copies = self._columns_from_texts(texts, metadatas)
        resolved = self._resolve_ids([None] * len(texts), ids)
        if not texts:
            return []
        vectors = await self._aembed_texts(texts)
        return await asyncio.to_thread(self._store, texts, copies, vectors, resolved)

    async def adelete(self, ids: Optional[Sequence[str]] = None) -> bool:
        """Async :meth:`delete`."""
        return await asyncio.to_thread(self.delete, ids)

    async def aget_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """Async :meth:`get_by_ids`."""
        return await asyncio.to_thread(self.get_by_ids, ids)

    async def asimilarity_search_with_score(
        self, query: str, k: int = 4, filter: Filter = None, *, fetch_k: Optional[int] = None
    ) -> list[tuple[Document, float]]:
        """Async :meth:`similarity_search_with_score`."""
        check_k(k)
        vector = await self._aquery_vector(query)
        return await asyncio.to_thread(self.similarity_search_with_score_by_vector, vector, k, filter, fetch_k=fetch_k)

    async def asimilarity_search(
        self, query: str, k: int = 4, filter: Filter = None, *, fetch_k: Optional[int] = None
    ) -> list[Document]:
        """Async :meth:`similarity_search`."""
        return [doc for doc, _ in await self.asimilarity_search_with_score(query, k, filter, fetch_k=fetch_k)]

    async def asimilarity_search_by_vector(
        self, embedding: VectorLike, k: int = 4, filter: Filter = None, *, fetch_k: Optional[int] = None
    ) -> list[Document]:
        """Async :meth:`similarity_search_by_vector`."""
        return await asyncio.to_thread(self.similarity_search_by_vector, embedding, k, filter, fetch_k=fetch_k)

    async def asimilarity_search_with_relevance_scores(
        self,
        query: str,
        k: int = 4,
        filter: Filter = None,
        *,
        score_threshold: Optional[float] = None,
        fetch_k: Optional[int] = None,
    ) -> list[tuple[Document, float]]:
        """Async :meth:`similarity_search_with_relevance_scores`."""
        check_k(k)
        threshold = None if score_threshold is None else check_threshold(score_threshold)
        vector = await self._aquery_vector(query)
        return await asyncio.to_thread(self._relevance_search, vector, k, filter, threshold, fetch_k)

    async def amax_marginal_relevance_search(
        self, query: str, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, filter: Filter = None
    ) -> list[Document]:
        """Async :meth:`max_marginal_relevance_search`."""
        check_k(k)
        check_k(fetch_k, "fetch_k")
        check_lambda_mult(lambda_mult)
        vector = await self._aquery_vector(query)
        return await asyncio.to_thread(self.max_marginal_relevance_search_by_vector, vector, k, fetch_k, lambda_mult, filter)

    async def amax_marginal_relevance_search_by_vector(
        self, embedding: VectorLike, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, filter: Filter = None
    ) -> list[Document]:
        """Async :meth:`max_marginal_relevance_search_by_vector`."""
        return await asyncio.to_thread(self.max_marginal_relevance_search_by_vector, embedding, k, fetch_k, lambda_mult, filter)

    async def asearch(self, query: str, search_type: str, **kwargs: Any) -> list[Document]:
        """Async :meth:`search`."""
        name, scored = _search_method(search_type)
        found = await getattr(self, "a" + name)(query, **kwargs)
        return [doc for doc, _ in found] if scored else found

    @classmethod
    async def afrom_texts(
        cls: type[VS],
        texts: Sequence[str],
        embedding: Any,
        metadatas: Optional[Sequence[dict]] = None,
        *,
        ids: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> VS:
        """Async :meth:`from_texts`."""
        store = cls(embedding=embedding, **kwargs)
        await store.aadd_texts(texts, metadatas, ids=ids)
        return store

    @classmethod
    async def afrom_documents(
        cls: type[VS], documents: Sequence[Document], embedding: Any, *, ids: Optional[Sequence[str]] = None, **kwargs: Any
    ) -> VS:
        """Async :meth:`from_documents`."""
        store = cls(embedding=embedding, **kwargs)
        await store.aadd_documents(documents, ids=ids)
        return store

    # ------------------------------------------------------------------ persistence helpers

    def _manifest(self, *, distance_strategy: Optional[str], config: dict[str, Any]) -> Manifest:
        return Manifest(
            store_class=type(self).__name__,
            model_id=model_id_of(self._embedding) if self._embedding is not None else None,
            dimension=self._dimension,
            distance_strategy=distance_strategy,
            config=config,
        )

    def _document_sections(self) -> tuple[np.ndarray, dict[str, Any]]:
        """Labels (int64, in label order) and the JSON ``documents`` section aligned with them."""
        labels = np.asarray(sorted(self._id_by_label), dtype=np.int64)
        texts, metadatas, id_by_label = self._texts, self._metadatas, self._id_by_label
        rows = []
        for label in labels.tolist():
            doc_id = id_by_label[label]
            rows.append({"id": doc_id, "page_content": texts[doc_id], "metadata": metadatas[doc_id]})
        return labels, {"documents": rows}

    def to_sections(self, prefix: str = "") -> tuple[dict[str, Any], dict[str, Any]]:
        """``(config, sections)``: this store as plain data for an index folder.

        Sections are named ``prefix + name``, so a store can share one folder (and one
        atomic save) with other parts of an index, such as a BM25 index. ``config`` is
        JSON. :meth:`from_sections` reverses it.
        """
        raise NotImplementedError(f"{type(self).__name__} cannot be saved")

    @classmethod
    def from_sections(cls: type[VS], folder: IndexFolder, embedding: Any, config: dict[str, Any], prefix: str = "") -> VS:
        """Rebuild a store saved by :meth:`to_sections` from an opened index folder."""
        raise NotImplementedError(f"{cls.__name__} cannot be loaded")

    def _restore_documents(self, folder: IndexFolder, labels: np.ndarray, prefix: str = "") -> None:
        """Refill documents and id maps from a folder, checking they align with ``labels``."""
        from rag.errors import CorruptIndexError

        data = folder.json(f"{prefix}documents")
        rows = data.get("documents") if isinstance(data, dict) else None
        if not isinstance(rows, list) or len(rows) != labels.shape[0]:
            raise CorruptIndexError(f"{folder.path}: the documents do not match the stored vectors' count")
        try:
            for row, label in zip(rows, labels.tolist()):
                text, metadata, doc_id = row["page_content"], row["metadata"], row["id"]
                if not isinstance(text, str) or not isinstance(metadata, dict) or not isinstance(doc_id, str) or not doc_id:
                    raise TypeError(f"expected a str page_content, a dict metadata and a str id, got {row!r:.120}")
                if doc_id in self._texts:
                    raise CorruptIndexError(f"{folder.path}: id {doc_id!r} appears twice")
                # Loaded JSON is ours alone: no copies needed.
                self._texts[doc_id] = text
                self._metadatas[doc_id] = metadata
                self._label_by_id[doc_id] = label
                self._id_by_label[label] = doc_id
            self._filter_cache = None
        except (KeyError, TypeError) as exc:
            raise CorruptIndexError(f"{folder.path}: malformed document record: {exc}") from exc
        self._next_label = int(labels.max()) + 1 if labels.size else 0
        self._dimension = folder.manifest.dimension

