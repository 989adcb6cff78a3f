"""Similarity, top-k selection and relevance scores: pure numpy functions.

Relevance scores are always in [0, 1] and grow with similarity. For unit vectors the
relevance is ``clip(cosine, 0, 1)`` whatever the distance strategy, so one threshold means
the same thing on every store (LangChain's euclidean relevance goes negative and its
inner-product relevance is inverted). For vectors that are not unit length:

- euclidean: ``1 / (1 + distance)`` (distance = sqrt of the squared L2 faiss returns);
- inner product: the logistic function ``1 / (1 + exp(-ip))``.
"""

from __future__ import annotations

from enum import Enum

import numpy as np

__all__ = [
    "DistanceStrategy",
    "row_norms",
    "cosine_similarity",
    "top_k",
    "relevance_from_cosine",
    "relevance_from_squared_l2",
    "relevance_from_inner_product",
    "rows_are_unit",
]

UNIT_TOLERANCE = 1e-3


class DistanceStrategy(str, Enum):
    """How a store compares vectors (LangChain's names and values)."""

    EUCLIDEAN_DISTANCE = "EUCLIDEAN_DISTANCE"
    MAX_INNER_PRODUCT = "MAX_INNER_PRODUCT"
    DOT_PRODUCT = "DOT_PRODUCT"
    JACCARD = "JACCARD"
    COSINE = "COSINE"


def row_norms(matrix: np.ndarray) -> np.ndarray:
    """L2 norm of each row of a 2-D array, without an n x d temporary."""
    return np.sqrt(np.einsum("ij,ij->i", matrix, matrix))


def rows_are_unit(matrix: np.ndarray, tolerance: float = UNIT_TOLERANCE) -> bool:
    """True when every row has L2 norm within ``tolerance`` of 1 (an empty matrix is unit)."""
    if matrix.size == 0:
        return True
    squared = np.einsum("ij,ij->i", matrix, matrix)  # no n x d temporary, unlike linalg.norm
    # |norm - 1| <= t  <=>  (1 - t)^2 <= norm^2 <= (1 + t)^2
    return bool(np.all((squared >= (1 - tolerance) ** 2) & (squared <= (1 + tolerance) ** 2)))


def _normalized(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    # Zero vectors have no direction: their cosine with anything is 0, never NaN.
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def cosine_similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of each row of ``a`` (m, d) with each row of ``b`` (n, d): (m, n).

    Values in [-1, 1]; a zero row gives 0 (LangChain's helper does the same).
    """
    a = np.atleast_2d(np.asarray(a))
    b = np.atleast_2d(np.asarray(b))
    dtype = np.result_type(a.dtype, b.dtype, np.float32)  # float64 stays float64
    a, b = a.astype(dtype, copy=False), b.astype(dtype, copy=False)
    return _normalized(a) @ _normalized(b).T


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the ``k`` largest scores of each row, best first.

    ``scores`` is (q, n); returns int64 (q, min(k, n)). Ties go to the lower index, so
    results are deterministic. Uses argpartition: O(n) per row plus O(k log k).
    """
    scores = np.atleast_2d(scores)
    n = scores.shape[1]
    k = min(k, n)
    if k <= 0:
        return np.empty((scores.shape[0], 0), dtype=np.int64)
    if k < n:
        part = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        # argpartition breaks ties at the k-th score arbitrarily; rows where a tie straddles
        # the cut (rare with real scores) are redone with a stable sort so the lower index wins.
        kth = np.take_along_axis(scores, part, axis=1).min(axis=1, keepdims=True)
        straddling = (scores == kth).sum(axis=1) != (np.take_along_axis(scores, part, axis=1) == kth).sum(axis=1)
        for row in np.flatnonzero(straddling):
            part[row] = np.argsort(-scores[row], kind="stable")[:k]
    else:
        part = np.broadcast_to(np.arange(n), scores.shape).copy()
    part_scores = np.take_along_axis(scores, part, axis=1)
    # lexsort: primary key descending score, secondary ascending index (stable ties).
    order = np.lexsort((part, -part_scores), axis=1)
    return np.take_along_axis(part, order, axis=1).astype(np.int64)


def relevance_from_cosine(similarity: np.ndarray) -> np.ndarray:
    """Cosine similarity in [-1, 1] to relevance ``clip(s, 0, 1)``."""
    return np.clip(similarity, 0.0, 1.0)


def relevance_from_squared_l2(squared_distance: np.ndarray, unit_vectors: bool) -> np.ndarray:
    """Squared euclidean distance (as faiss returns it) to relevance in [0, 1].

    Unit vectors: ``cosine = 1 - d²/2``, so relevance is ``clip(1 - d²/2, 0, 1)``.
    Otherwise: ``1 / (1 + d)`` with ``d = sqrt(d²)``, which is 1 at distance 0 and falls
    monotonically towards 0.
    """
    squared = np.maximum(np.asarray(squared_distance, dtype=np.float32), 0.0)
    if unit_vectors:
        return np.clip(1.0 - squared / 2.0, 0.0, 1.0)
    return 1.0 / (1.0 + np.sqrt(squared))


def relevance_from_inner_product(inner_product: np.ndarray, unit_vectors: bool) -> np.ndarray:
    """Inner product to relevance in [0, 1], higher product = more relevant.

    Unit vectors: the product is the cosine, so ``clip(ip, 0, 1)``. Otherwise the product is
    unbounded and mapped by the logistic function ``1 / (1 + exp(-ip))``, monotone, 0.5 at 0.
    """
    product = np.asarray(inner_product, dtype=np.float32)
    if unit_vectors:
        return np.clip(product, 0.0, 1.0)
    return (1.0 / (1.0 + np.exp(-product.astype(np.float64)))).astype(np.float32)
