"""BM25Retriever: lexical retrieval with LangChain's constructors, stemming, and no pickle."""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable, Optional, Sequence, Union

import numpy as np

from rag.bm25.analysis import ENGLISH_STOPWORDS, Analyzer
from rag.bm25.index import BM25Index, BM25Params, top_k_scores
from rag.documents import Document
from rag.errors import CorruptIndexError, ValidationError
from rag.persistence import Manifest, read_index_folder, write_index_folder
from rag.retrievers import BaseRetriever
from rag.search_types import check_k

__all__ = ["BM25Retriever"]

Stopwords = Union[str, Iterable[str], None]
_MODEL_ID = "bm25-v1"  # recorded in the manifest; bump when analysis or scoring changes


def _stopword_set(stopwords: Stopwords) -> frozenset[str]:
    if stopwords is None:
        return frozenset()
    if isinstance(stopwords, str):
        if stopwords in ("en", "english"):
            return ENGLISH_STOPWORDS
        raise ValidationError(f"stopwords must be 'en', None or a list of words, got {stopwords!r}")
    words = frozenset(stopwords)
    if not all(isinstance(word, str) for word in words):
        raise ValidationError("stopwords must be strings")
    return words


class BM25Retriever(BaseRetriever):
    """Okapi BM25 over a fixed set of documents: the ``k`` best matches, best first.

    Text is lower-cased, split into words of two or more characters, stripped of English
    stopwords and Snowball-stemmed (``stemmer="english"``; any PyStemmer language, or None).
    ``bm25_params``: ``k1`` (default 1.5), ``b`` (0.75) and ``method`` ("lucene", default;
    "robertson"; "atire"). Scores are precomputed per (term, document), so a query costs a
    few array additions. ``save(path)`` / ``BM25Retriever.load(path)`` use the toolkit's
    index folder format (.npy and JSON, no pickle).

    Differences from LangChain's class: the default analysis is the one above, not
    ``str.split`` (pass ``preprocess_func=str.split`` for LangChain's); documents sharing
    no term with the query are not returned, so fewer than ``k`` may come back; returned
    documents are copies; it needs no ``rank_bm25`` and can be saved without pickle.

    >>> retriever = BM25Retriever.from_texts(["cats purr", "dogs bark", "a cat sleeps"], k=2)
    >>> [d.page_content for d in retriever.invoke("Cat")]
    ['cats purr', 'a cat sleeps']
    """

    def __init__(
        self,
        index: BM25Index,
        docs: Sequence[Document],
        *,
        k: int = 4,
        analyzer: Optional[Analyzer] = None,
        preprocess_func: Optional[Callable[[str], list[str]]] = None,
        tags: Optional[list[str]] = None,
        metadata: Optional[dict[str, Any]] = None,
    ) -> None:
        if index.n_docs != len(docs):
            raise ValidationError(f"the index holds {index.n_docs} documents but {len(docs)} were given")
        if preprocess_func is not None and not callable(preprocess_func):
            raise ValidationError(f"preprocess_func must be callable, got {preprocess_func!r}")
        self.index = index
        self.docs = list(docs)
        self._positions: Optional[dict[str, int]] = None  # id -> position in docs, on first scores_of
        self.k = check_k(k)
        self.analyzer = analyzer if analyzer is not None else Analyzer()
        self.preprocess_func = preprocess_func
        self.tags = tags
        self.metadata = metadata

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_texts(
        cls,
        texts: Iterable[str],
        metadatas: Optional[Iterable[dict]] = None,
        ids: Optional[Iterable[Optional[str]]] = None,
        bm25_params: Optional[dict[str, Any]] = None,
        preprocess_func: Optional[Callable[[str], list[str]]] = None,
        *,
        k: int = 4,
        stemmer: Optional[str] = "english",
        stopwords: Stopwords = "en",
        tags: Optional[list[str]] = None,
        metadata: Optional[dict[str, Any]] = None,
    ) -> "BM25Retriever":
        """Index ``texts`` (with optional ``metadatas`` and ``ids``, one per text)."""
        texts = list(texts)
        for position, text in enumerate(texts):
            if not isinstance(text, str):
                raise ValidationError(f"texts[{position}] must be a str, got {type(text).__name__}")
        metadatas = list(metadatas) if metadatas is not None else [{} for _ in texts]
        ids = list(ids) if ids is not None else [None] * len(texts)
        if len(metadatas) != len(texts) or len(ids) != len(texts):
            raise ValidationError(
                f"got {len(texts)} texts, {len(metadatas)} metadatas and {len(ids)} ids; give one of each per text"
            )
        docs = [Document(text, dict(meta or {}), doc_id) for text, meta, doc_id in zip(texts, metadatas, ids)]
        params = BM25Params.from_dict(bm25_params)
        analyzer = Analyzer(stemmer=stemmer, stopwords=_stopword_set(stopwords))
        terms = [list(preprocess_func(t)) for t in texts] if preprocess_func else analyzer.analyze_many(texts)
        return cls(BM25Index.build(terms, params), docs, k=k, analyzer=analyzer,
                   preprocess_func=preprocess_func, tags=tags, metadata=metadata)

    @classmethod
    def from_documents(
        cls,
        documents: Iterable[Document],
        *,
        bm25_params: Optional[dict[str, Any]] = None,
        preprocess_func: Optional[Callable[[str], list[str]]] = None,
        **kwargs: Any,
    ) -> "BM25Retriever":
        """Index ``documents``' ``page_content``; ``kwargs`` as :meth:`from_texts`."""
        documents = list(documents)
        for position, document in enumerate(documents):
            if not isinstance(document, Document):
                raise ValidationError(f"documents[{position}] must be a Document, got {type(document).__name__}")
        return cls.from_texts(
            [d.page_content for d in documents], [d.metadata for d in documents], [d.id for d in documents],
            bm25_params=bm25_params, preprocess_func=preprocess_func, **kwargs,
        )

    # ------------------------------------------------------------------ searching

    def _terms(self, query: str) -> list[str]:
        return list(self.preprocess_func(query)) if self.preprocess_func else self.analyzer.analyze(query)

    def search_with_scores(
        self, query: str, k: Optional[int] = None, predicate: Optional[Callable[[dict], bool]] = None
    ) -> list[tuple[Document, float]]:
        """``(document, BM25 score)`` pairs, best first; ``k`` defaults to ``self.k``.
        ``predicate``: only documents whose metadata satisfies it are ranked, so ``k``
        come back whenever ``k`` match (no over-fetch-and-drop)."""
        k = check_k(self.k if k is None else k)
        if predicate is None:
            positions, scores = self.index.top_k(self._terms(self._check_query(query)), k)
            return [(self.docs[p].copy(), float(s)) for p, s in zip(positions.tolist(), scores.tolist())]
        all_scores = self.scores(query)
        candidates = np.flatnonzero(all_scores > 0).tolist()
        refused = [p for p in candidates if not predicate(self.docs[p].metadata)]
        all_scores[refused] = 0.0
        return [(self.docs[p].copy(), float(all_scores[p])) for p in top_k_scores(all_scores, k).tolist()]

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every document in ``docs`` for ``query`` (float64, same order)."""
        return self.index.score(self._terms(self._check_query(query)))

    def scores_of(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        """id -> BM25 score of ``query`` for each document of ``ids`` (0 for one sharing no
        term with it; ids no document has are left out): what a search that returned the
        document would report, whatever its rank (hybrid search's union fusions use it)."""
        if self._positions is None:
            self._positions = {doc.id: p for p, doc in enumerate(self.docs) if doc.id is not None}
        known = [doc_id for doc_id in ids if doc_id in self._positions]
        if not known:
            return {}
        scores = self.scores(query)
        return dict(zip(known, scores[[self._positions[doc_id] for doc_id in known]].tolist()))

    def search_positions(self, queries: Sequence[str], k: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """For each query, (positions in ``docs``, scores) of its best ``k``: no copies, for
        evaluations that look up their own ids."""
        k = check_k(k)
        analysed = [list(self.preprocess_func(q)) for q in queries] if self.preprocess_func else self.analyzer.analyze_many(queries)
        results = [self.index.top_k(terms, k) for terms in analysed]
        return [r[0] for r in results], [r[1] for r in results]

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        unknown = sorted(set(kwargs) - {"k"})
        if unknown:
            raise ValidationError(f"BM25Retriever accepts only k as an invoke keyword, got {unknown}")
        return [doc for doc, _ in self.search_with_scores(query, kwargs.get("k"))]

    # ------------------------------------------------------------------ persistence

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Write the retriever to the index folder ``path`` atomically (no pickle)."""
        config = {
            "k": self.k,
            "analyzer": None if self.preprocess_func else self.analyzer.to_json(),
            "bm25": self.index.config(),
        }
        documents = [{"id": d.id, "page_content": d.page_content, "metadata": d.metadata} for d in self.docs]
        manifest = Manifest(store_class=type(self).__name__, model_id=_MODEL_ID, dimension=None, config=config)
        write_index_folder(path, manifest, {"documents": documents, **self.index.sections()})

    @classmethod
    def load(
        cls, path: Union[str, os.PathLike], *, preprocess_func: Optional[Callable[[str], list[str]]] = None
    ) -> "BM25Retriever":
        """Load a folder written by :meth:`save`. An index built with a custom
        ``preprocess_func`` needs the same function again (code is never saved)."""
        folder = read_index_folder(path, store_class=cls.__name__)
        if folder.manifest.model_id != _MODEL_ID:
            raise CorruptIndexError(f"{folder.path} was written by BM25 {folder.manifest.model_id!r}, this is {_MODEL_ID!r}; rebuild it")
        config = folder.manifest.config
        analyzer_json = config.get("analyzer")
        if analyzer_json is None and preprocess_func is None:
            raise ValidationError(
                f"the BM25 index at {folder.path} was built with a custom preprocess_func; "
                "pass the same function: BM25Retriever.load(path, preprocess_func=...)"
            )
        try:
            analyzer = Analyzer.from_json(analyzer_json) if analyzer_json is not None else None
            rows = folder.json("documents")
            docs = [Document(row["page_content"], dict(row["metadata"]), row["id"]) for row in rows]
        except (KeyError, TypeError) as exc:
            raise CorruptIndexError(f"{folder.path}: malformed BM25 configuration or documents: {exc}") from exc
        index = BM25Index.from_sections(folder, config.get("bm25") or {})
        if index.n_docs != len(docs):
            raise CorruptIndexError(f"{folder.path}: {len(docs)} documents for a BM25 index of {index.n_docs}")
        return cls(index, docs, k=int(config.get("k", 4)), analyzer=analyzer,
                   preprocess_func=preprocess_func if analyzer_json is None else None)

    def __repr__(self) -> str:
        return f"BM25Retriever(docs={len(self.docs)}, k={self.k}, params={self.index.params})"
