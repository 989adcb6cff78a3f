"""``rag search``: ranked chunks from an index, by one of four search types."""

from __future__ import annotations

from typing import Optional

from rag.documents import Document
from rag.ensemble import weighted_reciprocal_rank
from rag.errors import ValidationError

from rag.cli.workspace import Workspace

__all__ = ["SEARCH_TYPES", "search"]

SEARCH_TYPES = ("hybrid", "similarity", "mmr", "threshold")
HYBRID_FETCH = 20
RRF_C = 60


def search(
    workspace: Workspace, query: str, *, k: int = 4, search_type: str = "hybrid", threshold: Optional[float] = None
) -> list[tuple[Document, float]]:
    """``(chunk, score)`` pairs, best first. Scores: relevance in [0, 1] for similarity,
    threshold and mmr (the relevance of each picked chunk); the reciprocal-rank fusion
    score for hybrid (dense and BM25 ranks, equal weights, c = 60)."""
    if search_type not in SEARCH_TYPES:
        raise ValidationError(f"--type {search_type!r} is not one of {', '.join(SEARCH_TYPES)}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValidationError(f"--k must be a positive integer, got {k!r}")
    if threshold is not None and search_type != "threshold":
        raise ValidationError("--threshold applies to --type threshold only")
    store = workspace.store
    if len(store) == 0:
        return []
    if search_type == "similarity":
        return store.similarity_search_with_relevance_scores(query, k=k)
    if search_type == "threshold":
        if threshold is None:
            raise ValidationError("--type threshold needs --threshold X, a number between 0 and 1")
        return store.similarity_search_with_relevance_scores(query, k=k, score_threshold=threshold)
    if search_type == "mmr":
        picked = store.max_marginal_relevance_search(query, k=k, fetch_k=max(HYBRID_FETCH, k))
        relevance = {d.id: s for d, s in store.similarity_search_with_relevance_scores(query, k=max(HYBRID_FETCH, k))}
        return [(d, relevance.get(d.id, 0.0)) for d in picked]
    dense = [d for d, _ in store.similarity_search_with_relevance_scores(query, k=max(HYBRID_FETCH, k))]
    lexical_retriever = workspace.lexical()
    lexical = [d for d, _ in lexical_retriever.search_with_scores(query, max(HYBRID_FETCH, k))] if lexical_retriever else []
    return weighted_reciprocal_rank([dense, lexical], [0.5, 0.5], c=RRF_C)[:k]
