"""BM25 scoring variants as pure numpy functions (Kamphuis et al., ECIR 2020 naming).

Each variant is an ``idf(df, n_docs)`` and a ``tf_component(tf, doc_len, avg_len, k1, b)``;
a term's score in a document is their product. All take and return numpy arrays.
"""

from __future__ import annotations

from typing import Callable, Literal

import numpy as np

__all__ = ["Method", "METHODS", "idf_lucene", "idf_robertson", "idf_atire", "tf_saturation", "tf_atire", "term_scores"]

Method = Literal["lucene", "robertson", "atire"]


def idf_lucene(df: np.ndarray, n_docs: int) -> np.ndarray:
    """Lucene's idf, ln(1 + (N - df + 0.5) / (df + 0.5)): always > 0."""
    return np.log1p((n_docs - df + 0.5) / (df + 0.5))


def idf_robertson(df: np.ndarray, n_docs: int) -> np.ndarray:
    """Robertson's idf, ln((N - df + 0.5) / (df + 0.5)), floored at 0 (a term in more than
    half the documents would otherwise count against them)."""
    return np.log(np.maximum((n_docs - df + 0.5) / (df + 0.5), 1.0))


def idf_atire(df: np.ndarray, n_docs: int) -> np.ndarray:
    """ATIRE's idf, ln(N / df)."""
    return np.log(n_docs / df)


def tf_saturation(tf: np.ndarray, doc_len: np.ndarray, avg_len: float, k1: float, b: float) -> np.ndarray:
    """tf / (tf + k1 (1 - b + b |d| / avg|d|)), in [0, 1): Lucene's and Robertson's."""
    return tf / (tf + k1 * (1.0 - b + b * doc_len / avg_len))


def tf_atire(tf: np.ndarray, doc_len: np.ndarray, avg_len: float, k1: float, b: float) -> np.ndarray:
    """ATIRE's tf component, (k1 + 1) times :func:`tf_saturation`."""
    return (k1 + 1.0) * tf_saturation(tf, doc_len, avg_len, k1, b)


_IdfFunction = Callable[[np.ndarray, int], np.ndarray]
_TfFunction = Callable[[np.ndarray, np.ndarray, float, float, float], np.ndarray]

METHODS: dict[str, tuple[_IdfFunction, _TfFunction]] = {
    "lucene": (idf_lucene, tf_saturation),
    "robertson": (idf_robertson, tf_saturation),
    "atire": (idf_atire, tf_atire),
}


def term_scores(
    method: str, tf: np.ndarray, df: np.ndarray, doc_len: np.ndarray, n_docs: int, avg_len: float, k1: float, b: float
) -> np.ndarray:
    """BM25 score of each (term, document) posting: arrays aligned element-wise.

    ``tf``: term frequency in the document; ``df``: documents holding the term;
    ``doc_len``: the document's token count; ``avg_len`` > 0.

    >>> # ln(1 + 1.5 / 1.5) * 1 / (1 + 1.5 * 1.0) = ln 2 * 0.4
    >>> float(term_scores("lucene", np.array([1.0]), np.array([1.0]), np.array([3.0]), 2, 3.0, 1.5, 0.75)[0])
    0.2772588722239781
    """
    idf, tf_component = METHODS[method]
    return idf(df, n_docs) * tf_component(tf, doc_len, avg_len, k1, b)
