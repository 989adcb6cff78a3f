"""BM25 lexical retrieval: text analysis, scoring variants, the sparse index and the retriever."""

from importlib import import_module
from typing import Any

from rag.bm25.analysis import ENGLISH_STOPWORDS, Analyzer
from rag.bm25.index import BM25Index, BM25Params


def __getattr__(name: str) -> Any:
    # The retriever brings the Runnable machinery: imported on first use (PEP 562), so an
    # index scoring BM25 from its own postings (``rag search``) does without it.
    if name != "BM25Retriever":
        raise AttributeError(f"module 'rag.bm25' has no attribute {name!r}")
    value = globals()[name] = import_module("rag.bm25.retriever").BM25Retriever
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"BM25Retriever"})


__all__ = ["BM25Retriever", "BM25Index", "BM25Params", "Analyzer", "ENGLISH_STOPWORDS"]
