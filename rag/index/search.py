"""Searching an index, by each search type, once for every backend."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional

from rag.documents import Document
from rag.embeddings.base import embed_query_text
from rag.hybrid import fuse, rescorer
from rag.index.backend import EXPRESSION_FILTER, IndexBackend
from rag.index.request import SearchRequest, score_name
from rag.search_types import SearchType

if TYPE_CHECKING:
    from rag.index.lexical import Predicate

__all__ = ["run_search", "score_name"]


def _compile(filter: Any) -> Optional[Predicate]:
    # The stores' filter language, compiled once for the lexical side (and checked even
    # when the index is empty).
    from stores.filters import compile_filter

    return compile_filter(filter)


def run_search(backend: IndexBackend, request: SearchRequest) -> list[tuple[Document, float]]:
    """``(chunk, score)`` pairs, best first, at most ``request.k``.

    Scores: the fusion score for ``hybrid`` (dense and lexical results fused with the
    index's :class:`~rag.hybrid.HybridConfig`: a reciprocal-rank sum, or a score fusion's
    in [0, 1]); relevance in [0, 1] for ``similarity``,
    ``threshold`` (only chunks with relevance >= the threshold) and ``mmr`` (each picked
    chunk's relevance); the lexical side's own score for ``bm25`` (BM25, or PostgreSQL's
    ``ts_rank``). ``fetch_k`` and ``lambda_mult`` default to the index's saved MMR
    settings. The filter is a dict in the stores' language or a predicate over a chunk's
    metadata, whatever the backend.
    """
    expression = isinstance(request.filter, str) and EXPRESSION_FILTER in backend.capabilities
    # A backend's own expression language (Milvus) filters dense searches; its lexical
    # side refuses it, naming what it takes instead.
    predicate = None if expression else _compile(request.filter)
    store, config, k = backend.store, backend.config, request.k
    if store.dimension is None:
        return []  # nothing was ever added (no round trip: a database store's len() is a count query)
    filter = request.filter
    if predicate is not None and not isinstance(filter, Mapping) and store.callable_filter_receives == "document":
        # An index's predicate takes a chunk's metadata (as the lexical side and the
        # answer's context get it); a store that passes its callable a Document gets one
        # that unwraps it.
        filter = _on_metadata(predicate)
    search_type = request.search_type
    if search_type is SearchType.SIMILARITY:
        return store.similarity_search_with_relevance_scores(request.query, k=k, filter=filter,
                                                             fetch_k=request.fetch_k)
    if search_type is SearchType.SIMILARITY_SCORE_THRESHOLD:
        return store.similarity_search_with_relevance_scores(request.query, k=k, filter=filter,
                                                             score_threshold=request.threshold, fetch_k=request.fetch_k)
    if search_type is SearchType.MMR:
        fetch_k = max(config.mmr_fetch_k if request.fetch_k is None else request.fetch_k, k)
        lambda_mult = config.lambda_mult if request.lambda_mult is None else request.lambda_mult
        picked = store.max_marginal_relevance_search(request.query, k=k, fetch_k=fetch_k, lambda_mult=lambda_mult,
                                                     filter=filter)
        # Each pick's relevance in [0, 1], as a similarity search gives it (the MMR score
        # itself depends on what was picked before).
        relevance = {d.id: s for d, s in store.similarity_search_with_relevance_scores(
            request.query, k=fetch_k, filter=filter)}
        return [(d, relevance.get(d.id, 0.0)) for d in picked]
    if search_type is SearchType.BM25:
        return backend.lexical_search(request.query, k, request.filter, predicate)
    return _hybrid(backend, request, filter, predicate)


def _hybrid(backend: IndexBackend, request: SearchRequest, filter: Any, predicate: Optional[Predicate]
            ) -> list[tuple[Document, float]]:
    """Both sides' ``per_side`` best, fused. A union fusion then scores the candidates only
    one side returned on the other side too (the query embedded once; one vectorised pass
    or round trip per side): only chunks that passed the filter on one side are scored,
    so the filter still holds."""
    store, hybrid, query, k = backend.store, backend.config.hybrid, request.query, request.k
    per_side = hybrid.per_side(k)
    if not hybrid.rescores:
        dense = store.similarity_search_with_relevance_scores(query, k=per_side, filter=filter)
        return fuse(dense, backend.lexical_search(query, per_side, request.filter, predicate), hybrid, k)
    vector = embed_query_text(store.embeddings, query, dimension=store.dimension)
    dense = store.similarity_search_with_relevance_scores_by_vector(vector, k=per_side, filter=filter)
    lexical = backend.lexical_search(query, per_side, request.filter, predicate)
    rescorers = (rescorer(lambda ids: store.relevance_scores_by_ids(vector, ids)),
                 rescorer(lambda ids: backend.lexical_scores(query, ids)))
    return fuse(dense, lexical, hybrid, k, rescorers)


def _on_metadata(predicate: Predicate) -> Callable[[Document], bool]:
    return lambda document: predicate(document.metadata)
