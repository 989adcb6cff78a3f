"""The index as a library: the application core that the ``rag`` command, the server and
agents share.

An index is a folder holding a vector store, a BM25 index and the record of what was
indexed, saved atomically together. Open or create one, update it incrementally from
files, folders, web pages or BEIR corpora, search it (hybrid, similarity, MMR, threshold,
BM25), get a retriever for chains and tools, and answer questions with numbered sources,
offline or with a chat model. It returns data and never prints::

    from rag.index import Index

    index = Index.open_or_create("my-index")          # local MiniLM model when installed
    summary = index.update(["docs/"])                 # added / updated / unchanged / deleted / failed
    for chunk, score in index.search("how do I rotate keys?", k=5):
        print(score, chunk.metadata["source"])
    answer = index.ask("How do I rotate keys?")       # answer.answer, answer.sources
"""

from importlib import import_module
from typing import Any

# Names are imported on first use (PEP 562): ``rag search`` needs the index's core, not the
# updater (loaders, BeautifulSoup, splitters), the answerer (chains) or the benchmark, and
# ``import rag.index.config`` should not bring them either.
_MODULES = {
    "HybridConfig": "rag.hybrid",
    "Answer": "rag.index.answer", "IndexRetriever": "rag.index.answer", "Source": "rag.index.answer",
    "ChatSession": "rag.index.chat", "condense_question": "rag.index.chat",
    "BENCH_TYPES": "rag.index.bench", "bench_dataset": "rag.index.bench", "bench_index": "rag.index.bench",
    "SEARCH_TYPES": "rag.index.config", "IndexConfig": "rag.index.config", "SearchType": "rag.index.config",
    "Index": "rag.index.core", "IndexInfo": "rag.index.info",
    "EmbeddingModel": "rag.index.registry", "StoreBackend": "rag.index.registry",
    "default_embedding_spec": "rag.index.registry", "make_embeddings": "rag.index.registry",
    "register_embeddings": "rag.index.registry", "register_store": "rag.index.registry",
    "store_backend": "rag.index.registry", "store_names": "rag.index.registry",
    "default_index_path": "rag.index.state",
    "UpdateSummary": "rag.index.update",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'rag.index' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_MODULES))


__all__ = [
    "Index",
    "IndexInfo",
    "IndexConfig",
    "HybridConfig",
    "UpdateSummary",
    "Answer",
    "Source",
    "IndexRetriever",
    "ChatSession",
    "condense_question",
    "SearchType",
    "SEARCH_TYPES",
    "BENCH_TYPES",
    "bench_index",
    "bench_dataset",
    "StoreBackend",
    "EmbeddingModel",
    "register_store",
    "register_embeddings",
    "store_backend",
    "store_names",
    "make_embeddings",
    "default_embedding_spec",
    "default_index_path",
]
