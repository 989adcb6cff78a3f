"""Maximal marginal relevance, vectorised."""

from __future__ import annotations

import numpy as np

from rag.search_types import check_fraction

__all__ = ["maximal_marginal_relevance", "check_lambda_mult"]


def check_lambda_mult(lambda_mult: float) -> float:
    """``lambda_mult`` as a float in [0, 1] (0 = most diverse, 1 = most relevant)."""
    return check_fraction(lambda_mult, "lambda_mult")


def maximal_marginal_relevance(
    query: np.ndarray, candidates: np.ndarray, lambda_mult: float = 0.5, k: int = 4
) -> list[int]:
    """Indices of ``min(k, len(candidates))`` candidates chosen by MMR, in selection order.

    Each step picks the candidate maximising
    ``lambda_mult * cos(query, c) - (1 - lambda_mult) * max(cos(c, s) for s in selected)``;
    the first pick is the most similar to the query, and ties go to the lowest index. This
    selects the same candidates in the same order as LangChain's
    ``maximal_marginal_relevance``, at O(k·n) numpy work instead of O(k²·n) Python loops.
    """
    lambda_mult = check_lambda_mult(lambda_mult)
    # float64 throughout, so near-ties resolve as they do in LangChain's float64 lists.
    candidates = np.atleast_2d(np.asarray(candidates, dtype=np.float64))
    query = np.asarray(query, dtype=np.float64)
    n = candidates.shape[0] if candidates.size else 0
    count = min(k, n)
    if count <= 0:
        return []
    unit = _unit_rows(candidates)
    to_query = unit @ _unit_rows(query[None, :])[0]
    # Similarities to the selected candidates are computed one matrix-vector product per
    # pick (O(k·n·d)) rather than as the full n x n matrix: less work, and a gemv stays
    # single-threaded, so it does not fight faiss's OpenMP threads for the cores.
    chosen = [int(np.argmax(to_query))]
    redundancy = unit @ unit[chosen[0]]
    available = np.ones(n, dtype=bool)
    available[chosen[0]] = False
    while len(chosen) < count:
        score = lambda_mult * to_query - (1.0 - lambda_mult) * redundancy
        score[~available] = -np.inf
        pick = int(np.argmax(score))  # argmax returns the first maximum: lowest index wins
        chosen.append(pick)
        available[pick] = False
        np.maximum(redundancy, unit @ unit[pick], out=redundancy)
    return chosen


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    # A zero row has no direction: its cosine with anything is 0 (as LangChain's helper).
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
