"""The BM25 index: precomputed term scores in a compressed sparse column layout.

Every (term, document) posting's BM25 score is computed once at indexing ("eager" scoring,
as bm25s does), so a query only adds up the score columns of its terms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from rag.bm25.scoring import METHODS, term_scores
from rag.errors import CorruptIndexError, ValidationError

__all__ = ["BM25Params", "BM25Index", "Postings", "top_k_scores"]


@dataclass(frozen=True)
class BM25Params:
    """BM25 constants. ``k1`` >= 0 (default 1.5): term-frequency saturation; ``b`` in [0, 1]
    (default 0.75): document-length normalisation; ``method``: "lucene" (default),
    "robertson" or "atire" (see :mod:`rag.bm25.scoring`).

    >>> BM25Params.from_dict({"k1": 1.2})
    BM25Params(k1=1.2, b=0.75, method='lucene')
    """

    k1: float = 1.5
    b: float = 0.75
    method: str = "lucene"

    def __post_init__(self) -> None:
        for name, value in (("k1", self.k1), ("b", self.b)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
                raise ValidationError(f"bm25_params[{name!r}] must be a number, got {value!r}")
        if self.k1 < 0:
            raise ValidationError(f"bm25_params['k1'] must be >= 0, got {self.k1!r}")
        if not 0 <= self.b <= 1:
            raise ValidationError(f"bm25_params['b'] must be between 0 and 1, got {self.b!r}")
        if self.method not in METHODS:
            raise ValidationError(f"bm25_params['method'] must be one of {sorted(METHODS)}, got {self.method!r}")

    @classmethod
    def from_dict(cls, params: Optional[dict[str, Any]]) -> "BM25Params":
        params = dict(params or {})
        unknown = sorted(set(params) - {"k1", "b", "method"})
        if unknown:
            raise ValidationError(f"unknown bm25_params {unknown}; valid keys are ['b', 'k1', 'method']")
        return cls(**params)

    def to_dict(self) -> dict[str, Any]:
        return {"k1": float(self.k1), "b": float(self.b), "method": self.method}


def top_k_scores(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` highest positive scores, best first; ties by position.

    Documents scoring 0 share no term with the query and are never returned.
    """
    positive = np.flatnonzero(scores > 0)
    if positive.size > k:
        # argpartition finds a superset cheaply; the exact order (and ties) come from lexsort.
        cut = np.partition(scores[positive], positive.size - k)[positive.size - k]
        positive = positive[scores[positive] >= cut]
    order = np.lexsort((positive, -scores[positive]))
    return positive[order[:k]]


@dataclass(frozen=True)
class Postings:
    """Term frequencies of analysed documents in a compressed sparse column layout: the
    postings of term ``t`` (``terms[t]``) are ``rows[indptr[t]:indptr[t + 1]]`` (document
    positions, int32, ascending) with their counts ``tf`` (uint16, saturating at 65,535);
    ``lengths`` (int32) is each document's number of terms.

    The one place documents become postings: :class:`BM25Index` turns them into eager
    scores, the index's segments keep them raw so that scores follow the live corpus.
    """

    terms: list[str]
    indptr: np.ndarray
    rows: np.ndarray
    tf: np.ndarray
    lengths: np.ndarray

    @classmethod
    def build(cls, corpus_terms: Sequence[Sequence[str]]) -> "Postings":
        vocabulary: dict[str, int] = {}
        term_ids = np.fromiter(
            (vocabulary.setdefault(term, len(vocabulary)) for terms in corpus_terms for term in terms),
            dtype=np.int64,
        )
        n_docs = len(corpus_terms)
        lengths = np.fromiter((len(terms) for terms in corpus_terms), dtype=np.int64, count=n_docs)
        token_docs = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
        # One sort groups postings by term, then document: the CSC order, with counts as tf.
        keys, tf = np.unique(term_ids * max(n_docs, 1) + token_docs, return_counts=True)
        posting_terms, posting_docs = np.divmod(keys, max(n_docs, 1))
        indptr = np.zeros(len(vocabulary) + 1, dtype=np.int64)
        np.cumsum(np.bincount(posting_terms, minlength=len(vocabulary)), out=indptr[1:])
        return cls(list(vocabulary), indptr, posting_docs.astype(np.int32),
                   np.minimum(tf, np.iinfo(np.uint16).max).astype(np.uint16), lengths.astype(np.int32))


class BM25Index:
    """Term scores of a fixed corpus of analysed documents (lists of terms).

    ``indptr`` (terms + 1, int64), ``doc_ids`` (postings, int32) and ``scores`` (postings,
    float32) are the CSC matrix of term-by-document scores; ``vocabulary`` maps a term to
    its column.

    >>> index = BM25Index.build([["cat", "sat"], ["dog"]], BM25Params())
    >>> index.top_k(["cat"], 2)[0].tolist()
    [0]
    """

    def __init__(
        self, vocabulary: list[str], indptr: np.ndarray, doc_ids: np.ndarray, scores: np.ndarray,
        n_docs: int, params: BM25Params,
    ) -> None:
        self.terms = vocabulary
        self.vocabulary = {term: column for column, term in enumerate(vocabulary)}
        self.indptr, self.doc_ids, self.scores = indptr, doc_ids, scores
        self.n_docs = n_docs
        self.params = params

    @classmethod
    def build(cls, corpus_terms: Sequence[Sequence[str]], params: BM25Params) -> "BM25Index":
        """Index ``corpus_terms`` (one list of terms per document)."""
        table = Postings.build(corpus_terms)
        n_docs = len(table.lengths)
        df = np.diff(table.indptr)
        posting_terms = np.repeat(np.arange(len(table.terms), dtype=np.int64), df)
        avg_len = float(table.lengths.mean()) if n_docs and table.lengths.sum() else 1.0
        scores = term_scores(
            params.method, table.tf.astype(np.float64), df[posting_terms].astype(np.float64),
            table.lengths[table.rows].astype(np.float64), n_docs, avg_len, params.k1, params.b,
        ).astype(np.float32)
        return cls(table.terms, table.indptr, table.rows, scores, n_docs, params)

    def score(self, query_terms: Sequence[str]) -> np.ndarray:
        """BM25 score of every document for the query (float64, length n_docs).

        A term repeated in the query counts as many times; unknown terms add nothing.
        """
        columns = [self.vocabulary[t] for t in query_terms if t in self.vocabulary]
        if not columns:
            return np.zeros(self.n_docs, dtype=np.float64)
        slices = [slice(self.indptr[c], self.indptr[c + 1]) for c in columns]
        docs = np.concatenate([self.doc_ids[s] for s in slices])
        weights = np.concatenate([self.scores[s] for s in slices])
        return np.bincount(docs, weights=weights, minlength=self.n_docs)

    def top_k(self, query_terms: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """(document positions, scores) of the ``k`` best documents with a positive score."""
        scores = self.score(query_terms)
        best = top_k_scores(scores, k)
        return best, scores[best]

    # ------------------------------------------------------------------ persistence

    def sections(self, prefix: str = "bm25") -> dict[str, Any]:
        """The index as on-disk sections (numpy arrays and a JSON vocabulary)."""
        return {
            f"{prefix}_indptr": self.indptr,
            f"{prefix}_doc_ids": self.doc_ids,
            f"{prefix}_scores": self.scores,
            f"{prefix}_vocabulary": self.terms,
        }

    def config(self) -> dict[str, Any]:
        return {"n_docs": self.n_docs, "params": self.params.to_dict()}

    @classmethod
    def from_sections(cls, folder: Any, config: dict[str, Any], prefix: str = "bm25") -> "BM25Index":
        """Rebuild from an opened :class:`~rag.persistence.IndexFolder`, checking shapes."""
        try:
            params = BM25Params.from_dict(config["params"])
            n_docs = int(config["n_docs"])
        except (KeyError, TypeError, ValidationError) as exc:
            raise CorruptIndexError(f"{folder.path}: bad BM25 configuration: {exc}") from exc
        vocabulary = folder.json(f"{prefix}_vocabulary")
        indptr = folder.array(f"{prefix}_indptr")
        doc_ids = folder.array(f"{prefix}_doc_ids")
        scores = folder.array(f"{prefix}_scores")
        consistent = (
            isinstance(vocabulary, list)
            and indptr.dtype == np.int64 and indptr.shape == (len(vocabulary) + 1,)
            and doc_ids.dtype == np.int32 and scores.dtype == np.float32
            and doc_ids.shape == scores.shape == (int(indptr[-1]),)
            and (doc_ids.size == 0 or (0 <= doc_ids.min() and doc_ids.max() < n_docs))
            and int(indptr[0]) == 0 and bool(np.all(np.diff(indptr) >= 0))
        )
        if not consistent:
            raise CorruptIndexError(f"{folder.path}: the BM25 arrays do not fit together; rebuild the index")
        return cls(vocabulary, indptr, doc_ids, scores, n_docs, params)
