"""FAISS: a vector store on any faiss index (exact or approximate), saved without pickle.

Index types, from a faiss factory string (``index_factory``, default ``"Flat"``):

- Flat indexes search exactly. Filtered search passes faiss an id selector, so it is
  exact too and returns k results whenever k documents match. Deletes remove vectors.
- IVF indexes (``"IVF256,Flat"``, ``"IVF256,PQ32"``) are trained on the first vectors
  added (or by :meth:`FAISS.train`) and keep caller-visible ids natively; ``nprobe`` sets
  how many lists a search visits. Deletes remove vectors.
- Graph indexes (``"HNSW32"``) cannot remove vectors: deletes and replacements leave a
  tombstone that searches skip; :meth:`FAISS.compact` (also run by ``save_local``)
  rebuilds the index without them. ``efSearch`` sets the search breadth.

On approximate indexes a filtered search over-fetches and then filters: it is approximate,
and may return fewer than k results when the filter is very selective.

Scores from ``similarity_search_with_score`` are faiss's: squared L2 distance for
``EUCLIDEAN_DISTANCE`` (lower is better), the inner product for ``MAX_INNER_PRODUCT``, and
the cosine similarity for ``COSINE`` (vectors normalised, inner product index). Relevance
scores are in [0, 1]: the clipped cosine whenever vectors and query are unit length,
otherwise ``1 / (1 + L2 distance)`` or ``logistic(inner product)``.

Differences from LangChain's ``FAISS``: re-adding an existing id replaces it (LangChain
raises and leaves its index and docstore out of step); ``COSINE`` really is cosine
(LangChain uses an L2 index with a cosine relevance formula); relevance never leaves [0, 1];
filtered search on flat indexes does not come up short; persistence is a manifest plus
faiss's own index file and JSON lines/.npy, never pickle (``allow_dangerous_deserialization``
is accepted and ignored); a loaded index is memory-mapped (see :mod:`stores._faiss_saving`).

faiss itself is imported on first use (see :mod:`stores._lazy_faiss`): importing this module
does not start OpenMP, so an application can still set ``OMP_WAIT_POLICY`` and friends
(:func:`rag.process_defaults.apply_process_defaults`) after importing the library.
"""

from __future__ import annotations

import weakref
from typing import Any, BinaryIO, Callable, ClassVar, Literal, Optional, Sequence, Union

import numpy as np

from rag.errors import ValidationError
from rag.vectors import MatrixLike, VectorLike, as_matrix
from stores import _faiss_index as faiss_index
from stores._lazy_faiss import load_faiss
from stores._faiss_saving import FaissPersistence
from stores._in_process import InProcessStore
from stores.scoring import (
    DistanceStrategy,
    relevance_from_cosine,
    relevance_from_inner_product,
    relevance_from_squared_l2,
    rows_are_unit,
)

__all__ = ["FAISS", "DistanceStrategy"]

#: Tombstones never trigger an automatic rebuild below this count.
AUTO_COMPACT_MIN = 1024

_SUPPORTED = (DistanceStrategy.EUCLIDEAN_DISTANCE, DistanceStrategy.MAX_INNER_PRODUCT, DistanceStrategy.COSINE)


def _check_positive(value: Any, name: str) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValidationError(f"{name} must be a positive int or None, got {value!r}")
    return int(value)


def _check_strategy(value: Any) -> DistanceStrategy:
    try:
        strategy = DistanceStrategy(value)
    except ValueError:
        strategy = None
    if strategy not in _SUPPORTED:
        raise ValidationError(
            f"distance_strategy must be one of {', '.join(s.value for s in _SUPPORTED)}, got {value!r}"
        )
    return strategy


class FAISS(FaissPersistence, InProcessStore):
    """A vector store on a faiss index, with LangChain's ``FAISS`` API.

    ``embedding_function`` (or ``embedding=``): the embeddings object. ``distance_strategy``:
    ``EUCLIDEAN_DISTANCE`` (default, as LangChain), ``MAX_INNER_PRODUCT`` or ``COSINE``.
    ``normalize_L2``: normalise vectors and queries to unit length (always on for COSINE).
    ``index_factory``: a faiss factory string, default ``"Flat"`` (exact). ``nprobe`` (IVF)
    and ``efSearch`` (HNSW): search breadth, None = faiss's default. ``relevance_score_fn``:
    optional raw score -> relevance function (results clipped to [0, 1]). A callable
    filter receives the metadata dict (as LangChain's FAISS).

    >>> from rag.embeddings import HashingEmbeddings
    >>> store = FAISS.from_texts(["cats purr", "dogs bark"], HashingEmbeddings(dim=64), ids=["c", "d"])
    >>> store.similarity_search("purr", k=1)[0].id
    'c'
    """

    callable_filter_receives: ClassVar[Literal["metadata", "document"]] = "metadata"
    load_options: ClassVar[frozenset[str]] = frozenset(
        {"relevance_score_fn", "nprobe", "efSearch", "normalize_L2", "distance_strategy"}
    )

    def __init__(
        self,
        embedding_function: Any = None,
        index: Any = None,
        docstore: Any = None,
        index_to_docstore_id: Optional[dict] = None,
        relevance_score_fn: Optional[Callable[[float], float]] = None,
        normalize_L2: bool = False,
        distance_strategy: Union[DistanceStrategy, str] = DistanceStrategy.EUCLIDEAN_DISTANCE,
        *,
        embedding: Any = None,
        index_factory: str = "Flat",
        nprobe: Optional[int] = None,
        efSearch: Optional[int] = None,
    ) -> None:
        if embedding is not None and embedding_function is not None and embedding is not embedding_function:
            raise ValidationError("pass the embeddings once, as embedding_function or as embedding, not both")
        super().__init__(embedding if embedding is not None else embedding_function)
        self.distance_strategy = _check_strategy(distance_strategy)
        self._normalize_L2 = bool(normalize_L2) or self.distance_strategy == DistanceStrategy.COSINE
        if relevance_score_fn is not None and not callable(relevance_score_fn):
            raise ValidationError(f"relevance_score_fn must be callable, got {relevance_score_fn!r:.60}")
        self.override_relevance_score_fn = relevance_score_fn
        if not isinstance(index_factory, str) or not index_factory.strip():
            raise ValidationError(f"index_factory must be a faiss factory string such as 'Flat' or 'HNSW32', got {index_factory!r}")
        self.index_factory = faiss_index.strip_idmap(index_factory.strip())
        self._nprobe = _check_positive(nprobe, "nprobe")
        self._ef_search = _check_positive(efSearch, "efSearch")
        if docstore is not None and len(getattr(docstore, "_dict", {}) or {}) > 0 or index_to_docstore_id:
            raise ValidationError(
                "FAISS(...) accepts only an empty docstore and index_to_docstore_id; build a filled "
                "store with FAISS.from_embeddings(...) or load one with FAISS.load_local(...)"
            )
        self._index: Any = None
        self._keepalive: list[Any] = []  # owners of the faiss proxies in self._index (see _faiss_index)
        # The verified index file a loaded index is memory-mapped from (None: in memory).
        self._mapped_file: Optional[BinaryIO] = None
        self._removable = True
        self._tombstones: set[int] = set()
        self._all_unit = True
        if index is not None:
            if getattr(index, "ntotal", 1) != 0:
                raise ValidationError(f"FAISS(index=...) must be an empty faiss index, got one holding {index.ntotal} vectors")
            self._adopt(index)

    # ------------------------------------------------------------------ index management

    @property
    def _metric(self) -> int:
        faiss = load_faiss()
        if self.distance_strategy == DistanceStrategy.EUCLIDEAN_DISTANCE:
            return faiss.METRIC_L2
        return faiss.METRIC_INNER_PRODUCT

    def _adopt(self, index: Any) -> None:
        """Make the empty faiss ``index`` this store's index."""
        self._use(*faiss_index.wrap(index, self._metric, self.distance_strategy.value))

    def _use(self, index: Any, keepalive: list[Any], mapped_file: Optional[BinaryIO] = None) -> None:
        """Make ``index`` (holding no tombstones) this store's index; ``mapped_file``: the
        file it is memory-mapped from (see :meth:`_writable`)."""
        self._index, self._keepalive = index, keepalive
        self._mapped_file = mapped_file
        if mapped_file is not None:  # closed with the store (the mapping itself needs no descriptor)
            weakref.finalize(self, mapped_file.close)
        self._tombstones = set()
        self._removable = True
        self._apply_search_parameters()

    def _writable(self) -> Any:
        """The index, read into memory first if it is memory-mapped. Every write goes
        through here: faiss aborts the process (no exception) on a write to a mapped index."""
        handle = self._mapped_file
        if handle is not None:
            labels = np.asarray(sorted(self._columns.id_by_label), dtype=np.int64)
            self._use(*faiss_index.read_index_file(handle, labels, self._dimension, handle.name, mapped=False))
            handle.close()
        return self._index

    @property
    def index(self) -> Any:
        """The faiss index (None before the first add). After :meth:`load_local` the index
        is memory-mapped, read-only; asking for it here reads it into memory first (once),
        so that code changing it directly, as LangChain users do, cannot hit the mapping.
        The store's own searches use the mapping."""
        with self._lock:
            return self._writable()

    @property
    def memory_mapped(self) -> bool:
        """True while the vectors are read from the saved file's memory map (after
        :meth:`load_local`, until the first change)."""
        return self._mapped_file is not None

    def _new_index(self, dimension: int) -> Any:
        return faiss_index.new_index(dimension, self.index_factory, self._metric)

    def _apply_search_parameters(self) -> None:
        if self._index is not None:
            faiss_index.set_search_parameters(self._index, self._nprobe, self._ef_search)

    @property
    def nprobe(self) -> Optional[int]:
        """IVF lists visited per search (None: faiss's default, 1)."""
        return self._nprobe

    @nprobe.setter
    def nprobe(self, value: Optional[int]) -> None:
        self._nprobe = _check_positive(value, "nprobe")
        self._apply_search_parameters()

    @property
    def efSearch(self) -> Optional[int]:
        """HNSW search breadth (None: faiss's default, 16)."""
        return self._ef_search

    @efSearch.setter
    def efSearch(self, value: Optional[int]) -> None:
        self._ef_search = _check_positive(value, "efSearch")
        self._apply_search_parameters()

    @property
    def exact_filtering(self) -> bool:
        return self._index is None or isinstance(faiss_index.inner(self._index), load_faiss().IndexFlat)

    @property
    def index_to_docstore_id(self) -> dict[int, str]:
        """faiss id -> document id (a copy; faiss ids are this store's internal labels)."""
        with self._lock:
            return dict(self._columns.id_by_label)

    def _prepare(self, vectors: np.ndarray) -> np.ndarray:
        if not self._normalize_L2:
            return vectors
        vectors = np.array(vectors, dtype=np.float32, copy=True)
        load_faiss().normalize_L2(vectors)
        return vectors

    def train(self, vectors: MatrixLike) -> None:
        """Train an untrained index (IVF, PQ) on ``vectors`` (n, d); n must reach its minimum.

        Without an explicit call, the first ``add`` trains on the vectors it adds.
        """
        matrix = as_matrix(vectors, dimension=self._dimension, name="training vectors")
        with self._lock:
            if self._index is None:
                self._adopt(self._new_index(matrix.shape[1]))
                self._dimension = int(matrix.shape[1])
            faiss_index.train(self._writable(), self._prepare(matrix), self.index_factory)

    # ------------------------------------------------------------------ primitives

    def _add_vectors(self, labels: np.ndarray, vectors: np.ndarray) -> None:
        prepared = self._prepare(vectors)
        if self._index is None:
            self._adopt(self._new_index(prepared.shape[1]))
        elif self._index.d != prepared.shape[1]:
            raise ValidationError(f"vectors have dimension {prepared.shape[1]}, the index expects {self._index.d}")
        index = self._writable()
        faiss_index.train(index, prepared, self.index_factory)
        index.add_with_ids(prepared, labels)
        self._all_unit = self._all_unit and rows_are_unit(prepared)

    def _remove_vectors(self, labels: np.ndarray) -> None:
        if self._removable:
            try:
                self._writable().remove_ids(labels)
                return
            except RuntimeError:
                # Graph indexes (HNSW) cannot remove: fall back to tombstones from now on.
                self._removable = False
        self._tombstones.update(labels.tolist())
        # Every search fetches k + len(tombstones): rebuild once the dead outnumber the live
        # (amortised O(1) per delete), so searches cannot slow down without bound.
        if len(self._tombstones) > max(AUTO_COMPACT_MIN, self._index.ntotal - len(self._tombstones)):
            self.compact()

    def _get_vectors(self, labels: np.ndarray) -> np.ndarray:
        return self._index.reconstruct_batch(np.ascontiguousarray(labels, dtype=np.int64))

    def _search_vectors(
        self, queries: np.ndarray, k: int, allowed: Optional[np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        prepared = self._prepare(queries)
        params = None
        if allowed is not None:
            faiss = load_faiss()
            params = faiss.SearchParameters()
            selector = faiss.IDSelectorBatch(allowed)
            params.sel = selector  # `selector` stays referenced until the search returns
        fetch = min(k + len(self._tombstones), self._index.ntotal)
        scores, labels = self._index.search(prepared, fetch, params=params)
        if not self._tombstones:
            return scores, labels
        return self._drop_tombstones(scores, labels, k)

    def _drop_tombstones(self, scores: np.ndarray, labels: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        dead = np.isin(labels, np.fromiter(self._tombstones, dtype=np.int64, count=len(self._tombstones)))
        labels = np.where(dead, -1, labels)
        # Move live results to the front of each row, keeping their order.
        order = np.argsort(labels < 0, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(scores, order, axis=1), np.take_along_axis(labels, order, axis=1)

    def _scores_of_labels(self, query: np.ndarray, labels: np.ndarray) -> np.ndarray:
        # From the stored vectors (as MMR reads them), in faiss's unit: squared L2 distance,
        # else inner product (of normalised vectors for COSINE). Exact where faiss's own
        # filtered search over a graph index could miss some of them.
        stored = np.asarray(self._get_vectors(labels), dtype=np.float32)
        prepared = self._prepare(np.asarray(query, dtype=np.float32)[None, :])[0]
        if self.distance_strategy == DistanceStrategy.EUCLIDEAN_DISTANCE:
            difference = stored - prepared
            return np.einsum("ij,ij->i", difference, difference)
        return np.einsum("ij,j->i", stored, prepared)

    def _relevance(self, raw_scores: np.ndarray, query: np.ndarray) -> np.ndarray:
        if self.override_relevance_score_fn is not None:
            custom = np.asarray([self.override_relevance_score_fn(float(s)) for s in raw_scores], dtype=np.float32)
            return np.clip(custom, 0.0, 1.0)
        unit = self._all_unit and rows_are_unit(self._prepare(query[None, :]))
        if self.distance_strategy == DistanceStrategy.EUCLIDEAN_DISTANCE:
            return relevance_from_squared_l2(raw_scores, unit)
        if self.distance_strategy == DistanceStrategy.MAX_INNER_PRODUCT:
            return relevance_from_inner_product(raw_scores, unit)
        return relevance_from_cosine(raw_scores)

    # ------------------------------------------------------------------ maintenance

    def compact(self) -> None:
        """Rebuild the index without tombstoned vectors (no-op when there are none).

        The new index is built, trained and filled before it replaces the old one, so a
        failure (too few vectors left to train on, say) leaves the store as it was.
        """
        with self._lock:
            if not self._tombstones:
                return
            dead = np.fromiter(self._tombstones, dtype=np.int64, count=len(self._tombstones))
            self._use(*faiss_index.rebuild_without(
                self._index, dead, self.index_factory, self._metric, self.distance_strategy.value))

    def merge_from(self, target: "FAISS") -> None:
        """Add every document and vector of ``target`` (another FAISS store) to this one.

        Both must use the same distance strategy and normalisation. An id present in both
        is replaced by ``target``'s document (LangChain raises there).
        """
        if not isinstance(target, FAISS):
            raise ValidationError(f"merge_from needs another FAISS store, got {type(target).__name__}")
        if (target.distance_strategy, target._normalize_L2) != (self.distance_strategy, self._normalize_L2):
            raise ValidationError(
                f"cannot merge a store using {target.distance_strategy.value} (normalize_L2={target._normalize_L2}) "
                f"into one using {self.distance_strategy.value} (normalize_L2={self._normalize_L2})"
            )
        with target._lock:
            labels, ids = target._columns.in_label_order()
            if not labels.size:
                return
            texts = [target._columns.texts[i] for i in ids]
            metadatas = [dict(target._columns.metadatas[i]) for i in ids]
            vectors = target._get_vectors(labels)
        self._store(texts, metadatas, as_matrix(vectors, dimension=self._dimension, name="vectors"), ids)

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_embeddings(
        cls,
        text_embeddings: Sequence[tuple[str, VectorLike]],
        embedding: Any,
        metadatas: Optional[Sequence[dict]] = None,
        ids: Optional[Sequence[str]] = None,
        **kwargs: Any,
    ) -> "FAISS":
        """A store from precomputed ``(text, vector)`` pairs (``kwargs`` go to the constructor)."""
        store = cls(embedding=embedding, **kwargs)
        store.add_embeddings(text_embeddings, metadatas, ids=ids)
        return store
