"""BM25 over an index's segments: postings written once per checkpoint, scored at query time.

Each segment keeps the raw postings of its own chunks (:class:`~rag.bm25.index.Postings`:
term frequencies and chunk lengths), written with it and never rewritten. A query scores
only the live rows (a replaced or deleted chunk's old row is dead), with document
frequencies, chunk count and mean length taken over the live rows of every segment, so the
scores are those of one BM25 index built over the current chunks (Lucene's idf by default).

Why not one precomputed index: precomputed scores depend on the whole corpus (idf, mean
length), so every change would rebuild them all, and building them over every chunk at
the end of an update held a corpus-sized structure in memory. Here a checkpoint analyses
only its own chunks, and an edit writes only the new postings.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from rag.bm25.analysis import Analyzer
from rag.bm25.index import BM25Params, Postings, top_k_scores
from rag.bm25.scoring import term_scores
from rag.documents import Document
from rag.errors import CorruptIndexError
from rag.index.chunk_ids import stored_id

__all__ = ["LEXICAL_FILES", "LexicalSettings", "SegmentedBM25", "postings_files", "postings_from_files"]

#: The files a segment keeps its postings in (absent in segments written before them:
#: their postings are rebuilt from the chunk texts when the index is loaded).
LEXICAL_FILES = ("terms.json", "indptr.npy", "rows.npy", "tf.npy", "lengths.npy")

Predicate = Callable[[Mapping[str, Any]], bool]


@dataclass(frozen=True)
class LexicalSettings:
    """How an index analyses text and scores BM25 (saved in its manifest)."""

    analyzer: Analyzer
    params: BM25Params

    @classmethod
    def default(cls) -> "LexicalSettings":
        return cls(Analyzer(), BM25Params())

    def to_json(self) -> dict[str, Any]:
        return {"analyzer": self.analyzer.to_json(), "params": self.params.to_dict()}

    @classmethod
    def from_json(cls, data: Optional[Mapping[str, Any]]) -> "LexicalSettings":
        if not data:
            return cls.default()
        return cls(Analyzer.from_json(data["analyzer"]), BM25Params.from_dict(data.get("params")))

    def postings(self, texts: Sequence[str]) -> Postings:
        return Postings.build(self.analyzer.analyze_many(texts))


def postings_files(postings: Postings) -> dict[str, Any]:
    """``postings`` as a segment's files (name -> array or JSON-able value)."""
    return {"terms.json": postings.terms, "indptr.npy": postings.indptr, "rows.npy": postings.rows,
            "tf.npy": postings.tf, "lengths.npy": postings.lengths}


def postings_from_files(read: Callable[[str], Any], rows: int, where: str) -> Postings:
    """Postings read back with ``read(filename)``, checked against the segment's ``rows``."""
    postings = Postings(read("terms.json"), read("indptr.npy"), read("rows.npy"), read("tf.npy"), read("lengths.npy"))
    consistent = (
        isinstance(postings.terms, list)
        and postings.indptr.dtype == np.int64 and postings.indptr.shape == (len(postings.terms) + 1,)
        and postings.rows.dtype == np.int32 and postings.tf.dtype == np.uint16
        and postings.rows.shape == postings.tf.shape == (int(postings.indptr[-1]),)
        and postings.lengths.dtype == np.int32 and postings.lengths.shape == (rows,)
        and (postings.rows.size == 0 or (postings.rows.min() >= 0 and postings.rows.max() < rows))
    )
    if not consistent:
        raise CorruptIndexError(f"{where}: the BM25 postings do not fit together or the segment's {rows} chunks")
    return postings


class _Part:
    """Postings of consecutive rows (one segment's, or several merged), with the vocabulary
    as a dict and the first global row."""

    __slots__ = ("columns", "postings", "offset")

    def __init__(self, postings: Postings, offset: int) -> None:
        self.columns = {term: column for column, term in enumerate(postings.terms)}
        self.postings, self.offset = postings, offset

    @property
    def rows(self) -> int:
        return len(self.postings.lengths)


def _merge(parts: Sequence[_Part], live: np.ndarray) -> _Part:
    """Consecutive ``parts`` as one, without the postings of dead rows (a dead row never
    comes back: a rewritten chunk gets a new row)."""
    vocabulary: dict[str, int] = {}
    term_ids, rows, tf = [], [], []
    offset = parts[0].offset
    for part in parts:
        postings = part.postings
        ids = np.fromiter((vocabulary.setdefault(term, len(vocabulary)) for term in postings.terms),
                          dtype=np.int32, count=len(postings.terms))
        global_rows = postings.rows.astype(np.int64) + part.offset
        alive = live[global_rows]
        term_ids.append(np.repeat(ids, np.diff(postings.indptr))[alive])
        rows.append((global_rows[alive] - offset).astype(np.int32))
        tf.append(postings.tf[alive])
    all_terms = np.concatenate(term_ids)
    # Stable: within a term, parts come in row order and each part's rows ascend.
    order = np.argsort(all_terms, kind="stable")
    indptr = np.zeros(len(vocabulary) + 1, dtype=np.int64)
    np.cumsum(np.bincount(all_terms, minlength=len(vocabulary)), out=indptr[1:])
    lengths = np.concatenate([part.postings.lengths for part in parts])
    merged = Postings(list(vocabulary), indptr, np.concatenate(rows)[order], np.concatenate(tf)[order], lengths)
    return _Part(merged, offset)


class SegmentedBM25:
    """BM25 over appended parts, each a segment's postings. Rows are numbered across parts
    in the order they were appended (a chunk rewritten later gets a new row, its old one
    dies), which is also the vector store's order, so ties break the same way on both sides.

    ``lookup(ids)`` returns the stored Documents of chunk ids (the vector store's
    ``get_by_ids``): results and filters read text and metadata from there.
    """

    def __init__(self, settings: LexicalSettings, lookup: Callable[[list[str]], list[Document]]) -> None:
        self.settings, self.lookup = settings, lookup
        self._parts: list[_Part] = []
        self._ids: list[str] = []
        self._row_of: dict[str, int] = {}
        self._live = np.zeros(0, dtype=bool)
        self._lengths = np.zeros(0, dtype=np.int32)
        self._live_length = 0

    def __len__(self) -> int:
        """Live chunks."""
        return len(self._row_of)

    @property
    def parts(self) -> int:
        return len(self._parts)

    def append(self, ids: Sequence[str], postings: Postings, live: Optional[np.ndarray] = None, *,
               settle: bool = True) -> None:
        """Add a segment's rows (``ids`` in row order). ``live`` (bool per row, default all)
        says which rows hold the chunk's current text; a live row supersedes the id's
        earlier row. ``settle``: merge recent parts as they accumulate (see
        :meth:`_settle`); a reader appending many segments passes False and calls
        :meth:`consolidate` once at the end."""
        if len(ids) != len(postings.lengths):
            raise CorruptIndexError(f"{len(ids)} chunk ids for postings of {len(postings.lengths)} chunks")
        live = np.ones(len(ids), dtype=bool) if live is None else np.asarray(live, dtype=bool)
        self.remove([chunk_id for chunk_id, alive in zip(ids, live.tolist()) if alive])
        offset = len(self._ids)
        self._parts.append(_Part(postings, offset))
        self._ids.extend(ids)
        self._live = np.concatenate([self._live, live])
        self._lengths = np.concatenate([self._lengths, postings.lengths])
        for row in np.flatnonzero(live).tolist():
            self._row_of[ids[row]] = offset + row
        self._live_length += int(postings.lengths[live].sum())
        if settle:
            self._settle()

    def _settle(self) -> None:
        """Merge the newest parts while the one before is at most twice as large: a query
        visits O(log n) parts, and each row is merged O(log n) times over its life."""
        while len(self._parts) > 1 and self._parts[-2].rows <= 2 * self._parts[-1].rows:
            self._parts[-2:] = [_merge(self._parts[-2:], self._live)]

    def consolidate(self) -> None:
        """Merge every part into one (a query's cost then no longer grows with the number
        of segments)."""
        if len(self._parts) > 1:
            self._parts = [_merge(self._parts, self._live)]

    def single_part(self) -> Optional[tuple[list[str], Postings]]:
        """``(ids, postings)`` of every row, when they are one part and all live (after
        :meth:`consolidate` of an index built afresh): what a reader can keep and
        :meth:`append` again later; None otherwise."""
        if len(self._parts) != 1 or not bool(self._live.all()):
            return None
        return list(self._ids), self._parts[0].postings

    def remove(self, ids: Sequence[str]) -> None:
        """Mark the rows of these chunk ids dead (unknown ids are ignored)."""
        rows = [row for row in (self._row_of.pop(chunk_id, None) for chunk_id in ids) if row is not None]
        if rows:
            self._live[rows] = False
            self._live_length -= int(self._lengths[rows].sum())

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every row (float64; 0 for dead rows and rows sharing no term)."""
        total = np.zeros(len(self._ids), dtype=np.float64)
        n_live = len(self._row_of)
        if not n_live:
            return total
        params = self.settings.params
        average = self._live_length / n_live if self._live_length else 1.0
        for term, times in Counter(self.settings.analyzer.analyze(query)).items():
            rows, tf = self._postings(term)
            if rows.size == 0:
                continue
            # Document frequency over live rows only: the scores of an index of the current chunks.
            df = np.full(rows.size, float(rows.size))
            total[rows] += times * term_scores(params.method, tf.astype(np.float64), df,
                                               self._lengths[rows].astype(np.float64), n_live, average,
                                               params.k1, params.b)
        return total

    def scores_of(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        """chunk id -> BM25 score of ``query`` for each live chunk of ``ids`` (0 for one
        sharing no term with it; unknown ids left out): what a search that returned the
        chunk would report, whatever its rank."""
        known = [chunk_id for chunk_id in ids if chunk_id in self._row_of]
        if not known:
            return {}
        scores = self.scores(query)
        return dict(zip(known, scores[[self._row_of[chunk_id] for chunk_id in known]].tolist()))

    def _postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Live (global rows, tf) of ``term`` across the parts."""
        rows, tf = [], []
        for part in self._parts:
            column = part.columns.get(term)
            if column is not None:
                span = slice(part.postings.indptr[column], part.postings.indptr[column + 1])
                rows.append(part.postings.rows[span].astype(np.int64) + part.offset)
                tf.append(part.postings.tf[span])
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint16)
        rows_all, tf_all = np.concatenate(rows), np.concatenate(tf)
        alive = self._live[rows_all]
        return rows_all[alive], tf_all[alive]

    def search_with_scores(self, query: str, k: int, predicate: Optional[Predicate] = None) -> list[tuple[Document, float]]:
        """``(chunk, BM25 score)`` of the ``k`` best live chunks sharing a term with
        ``query``, best first (ties: earlier row first), restricted to chunks whose
        metadata satisfies ``predicate``: only matching chunks are ranked, so ``k`` come
        back whenever ``k`` match."""
        scores = self.scores(query)
        if predicate is not None:
            candidates = np.flatnonzero(scores > 0).tolist()
            documents = self._documents(candidates)
            scores[[row for row in candidates if not predicate(documents[self._ids[row]].metadata)]] = 0.0
        best = top_k_scores(scores, k).tolist()
        documents = self._documents(best)
        return [(documents[self._ids[row]], float(scores[row])) for row in best]

    def _documents(self, rows: list[int]) -> dict[str, Document]:
        ids = [self._ids[row] for row in rows]
        found = {stored_id(document): document for document in self.lookup(ids)}
        missing = [chunk_id for chunk_id in ids if chunk_id not in found]
        if missing:
            raise CorruptIndexError(f"BM25 postings name chunks the store does not hold: {missing[:3]}")
        return found
