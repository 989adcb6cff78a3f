"""BM25 lexical retrieval: text analysis, scoring variants, the sparse index and the retriever."""

from rag.bm25.analysis import ENGLISH_STOPWORDS, Analyzer
from rag.bm25.index import BM25Index, BM25Params
from rag.bm25.retriever import BM25Retriever

__all__ = ["BM25Retriever", "BM25Index", "BM25Params", "Analyzer", "ENGLISH_STOPWORDS"]
