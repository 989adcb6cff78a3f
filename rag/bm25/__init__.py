"""BM25 lexical retrieval: text analysis, scoring variants, the sparse index and the retriever."""

from rag._lazy import lazy_exports
from rag.bm25.analysis import ENGLISH_STOPWORDS, Analyzer
from rag.bm25.index import BM25Index, BM25Params


# The retriever brings the Runnable machinery: imported on first use (PEP 562), so an
# index scoring BM25 from its own postings (``rag search``) does without it.
__getattr__, __dir__ = lazy_exports(__name__, {"rag.bm25.retriever": ["BM25Retriever"]})


__all__ = ["BM25Retriever", "BM25Index", "BM25Params", "Analyzer", "ENGLISH_STOPWORDS"]
