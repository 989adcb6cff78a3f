"""InMemoryVectorStore: one contiguous float32 matrix, exact cosine search."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar, Literal, Optional, Union

import numpy as np

from rag.errors import CorruptIndexError
from rag.persistence import IndexFolder
from stores._in_process import InProcessStore
from stores.scoring import DistanceStrategy, relevance_from_cosine, row_norms, top_k

__all__ = ["InMemoryVectorStore", "StoredEntries"]

_FIRST_CAPACITY = 64


class StoredEntries(Mapping[str, dict[str, Any]]):
    """Read-only view of a store's documents as LangChain's ``InMemoryVectorStore.store``:
    id -> ``{"id", "vector", "text", "metadata"}``.

    Live (it sees later adds and deletes) and read-only: it has no item assignment, and each
    entry is a new dict whose ``vector`` (a list of floats, as LangChain stores it) and
    ``metadata`` are copies, so changing one never changes the store. Ids iterate in
    insertion order, as LangChain's dict does.
    """

    __slots__ = ("_owner",)

    def __init__(self, owner: "InMemoryVectorStore") -> None:
        self._owner = owner

    def __getitem__(self, doc_id: str) -> dict[str, Any]:
        owner = self._owner
        with owner._lock:
            found = owner.get_by_ids([doc_id]) if isinstance(doc_id, str) else []
            if not found:
                raise KeyError(doc_id)
            vector = owner.get_vectors_by_ids([doc_id])[0]
        document = found[0]
        return {"id": document.id, "vector": vector.tolist(), "text": document.page_content,
                "metadata": document.metadata}

    def __iter__(self) -> Iterator[str]:
        with self._owner._lock:
            ids = list(self._owner._columns.texts)  # a snapshot: adds during iteration are safe
        return iter(ids)

    def __len__(self) -> int:
        return len(self._owner)

    def __repr__(self) -> str:
        return f"<StoredEntries of {len(self)} documents>"


class InMemoryVectorStore(InProcessStore):
    """Exact cosine-similarity search over vectors held in memory, as LangChain's class.

    Vectors live in one contiguous float32 matrix that grows by doubling (amortised O(1)
    per add); deletes move the last rows into the holes so the matrix stays compact.
    ``similarity_search_with_score`` returns the cosine similarity in [-1, 1]; relevance is
    ``clip(cosine, 0, 1)``. A callable filter receives the Document (as LangChain's).
    ``store`` is LangChain's ``store`` dict as a read-only view (vectors as float32 values).
    Thread-safe. ``dump(path)`` / ``load(path, embedding)`` use the shared index folder format.

    >>> from rag.embeddings import HashingEmbeddings
    >>> store = InMemoryVectorStore(HashingEmbeddings(dim=64))
    >>> store.add_texts(["cats purr", "dogs bark"], ids=["c", "d"])
    ['c', 'd']
    >>> store.similarity_search("purr", k=1)[0].id
    'c'
    """

    callable_filter_receives: ClassVar[Literal["metadata", "document"]] = "document"
    distance_strategy: ClassVar[DistanceStrategy] = DistanceStrategy.COSINE

    def __init__(self, embedding: Any = None) -> None:
        super().__init__(embedding)
        self._matrix = np.empty((0, 0), dtype=np.float32)
        self._inverse_norms = np.empty(0, dtype=np.float32)
        self._row_labels = np.empty(0, dtype=np.int64)
        self._row_of_label = np.empty(0, dtype=np.int64)  # label -> row, -1 when absent
        self._rows = 0

    @property
    def store(self) -> StoredEntries:
        """The documents as LangChain's ``store`` dict, read-only: id ->
        ``{"id", "vector", "text", "metadata"}`` (see :class:`StoredEntries`)."""
        return StoredEntries(self)

    # ------------------------------------------------------------------ primitives

    def _reserve(self, rows: int, dimension: int, max_label: int) -> None:
        if self._matrix.shape[1] != dimension and self._rows == 0:
            self._matrix = np.empty((0, dimension), dtype=np.float32)
        capacity = self._matrix.shape[0]
        if rows > capacity:
            new_capacity = max(_FIRST_CAPACITY, capacity * 2, rows)
            matrix = np.empty((new_capacity, dimension), dtype=np.float32)
            matrix[: self._rows] = self._matrix[: self._rows]
            norms = np.zeros(new_capacity, dtype=np.float32)
            norms[: self._rows] = self._inverse_norms[: self._rows]
            row_labels = np.full(new_capacity, -1, dtype=np.int64)
            row_labels[: self._rows] = self._row_labels[: self._rows]
            self._matrix, self._inverse_norms, self._row_labels = matrix, norms, row_labels
        if max_label >= self._row_of_label.shape[0]:
            grown = np.full(max(max_label + 1, 2 * self._row_of_label.shape[0], _FIRST_CAPACITY), -1, dtype=np.int64)
            grown[: self._row_of_label.shape[0]] = self._row_of_label
            self._row_of_label = grown

    def _add_vectors(self, labels: np.ndarray, vectors: np.ndarray) -> None:
        count = labels.shape[0]
        # Allocation is the only step that can fail; it happens before any state changes.
        self._reserve(self._rows + count, vectors.shape[1], int(labels.max()))
        start, stop = self._rows, self._rows + count
        self._matrix[start:stop] = vectors
        norms = row_norms(vectors)
        self._inverse_norms[start:stop] = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        self._row_labels[start:stop] = labels
        self._row_of_label[labels] = np.arange(start, stop)
        self._rows = stop

    def _remove_vectors(self, labels: np.ndarray) -> None:
        holes = self._row_of_label[labels]
        remaining = self._rows - holes.shape[0]
        # Rows past the new end that survive fill the holes before the new end: O(removed·d).
        removed = np.zeros(self._rows, dtype=bool)
        removed[holes] = True
        movers = np.flatnonzero(~removed[remaining:]) + remaining
        targets = np.sort(holes[holes < remaining])
        self._matrix[targets] = self._matrix[movers]
        self._inverse_norms[targets] = self._inverse_norms[movers]
        self._row_labels[targets] = self._row_labels[movers]
        self._row_of_label[self._row_labels[targets]] = targets
        self._row_of_label[labels] = -1
        self._row_labels[remaining : self._rows] = -1
        self._rows = remaining

    def _get_vectors(self, labels: np.ndarray) -> np.ndarray:
        return self._matrix[self._row_of_label[labels]]

    def _search_vectors(
        self, queries: np.ndarray, k: int, allowed: Optional[np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        if allowed is None:
            rows = None
            matrix, inverse_norms = self._matrix[: self._rows], self._inverse_norms[: self._rows]
        else:
            rows = self._row_of_label[allowed]
            matrix, inverse_norms = self._matrix[rows], self._inverse_norms[rows]
        query_norms = np.linalg.norm(queries, axis=1, keepdims=True)
        unit_queries = np.divide(queries, query_norms, out=np.zeros_like(queries), where=query_norms > 0)
        if unit_queries.shape[0] == 1:
            # One query: numpy's own single-threaded kernel. Threaded BLAS gemv is ~2x faster
            # on an idle machine but measured 10-30x slower whenever the other core is busy
            # (its threads wait for each other); latency should not depend on the neighbours.
            similarity = np.einsum("ij,j->i", matrix, unit_queries[0])[None, :] * inverse_norms
        else:
            similarity = (unit_queries @ matrix.T) * inverse_norms
        best = top_k(similarity, k)
        scores = np.take_along_axis(similarity, best, axis=1)
        positions = best if rows is None else rows[best]
        return scores, self._row_labels[positions]

    def _scores_of_labels(self, query: np.ndarray, labels: np.ndarray) -> np.ndarray:
        # The cosine _search_vectors computes, for these rows only.
        rows = self._row_of_label[labels]
        norm = float(np.linalg.norm(query))
        unit = query / norm if norm > 0 else np.zeros_like(query)
        return np.einsum("ij,j->i", self._matrix[rows], unit.astype(np.float32)) * self._inverse_norms[rows]

    def _relevance(self, raw_scores: np.ndarray, query: np.ndarray) -> np.ndarray:
        return relevance_from_cosine(raw_scores)

    # ------------------------------------------------------------------ persistence

    def _vector_sections(self, labels: np.ndarray) -> dict[str, np.ndarray]:
        vectors = self._get_vectors(labels) if labels.size else np.empty((0, self._dimension or 0), np.float32)
        return {"vectors": vectors}

    def _restore_vectors(self, folder: IndexFolder, prefix: str) -> np.ndarray:
        vectors = folder.array(f"{prefix}vectors")
        dimension = folder.manifest.dimension
        if vectors.dtype != np.float32 or vectors.ndim != 2:
            raise CorruptIndexError(f"{folder.path}: vectors must be a 2-D float32 array, got {vectors.dtype} {vectors.shape}")
        if vectors.shape[0] and vectors.shape[1] != dimension:
            raise CorruptIndexError(f"{folder.path}: vectors have dimension {vectors.shape[1]}, the manifest says {dimension}")
        # Saved in label order, so the labels are their row numbers.
        labels = np.arange(vectors.shape[0], dtype=np.int64)
        if vectors.shape[0]:
            self._add_vectors(labels, np.ascontiguousarray(vectors))
        return labels

    def dump(self, path: Union[str, os.PathLike]) -> None:
        """Save to the index folder ``path`` atomically (vectors .npy, documents JSON)."""
        self._save_folder(path)

    @classmethod
    def load(cls, path: Union[str, os.PathLike], embedding: Any) -> "InMemoryVectorStore":
        """Load a folder written by :meth:`dump`, refusing one built with other embeddings.

        Raises FileNotFoundError for a missing folder, CorruptIndexError for a damaged one
        and EmbeddingMismatchError for another ``model_id`` or dimension.
        """
        return cls._load_folder(path, embedding)
