"""Fusion of ranked lists, by rank (reciprocal-rank fusion) or by score (each list's
scores normalised, then added): pure functions, shared by hybrid search
(:mod:`rag.hybrid`) and :class:`~rag.ensemble.EnsembleRetriever` (which re-exports them).

A module of its own so that searching an index imports no retriever machinery
(runnables, callbacks, asyncio): ``rag search`` starts faster.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Callable, Hashable, Optional, Sequence

import numpy as np

from rag.documents import Document
from rag.errors import NotFoundError, ValidationError

__all__ = ["weighted_reciprocal_rank", "normalized_score_fusion", "union_score_fusion", "fusion_key",
           "SCORE_NORMALIZATIONS", "Rescorer"]

#: A side's true scores of documents it did not return: ``rescore(documents)`` gives one
#: score per document, in that order, in the side's own units (a dense side's relevance,
#: a lexical side's BM25; a document the side cannot find scores that side's lowest
#: possible score, 0 for both). One call per side and query: a database's one round trip.
Rescorer = Callable[[Sequence[Document]], Sequence[float]]


def fusion_key(document: Document, id_key: Optional[str], use_ids: bool) -> Hashable:
    """What makes two results "the same document": ``metadata[id_key]`` when ``id_key``
    is set, else the document id when ``use_ids``, else the text."""
    if id_key is not None:
        try:
            return document.metadata[id_key]
        except KeyError:
            raise NotFoundError(
                f"id_key={id_key!r} is not in a retrieved document's metadata "
                f"(keys: {sorted(document.metadata)}): {document.page_content[:60]!r}"
            ) from None
    return document.id if use_ids else document.page_content


def weighted_reciprocal_rank(
    doc_lists: Sequence[Sequence[Document]], weights: Sequence[float], c: float = 60, id_key: Optional[str] = None
) -> list[tuple[Document, float]]:
    """Fuse ranked lists: a document scores the sum over lists of ``weight / (rank + c)``
    (rank from 1). Returns each distinct document once, as first seen, with its score,
    best first; equal scores keep first-seen order.

    Documents are matched by ``metadata[id_key]``; without ``id_key``, by id when every
    document has one, else by text (Cormack et al., SIGIR 2009, with weights).

    >>> a, b = Document("a"), Document("b")
    >>> [(d.page_content, round(s, 4)) for d, s in weighted_reciprocal_rank([[a, b], [b]], [0.5, 0.5], c=0)]
    [('b', 0.75), ('a', 0.5)]
    """
    if len(doc_lists) != len(weights):
        raise ValidationError(f"got {len(doc_lists)} ranked lists for {len(weights)} weights")
    use_ids = id_key is None and all(doc.id for docs in doc_lists for doc in docs)
    scores: dict[Hashable, float] = defaultdict(float)
    first_seen: dict[Hashable, Document] = {}
    for docs, weight in zip(doc_lists, weights):
        for rank, document in enumerate(docs, start=1):
            key = fusion_key(document, id_key, use_ids)
            scores[key] += weight / (rank + c)
            first_seen.setdefault(key, document)
    # sorted() is stable, and dicts keep insertion order: ties stay in first-seen order.
    return [(first_seen[key], scores[key]) for key in sorted(first_seen, key=lambda key: -scores[key])]


#: How each side's scores are put on one scale before they are added (see
#: :func:`normalized_score_fusion`).
SCORE_NORMALIZATIONS = ("zscore", "minmax")


def _normalized(scores: np.ndarray, method: str) -> np.ndarray:
    """``scores`` of one side's candidates on a common scale: standard deviations from
    their mean (``zscore``) or the fraction of their range (``minmax``). Candidates that
    all score alike (one candidate, or zero variance) are all 0 (zscore) or all 1
    (minmax): the side then says nothing about their order, only that they are its
    candidates (see :func:`_absent`)."""
    if scores.size == 0:
        return scores
    if method == "zscore":
        spread = float(scores.std())
        return (scores - scores.mean()) / spread if spread > 0 else np.zeros_like(scores)
    low, high = float(scores.min()), float(scores.max())
    return (scores - low) / (high - low) if high > low else np.ones_like(scores)


def _absent(normalized: np.ndarray, method: str) -> float:
    """The normalised score of a document missing from a side: as good as the side's
    lowest candidate (it ranked below all of them); when the candidates all score alike
    (one lexical match, say), one step below them (-1 for zscore, 0 for minmax), so that
    being a candidate still counts."""
    if float(normalized.max()) > float(normalized.min()):
        return float(normalized.min())
    return -1.0 if method == "zscore" else 0.0


def normalized_score_fusion(
    scored_lists: Sequence[Sequence[tuple[Document, float]]], weights: Sequence[float], method: str = "zscore",
    id_key: Optional[str] = None,
) -> list[tuple[Document, float]]:
    """Fuse ranked lists by their scores, each put on one scale first.

    Each list's scores are normalised over that list's own candidates (``zscore``: standard
    deviations from their mean; ``minmax``: the fraction of their range), so a BM25 score
    and a cosine relevance can be added. A document's fused score is the weighted mean of
    its normalised scores; in a list it is missing from, it counts as that list's lowest
    candidate (it ranked below all of them there), or, when that list's candidates all
    score alike, one step below them (-1 in standard deviations, 0 of the range); a list
    with no candidates is left out.
    The result is mapped to [0, 1]:
    ``minmax`` is there already; a ``zscore`` mean ``z`` becomes ``Phi(z)``, the standard
    normal distribution function (0.5 for a document as good as the average candidate).
    Returns each distinct document once with that score, best first; equal scores keep
    first-seen order (the first list first). Documents are matched as by
    :func:`weighted_reciprocal_rank`.

    >>> a, b, c = Document("a"), Document("b"), Document("c")
    >>> dense, lexical = [(a, 0.9), (b, 0.7), (c, 0.5)], [(b, 12.0), (c, 3.0)]
    >>> [(d.page_content, round(s, 2)) for d, s in normalized_score_fusion([dense, lexical], [0.5, 0.5], "minmax")]
    [('b', 0.75), ('a', 0.5), ('c', 0.0)]
    """
    if len(scored_lists) != len(weights):
        raise ValidationError(f"got {len(scored_lists)} ranked lists for {len(weights)} weights")
    if method not in SCORE_NORMALIZATIONS:
        raise ValidationError(f"method must be one of {', '.join(SCORE_NORMALIZATIONS)}, got {method!r}")
    documents, rows = _union(scored_lists, id_key)
    total = np.zeros(len(documents), dtype=np.float64)
    # A list with no candidates (a query none of whose words the lexical side knows) says
    # nothing: it is left out of the mean rather than lowering every document alike.
    weight_sum = float(sum(weight for docs, weight in zip(scored_lists, weights) if docs))
    for docs, row, weight in zip(scored_lists, rows, weights):
        if not weight or not docs:
            continue
        normalized = _normalized(np.asarray([float(score) for _, score in docs], dtype=np.float64), method)
        side = np.full(len(documents), _absent(normalized, method))
        side[row] = normalized
        total += weight * side
    return _ranked(documents, total / weight_sum if weight_sum > 0 else total, method)


def _union(scored_lists: Sequence[Sequence[tuple[Document, float]]], id_key: Optional[str]
           ) -> tuple[list[Document], list[list[int]]]:
    """Each distinct document once, in first-seen order (the first list first), and for
    each list the positions of its documents in that order. Documents are matched as by
    :func:`weighted_reciprocal_rank`."""
    use_ids = id_key is None and all(doc.id for docs in scored_lists for doc, _ in docs)
    position: dict[Hashable, int] = {}  # key -> position in first-seen order
    documents: list[Document] = []
    rows: list[list[int]] = []
    for docs in scored_lists:
        row = []
        for document, _ in docs:
            key = fusion_key(document, id_key, use_ids)
            if key not in position:
                position[key] = len(documents)
                documents.append(document)
            row.append(position[key])
        rows.append(row)
    return documents, rows


def _ranked(documents: list[Document], fused: np.ndarray, method: str,
            best_rank: Optional[np.ndarray] = None) -> list[tuple[Document, float]]:
    """``documents`` best first by ``fused`` (a weighted mean of normalised scores), each
    with its score mapped to [0, 1] (``zscore``: ``Phi``); equal scores by ``best_rank``
    (lower first) when given, then in first-seen order."""
    # Sums that are equal in exact arithmetic (two candidates whose z-scores cancel) can
    # differ in the last bits, by an amount that depends on the sides' scale: ordering on
    # the sums rounded to 1e-9 makes such ties ties, so the order never depends on a
    # side's units. Normalised scores are O(1), so 1e-9 is far below any real difference.
    fused = np.round(fused, 9)
    if method == "zscore":
        fused = np.asarray([0.5 * (1.0 + math.erf(z / math.sqrt(2.0))) for z in fused.tolist()])
    if best_rank is None:
        order = np.argsort(-fused, kind="stable")  # stable: ties keep first-seen order
    else:
        order = np.lexsort((np.arange(len(documents)), best_rank, -fused))
    return [(documents[i], float(fused[i])) for i in order.tolist()]


def union_score_fusion(
    scored_lists: Sequence[Sequence[tuple[Document, float]]], weights: Sequence[float],
    rescorers: Sequence[Rescorer], method: str = "zscore", id_key: Optional[str] = None,
) -> list[tuple[Document, float]]:
    """Fuse ranked lists by every side's true score of every candidate.

    The candidates are the union of the lists (each distinct document once). A candidate
    a list did not return gets that side's true score from its rescorer (``rescorers[i]``
    for list ``i``, called once with all of that side's missing candidates, and not at all
    when there are none): a chunk holding no query term scores 0 for BM25, a chunk dense
    search ranked lower scores its own relevance. Each side's scores are then normalised
    over the whole union (``zscore``: standard deviations from the mean; ``minmax``: the
    fraction of the range), and a candidate's fused score is the weighted mean of its
    normalised scores. Unlike :func:`normalized_score_fusion`, nothing is estimated: a
    document is not "as good as the side's lowest candidate" but as good as it is.

    Scores of one side within a millionth of its range of each other (``SNAP``, chained)
    are made equal first: that is float32 noise (stores compute relevance in float32, and
    PostgreSQL returns the same cosine a last digit apart for two equally similar chunks).

    Sides that are left out of the mean: one with weight 0 (not rescored either); one
    that returned no candidates (a lexical side that knows none of the query's words:
    every chunk scores 0 there); one whose scores are all equal over the union (one
    candidate, or zero variance: it cannot order them). When every side is left out, each
    candidate scores the middle of the scale (0.5), in the tie order below.

    Fused scores are in [0, 1]: ``minmax`` means are there already; a ``zscore`` mean
    ``z`` becomes ``Phi(z)``, the standard normal distribution function (0.5 for a
    candidate as good as the union's average). Each side's normalisation makes the result
    independent of its scale and offset (``a * score + b``, ``a > 0``). Returns each
    candidate once, best first. Equal fused scores (to 1e-9) go first to the candidate
    some list ranked higher (its best position in any list), then in first-seen order,
    the first list first. Exact ties do happen: a rare term one chunk alone holds, that
    chunk far below near-identical dense matches, is the mirror image of the dense side,
    and the z-scores cancel; the chunk the lexical side put first then comes right after
    the dense side's first, not behind its 20th.

    >>> a, b, c = Document("a", id="a"), Document("b", id="b"), Document("c", id="c")
    >>> dense, lexical = [(a, 0.9), (b, 0.5)], [(c, 4.0), (b, 3.0)]
    >>> true_dense = lambda docs: [{"c": 0.1}[d.id] for d in docs]  # c: dense search ranked it lower
    >>> true_lexical = lambda docs: [{"a": 0.0}[d.id] for d in docs]  # a: holds no query term
    >>> fused = union_score_fusion([dense, lexical], [0.5, 0.5], [true_dense, true_lexical], "minmax")
    >>> [(d.id, round(s, 3)) for d, s in fused]
    [('b', 0.625), ('a', 0.5), ('c', 0.5)]
    """
    if not len(scored_lists) == len(weights) == len(rescorers):
        raise ValidationError(f"got {len(scored_lists)} ranked lists for {len(weights)} weights and "
                              f"{len(rescorers)} rescorers")
    if method not in SCORE_NORMALIZATIONS:
        raise ValidationError(f"method must be one of {', '.join(SCORE_NORMALIZATIONS)}, got {method!r}")
    documents, rows = _union(scored_lists, id_key)
    # Each candidate's best position in any list: the tie-break (see the docstring).
    best_rank = np.full(len(documents), np.iinfo(np.int64).max, dtype=np.int64)
    for row in rows:
        if row:
            np.minimum.at(best_rank, row, np.arange(len(row)))
    total = np.zeros(len(documents), dtype=np.float64)
    weight_sum = 0.0
    for docs, row, weight, rescore in zip(scored_lists, rows, weights, rescorers):
        if not weight or not docs:
            continue
        side = _snapped(_true_scores(docs, row, rescore, documents))
        if float(side.max()) == float(side.min()):
            continue  # all alike over the union: this side cannot order the candidates
        total += weight * _normalized(side, method)
        weight_sum += weight
    if weight_sum == 0:
        # No side orders the candidates: the middle of the scale (Phi(0), or half the range).
        return _ranked(documents, np.zeros(len(documents)) if method == "zscore" else np.full(len(documents), 0.5),
                       method, best_rank)
    return _ranked(documents, total / weight_sum, method, best_rank)


#: Scores of one side closer than this fraction of its range (chained) count as equal.
SNAP = 1e-6


def _snapped(scores: np.ndarray) -> np.ndarray:
    """``scores`` with near-equal values made equal: sorted, a value within :data:`SNAP`
    of the range of the one before takes the lowest value of its run. Stores compute
    relevance in float32 (about 7 digits), and the same cosine comes back a last digit
    apart from PostgreSQL for two equally similar chunks: without this, that noise, divided
    by a small standard deviation, would decide the order of candidates that are equal."""
    span = float(scores.max() - scores.min()) if scores.size else 0.0
    if span <= 0:
        return scores
    order = np.argsort(scores, kind="stable")
    ascending = scores[order]
    starts = np.concatenate([[True], np.diff(ascending) > SNAP * span])
    snapped = np.empty_like(scores)
    snapped[order] = ascending[starts][np.cumsum(starts) - 1]
    return snapped


def _true_scores(docs: Sequence[tuple[Document, float]], row: list[int], rescore: Rescorer,
                 documents: list[Document]) -> np.ndarray:
    """One side's score of every candidate: its own for the ones it returned, the
    rescorer's for the others (one call)."""
    own = np.asarray([float(score) for _, score in docs], dtype=np.float64)
    if not np.isfinite(own).all():
        raise ValidationError(f"scores to fuse must be finite numbers, got {own[~np.isfinite(own)][:3].tolist()}")
    side = np.full(len(documents), np.nan)
    side[row] = own
    missing = np.flatnonzero(np.isnan(side))
    if missing.size:
        found = [float(score) for score in rescore([documents[i] for i in missing.tolist()])]
        if len(found) != missing.size:
            raise ValidationError(f"a rescorer gave {len(found)} scores for {missing.size} documents")
        side[missing] = found
    if not np.isfinite(side).all():
        raise ValidationError(f"scores to fuse must be finite numbers, got {side[~np.isfinite(side)][:3].tolist()}")
    return side
