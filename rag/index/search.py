"""Searching one state of an index, by each search type."""

from __future__ import annotations

from typing import Any, Mapping, Optional

from rag.documents import Document
from rag.errors import ValidationError
from rag.hybrid import hybrid_search, lexical_ranking
from rag.index.config import check_k
from rag.index.state import IndexState
from rag.search_types import INDEX_SEARCH_TYPES, SearchType, check_fraction, check_search_kwargs

__all__ = ["search_state", "score_name"]


def score_name(search_type: str) -> str:
    """What the score of a search type measures: ``rrf`` (hybrid fusion), ``bm25`` or
    ``relevance`` (in [0, 1])."""
    return {SearchType.HYBRID: "rrf", SearchType.BM25: "bm25"}.get(INDEX_SEARCH_TYPES.check(search_type), "relevance")


def _compile(filter: Any) -> Any:
    # The store's own filter language, compiled once for the BM25 side of the search.
    from stores.filters import compile_filter

    return compile_filter(filter)


def _on_metadata(predicate: Any) -> Any:
    return lambda document: predicate(document.metadata)


def search_state(
    state: IndexState, query: str, *, k: int = 4, search_type: str = "hybrid", filter: Any = None,
    threshold: Optional[float] = None, fetch_k: Optional[int] = None, lambda_mult: Optional[float] = None,
) -> list[tuple[Document, float]]:
    """``(chunk, score)`` pairs, best first, at most ``k``.

    ``fetch_k`` (similarity, threshold, mmr: candidates considered, as LangChain's) and
    ``lambda_mult`` (mmr: 1 = relevance only, 0 = diversity only) override the index's
    saved MMR settings for this search.

    Scores: the fusion score for ``hybrid`` (dense and BM25 ranks with the index's
    :class:`~rag.hybrid.HybridConfig`); relevance in [0, 1] for ``similarity``,
    ``threshold`` (only chunks with relevance >= ``threshold``) and ``mmr`` (each picked
    chunk's relevance); the BM25 score for ``bm25``. ``filter``: a metadata filter in the
    stores' dict language (``{"source": {"$ne": "a.md"}}``) or a predicate over a chunk's metadata
    (a dict), whatever the store backend.
    """
    if not isinstance(query, str):
        raise ValidationError(f"query must be a string, got {type(query).__name__}: {query!r:.60}")
    search_type = INDEX_SEARCH_TYPES.check(search_type)
    check_k(k)
    thresholded = search_type is SearchType.SIMILARITY_SCORE_THRESHOLD
    if threshold is not None and not thresholded:
        raise ValidationError(f"threshold applies to search type 'threshold' only, not {search_type.value!r}")
    if thresholded:
        if threshold is None:
            raise ValidationError("search type 'threshold' needs threshold=X, a number between 0 and 1")
        check_fraction(threshold, "threshold")
    given = {name: value for name, value in (("fetch_k", fetch_k), ("lambda_mult", lambda_mult)) if value is not None}
    if given:  # the threshold was checked above; the shared check wants it alongside
        check_search_kwargs(search_type, {**given, **({"score_threshold": threshold} if thresholded else {})})
    predicate = _compile(filter)  # validates the filter even when the index is empty
    store = state.store
    if len(store) == 0:
        return []
    if predicate is not None and not isinstance(filter, Mapping) and store.callable_filter_receives == "document":
        # An index's predicate takes a chunk's metadata (as the BM25 side and the answer's
        # context get it); a store that passes its callable a Document gets one that unwraps it.
        filter = _on_metadata(predicate)
    if search_type is SearchType.SIMILARITY:
        return store.similarity_search_with_relevance_scores(query, k=k, filter=filter, fetch_k=fetch_k)
    if thresholded:
        return store.similarity_search_with_relevance_scores(query, k=k, filter=filter, score_threshold=threshold,
                                                             fetch_k=fetch_k)
    if search_type is SearchType.MMR:
        fetch_k = max(state.config.mmr_fetch_k if fetch_k is None else fetch_k, k)
        lambda_mult = state.config.lambda_mult if lambda_mult is None else lambda_mult
        picked = store.max_marginal_relevance_search(query, k=k, fetch_k=fetch_k, lambda_mult=lambda_mult,
                                                     filter=filter)
        relevance = {d.id: s for d, s in store.similarity_search_with_relevance_scores(query, k=fetch_k, filter=filter)}
        return [(d, relevance.get(d.id, 0.0)) for d in picked]
    lexical = state.lexical()
    if search_type is SearchType.BM25:
        return lexical_ranking(lexical, query, k, predicate)
    return hybrid_search(store, lexical, query, k, config=state.config.hybrid, filter=filter, predicate=predicate)
