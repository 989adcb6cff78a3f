"""Hybrid search: dense vectors and BM25, fused by weighted reciprocal rank or by their
scores, each side normalised (:class:`HybridConfig`'s ``fusion``).

The one implementation of hybrid retrieval. The index (``rag.index``) searches with it,
and so do ``rag search``, ``rag ask``, ``rag bench`` and the evaluation's ``hybrid``
configuration; its parameters (:class:`HybridConfig`) are saved with an index, so every
entry point runs the same system.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence


from rag.documents import Document
from rag.embeddings.base import embed_query_text
from rag.fusion import SCORE_NORMALIZATIONS, Rescorer, normalized_score_fusion, union_score_fusion, weighted_reciprocal_rank
from rag.errors import ValidationError

__all__ = ["HybridConfig", "FUSIONS", "UNION_FUSIONS", "fuse", "rescorer", "lexical_ranking", "hybrid_search"]

#: The fusions that score every candidate on both sides (``union-zscore``, ``union-minmax``;
#: see :func:`~rag.fusion.union_score_fusion`): :func:`fuse` then needs each side's rescorer.
UNION_FUSIONS = tuple(f"union-{method}" for method in SCORE_NORMALIZATIONS)
#: The ways :func:`fuse` combines the two sides: by rank (``rrf``); by score, each side
#: normalised over its own candidates (``zscore``, ``minmax``); or by every candidate's
#: true score on both sides (:data:`UNION_FUSIONS`).
FUSIONS = ("rrf", *SCORE_NORMALIZATIONS, *UNION_FUSIONS)
#: What a config saved before a setting was recorded used (and keeps using): an index keeps
#: the fusion it was built with, whatever today's defaults are.
_SAVED_BEFORE = {"fetch_k": 20, "weights": (0.5, 0.5), "c": 60.0, "fusion": "rrf"}

#: A metadata predicate (see ``stores.filters.compile_filter``).
Predicate = Callable[[Mapping[str, Any]], bool]


@dataclass(frozen=True)
class HybridConfig:
    """How the two sides are fused (plain data: :meth:`to_json` / :meth:`from_json`).

    ``fusion`` (see :data:`FUSIONS`): ``rrf`` (weighted reciprocal rank, a document scores
    ``sum(weight / (rank + c))``); ``union-zscore`` / ``union-minmax`` (every candidate
    of either side scored by both sides with its true score, each side normalised over
    that union, then their weighted mean; see :func:`~rag.fusion.union_score_fusion`);
    ``zscore`` / ``minmax`` (each side normalised over its own candidates only, a missing
    document counted as that side's lowest; see
    :func:`~rag.fusion.normalized_score_fusion`). Score fusions give scores in [0, 1].
    The default is ``union-zscore``.
    ``fetch_k``: candidates each side contributes, at least ``k`` of the search (default
    20: each side gives ``max(fetch_k, k)``; score fusions normalise over these);
    ``weights``: (dense, lexical), each >= 0, not both 0, default equal; ``c``: the
    reciprocal-rank constant, >= 0 (default 60; larger values flatten the advantage of top
    ranks; ``rrf`` only). On SciFact every fusion of MiniLM and stemmed BM25 beats either
    side alone (see benchmarks/README.md). A config saved before ``fusion`` was recorded
    reads back as ``rrf``, what it was built with.

    >>> HybridConfig().per_side(10), HybridConfig().per_side(80)
    (20, 80)
    """

    # union-zscore is the default (docs/benchmarks/hybrid-fusion.md): on SciFact's
    # held-out halves nDCG@10 0.735 against rrf's 0.713, no QA set worse, the rare-term
    # case kept on every backend. It has no fitted constant: equal weights, 20 a side.
    fetch_k: int = 20
    weights: tuple[float, float] = (0.5, 0.5)
    c: float = 60.0
    fusion: str = "union-zscore"

    def __post_init__(self) -> None:
        if self.fusion not in FUSIONS:
            raise ValidationError(f"fusion must be one of {', '.join(FUSIONS)}, got {self.fusion!r}")
        if isinstance(self.fetch_k, bool) or not isinstance(self.fetch_k, int) or self.fetch_k < 1:
            raise ValidationError(f"fetch_k must be a positive int, got {self.fetch_k!r}")
        weights = tuple(self.weights)
        if len(weights) != 2 or any(isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 <= w < math.inf
                                    for w in weights):
            raise ValidationError(f"weights must be (dense, lexical), two finite numbers >= 0, got {self.weights!r}")
        if not any(weights):
            raise ValidationError(f"at least one weight must be greater than 0, got {self.weights!r}")
        if isinstance(self.c, bool) or not isinstance(self.c, (int, float)) or not 0 <= self.c < math.inf:
            raise ValidationError(f"c must be a finite number >= 0, got {self.c!r}")
        object.__setattr__(self, "weights", (float(weights[0]), float(weights[1])))
        object.__setattr__(self, "c", float(self.c))

    def per_side(self, k: int) -> int:
        """Candidates each side contributes when ``k`` results are wanted."""
        return max(self.fetch_k, k)

    def to_json(self) -> dict[str, Any]:
        return {"fetch_k": self.fetch_k, "weights": list(self.weights), "c": self.c, "fusion": self.fusion}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "HybridConfig":
        """The config saved by :meth:`to_json`; unknown keys are refused. A config saved
        before the fusion was recorded is ``rrf``, what it was built with."""
        unknown = sorted(set(data) - {"fetch_k", "weights", "c", "fusion"})
        if unknown:
            raise ValidationError(f"unknown hybrid setting(s) {unknown}; expected fetch_k, weights, c, fusion")
        saved = {**_SAVED_BEFORE, **data}
        return cls(int(saved["fetch_k"]), tuple(saved["weights"]), saved["c"], saved["fusion"])

    @property
    def score_name(self) -> str:
        """What a hybrid search's scores are: ``rrf`` (reciprocal-rank sums) or ``fused``
        (a score fusion's, in [0, 1])."""
        return "rrf" if self.fusion == "rrf" else "fused"

    @property
    def rescores(self) -> bool:
        """Whether the fusion needs each side's scores of the other side's candidates."""
        return self.fusion in UNION_FUSIONS


def fuse(dense: Sequence[tuple[Document, float]], lexical: Sequence[tuple[Document, float]], config: HybridConfig,
         k: int, rescorers: Optional[tuple[Rescorer, Rescorer]] = None) -> list[tuple[Document, float]]:
    """The best ``k`` of two ranked, scored lists (``(document, score)``, best first: the
    dense side's relevance, the lexical side's own score), fused as ``config.fusion`` says,
    ``(document, fused score)``.

    ``rrf``: a document scores ``sum(weight / (rank + c))`` over the lists it appears in
    (the scores themselves are not used); ``zscore`` / ``minmax``: see
    :func:`~rag.fusion.normalized_score_fusion`; ``union-zscore`` / ``union-minmax``: see
    :func:`~rag.fusion.union_score_fusion`, with ``rescorers`` (dense, lexical): each
    side's true scores of the candidates only the other side returned (required for
    them, unused otherwise). Documents are matched by id when every document has one,
    else by text; ties keep first-seen order, dense first.
    """
    if config.fusion == "rrf":
        ranked = [[document for document, _ in dense], [document for document, _ in lexical]]
        return weighted_reciprocal_rank(ranked, config.weights, c=config.c)[:k]
    if config.rescores:
        if rescorers is None:
            raise ValidationError(f"fusion {config.fusion!r} scores each side's candidates on the other side too and "
                                  "needs both sides' rescorers; pass rescorers=(dense, lexical), or use fusion 'zscore'")
        method = config.fusion.removeprefix("union-")
        return union_score_fusion([dense, lexical], config.weights, rescorers, method)[:k]
    return normalized_score_fusion([dense, lexical], config.weights, config.fusion)[:k]


def lexical_ranking(lexical: Any, query: str, k: int, predicate: Optional[Predicate] = None) -> list[tuple[Document, float]]:
    """The ``k`` best BM25 matches of ``query`` from ``lexical`` (a
    :class:`~rag.bm25.BM25Retriever` or an index's segmented BM25; None: no matches),
    ``(document, BM25 score)`` with a positive score only, restricted to documents whose
    metadata satisfies ``predicate``: a filtered search ranks only the matching documents,
    so it returns ``k`` whenever ``k`` match (no over-fetch-and-drop)."""
    if lexical is None:
        return []
    return lexical.search_with_scores(query, k, predicate)


def hybrid_search(
    store: Any, lexical: Any, query: str, k: int, *, config: HybridConfig = HybridConfig(),
    filter: Any = None, predicate: Optional[Predicate] = None,
) -> list[tuple[Document, float]]:
    """Dense (``store.similarity_search_with_relevance_scores``) and BM25 (``lexical``, may
    be None) results, ``config.per_side(k)`` each, fused: ``(document, fusion score)``,
    best first, at most ``k``. ``filter`` is the store's filter; ``predicate`` the same
    filter compiled for the BM25 side (the caller compiles it once, with the store's
    filter language)."""
    per_side = config.per_side(k)
    if not len(store):
        return fuse([], lexical_ranking(lexical, query, per_side, predicate), config, k, _NO_RESCORE)
    if not config.rescores:
        dense = store.similarity_search_with_relevance_scores(query, k=per_side, filter=filter)
        return fuse(dense, lexical_ranking(lexical, query, per_side, predicate), config, k)
    vector = embed_query_text(store.embeddings, query, dimension=store.dimension)
    dense = store.similarity_search_with_relevance_scores_by_vector(vector, k=per_side, filter=filter)
    rescorers = (rescorer(lambda ids: store.relevance_scores_by_ids(vector, ids)),
                 rescorer(lambda ids: {} if lexical is None else lexical.scores_of(query, ids)))
    return fuse(dense, lexical_ranking(lexical, query, per_side, predicate), config, k, rescorers)


def rescorer(scores_of: Callable[[list[str]], Mapping[str, float]]) -> Rescorer:
    """A :data:`~rag.fusion.Rescorer` over a side's ``scores_of(ids)`` (id -> score, one
    call): a document it does not name (deleted since the other side returned it) scores
    0, the lowest relevance and BM25."""
    def rescore(documents: Sequence[Document]) -> list[float]:
        scores = scores_of([str(document.id) for document in documents])
        return [scores.get(str(document.id), 0.0) for document in documents]
    return rescore


#: Rescorers for a side with no candidates to score (an empty store).
_NO_RESCORE: tuple[Rescorer, Rescorer] = (lambda documents: [0.0] * len(documents),
                                          lambda documents: [0.0] * len(documents))
