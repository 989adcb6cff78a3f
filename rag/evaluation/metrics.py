"""Retrieval metrics for one query, as pure functions of a ranking and graded judgements.

``ranking``: document ids, best first (duplicates ignored after their first place).
``judgements``: {document id: grade}; a grade > 0 means relevant. Formulas follow trec_eval:
nDCG uses linear gain (grade / log2(rank + 1)); average precision divides by all relevant
documents, retrieved or not. Every function returns a float in [0, 1]; 0 when the query
has no relevant document.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from rag.errors import ValidationError

__all__ = ["ndcg_at_k", "recall_at_k", "reciprocal_rank_at_k", "average_precision_at_k", "precision_at_k"]

Judgements = Mapping[str, float]


def _top(ranking: Sequence[str], k: int) -> list[str]:
    if k < 1:
        raise ValidationError(f"k must be >= 1, got {k}")
    return list(dict.fromkeys(ranking))[:k]


def _relevant(judgements: Judgements) -> set[str]:
    return {doc for doc, grade in judgements.items() if grade > 0}


def ndcg_at_k(ranking: Sequence[str], judgements: Judgements, k: int) -> float:
    """Normalised discounted cumulative gain of the top ``k``, linear gain.

    >>> round(ndcg_at_k(["b", "a"], {"a": 1}, 10), 4)   # 1/log2(3) over 1/log2(2)
    0.6309
    """
    dcg = sum(judgements.get(doc, 0) / math.log2(rank + 1) for rank, doc in enumerate(_top(ranking, k), 1)
              if judgements.get(doc, 0) > 0)
    ideal_grades = sorted((g for g in judgements.values() if g > 0), reverse=True)[:k]
    idcg = sum(grade / math.log2(rank + 1) for rank, grade in enumerate(ideal_grades, 1))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranking: Sequence[str], judgements: Judgements, k: int) -> float:
    """Share of the relevant documents found in the top ``k``."""
    relevant = _relevant(judgements)
    return len(relevant.intersection(_top(ranking, k))) / len(relevant) if relevant else 0.0


def precision_at_k(ranking: Sequence[str], judgements: Judgements, k: int) -> float:
    """Share of the top ``k`` places holding a relevant document (empty places count)."""
    return len(_relevant(judgements).intersection(_top(ranking, k))) / k


def reciprocal_rank_at_k(ranking: Sequence[str], judgements: Judgements, k: int) -> float:
    """1 / rank of the first relevant document in the top ``k``, else 0."""
    relevant = _relevant(judgements)
    return next((1.0 / rank for rank, doc in enumerate(_top(ranking, k), 1) if doc in relevant), 0.0)


def average_precision_at_k(ranking: Sequence[str], judgements: Judgements, k: int) -> float:
    """Mean of precision@rank over the ranks of relevant documents in the top ``k``,
    divided by the number of relevant documents (trec_eval's ``map_cut``)."""
    relevant = _relevant(judgements)
    if not relevant:
        return 0.0
    hits, total = 0, 0.0
    for rank, doc in enumerate(_top(ranking, k), 1):
        if doc in relevant:
            hits += 1
            total += hits / rank
    return total / len(relevant)
