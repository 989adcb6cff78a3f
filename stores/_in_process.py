"""InProcessStore: the engine primitives for stores whose documents live in this process.

The documents and the id <-> label maps are :class:`~stores._columns.DocumentColumns`; the
backend (numpy in :mod:`stores.memory`, faiss in :mod:`stores.faiss`) keeps only vectors,
under int64 *labels* handed out here, through five primitives:
:meth:`InProcessStore._add_vectors`, :meth:`InProcessStore._remove_vectors`,
:meth:`InProcessStore._get_vectors`, :meth:`InProcessStore._search_vectors` and
:meth:`~stores.base.VectorStore._relevance`. Columns change only after the backend has
accepted the vectors, under the store's lock, so vectors, documents and ids cannot
disagree.

Dict filters are evaluated over numpy columns of the metadata
(:class:`~stores._metadata_columns.MetadataColumns`); callables run on each document.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Callable, Optional, Union

import numpy as np

from rag.documents import Document
from stores._columns import DocumentColumns
from stores._persisting import Persistence
from stores.base import VectorStore
from stores.filters import Expr

__all__ = ["InProcessStore"]


class InProcessStore(VectorStore, Persistence):
    """A :class:`~stores.base.VectorStore` whose documents are kept in this process."""

    def __init__(self, embedding: Any = None) -> None:
        super().__init__(embedding)
        self._columns = DocumentColumns()

    # ------------------------------------------------------------------ backend primitives

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
        fewer than k matches.
        """

    @property
    def exact_filtering(self) -> bool:
        """True when ``_search_vectors`` restricts to ``allowed`` exactly (no over-fetch)."""
        return True

    # ------------------------------------------------------------------ engine primitives

    def _write(self, ids: list[str], texts: list[str], metadatas: list[dict[str, Any]], vectors: np.ndarray) -> None:
        # Vectors first, so a backend failure changes nothing.
        labels = self._columns.allocate(len(ids))
        self._add_vectors(labels, vectors)
        replaced = self._columns.labels_of(ids)
        if replaced.size:
            self._remove_vectors(replaced)
        self._columns.record(ids, texts, metadatas, labels, replaced)

    def _delete_ids(self, ids: list[str]) -> None:
        present = [i for i in ids if i in self._columns]
        if present:
            labels = self._columns.labels_of(present)
            self._remove_vectors(labels)
            self._columns.forget(present, labels)

    def _documents_by_ids(self, ids: list[str]) -> list[Document]:
        return [self._columns.document(i) for i in ids if i in self._columns]

    def _vectors_by_ids(self, ids: list[str]) -> np.ndarray:
        labels = self._columns.labels_of(ids)
        if labels.size == 0:
            return np.empty((0, self._dimension or 0), dtype=np.float32)
        return np.asarray(self._get_vectors(labels), dtype=np.float32)

    def _count(self) -> int:
        return len(self._columns)

    def _raw_scores_by_ids(self, query: np.ndarray, ids: list[str]) -> tuple[list[str], np.ndarray]:
        found = [doc_id for doc_id in ids if doc_id in self._columns]
        if not found:
            return [], np.empty(0, dtype=np.float32)
        return found, self._scores_of_labels(query, self._columns.labels_of(found))

    def _scores_of_labels(self, query: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """Raw scores of ``query`` (d,) against the vectors of ``labels`` (all present), in
        that order. This default is a search restricted to them (exact when
        :attr:`exact_filtering`); a backend that can compute them directly overrides it."""
        scores, found = self._search_vectors(query[None, :], int(labels.size), labels)
        by_label = dict(zip(found[0].tolist(), scores[0].tolist()))
        return np.asarray([by_label[label] for label in labels.tolist()], dtype=np.float32)

    # ------------------------------------------------------------------ searching

    def _allowed_labels(self, filter: Union[Expr, Callable[..., bool], None]) -> Optional[np.ndarray]:
        """Labels a filter keeps (int64), or None for no filter. Callers hold the lock."""
        if filter is None:
            return None
        if callable(filter):
            return self._columns.allowed_labels(filter, self.callable_filter_receives == "document")
        return self._columns.labels_matching(filter)

    def _search_documents(
        self, queries: np.ndarray, k: int, filter: Union[Expr, Callable[..., bool], None], fetch_k: Optional[int]
    ) -> list[list[tuple[Document, float]]]:
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
