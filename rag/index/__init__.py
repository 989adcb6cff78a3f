"""The index as a library: the application core that the ``rag`` command, the server and
agents share.

An index holds a vector store, a lexical index and the record of what was indexed, kept in
a folder (saved atomically together) or in a database (PostgreSQL + pgvector, Milvus)
named by its URI; every operation is the same on each. Open or create one, update it incrementally from
files, folders, web pages or BEIR corpora, search it (hybrid, similarity, MMR, threshold,
BM25), get a retriever for chains and tools, and answer questions with numbered sources,
offline or with a chat model. It returns data and never prints::

    from rag.index import Index

    index = Index.open_or_create("my-index")          # a folder; or "postgresql://me@db/kb"
    summary = index.update(["docs/"])                 # added / updated / unchanged / deleted / failed
    for chunk, score in index.search("how do I rotate keys?", k=5):
        print(score, chunk.metadata["source"])
    answer = index.ask("How do I rotate keys?")       # answer.answer, answer.sources
"""

from typing import TYPE_CHECKING

from rag._lazy import lazy_exports

if TYPE_CHECKING:  # what a type checker sees (the __getattr__ below would give it Any)
    from rag.hybrid import HybridConfig
    from rag.index.answer import Answer, IndexRetriever, Source
    from rag.index.bench import BENCH_TYPES, bench_dataset, bench_index
    from rag.index.chat import ChatSession, condense_question
    from rag.index.config import SEARCH_TYPES, IndexConfig, SearchType
    from rag.index.core import Index
    from rag.index.info import IndexInfo
    from rag.index.registry import (EmbeddingModel, StoreBackend, default_embedding_spec, make_embeddings,
                                    register_embeddings, register_store, store_backend, store_names)
    from rag.index.request import SearchRequest
    from rag.index.state import default_index_path
    from rag.index.summary import UpdateSummary

# Names are imported on first use (PEP 562): ``rag search`` needs the index's core, not the
# updater (loaders, BeautifulSoup, splitters), the answerer (chains) or the benchmark, and
# ``import rag.index.config`` should not bring them either.
__getattr__, __dir__ = lazy_exports(__name__, {
    "rag.hybrid": ["HybridConfig"],
    "rag.index.answer": ["Answer", "IndexRetriever", "Source"],
    "rag.index.chat": ["ChatSession", "condense_question"],
    "rag.index.bench": ["BENCH_TYPES", "bench_dataset", "bench_index"],
    "rag.index.config": ["SEARCH_TYPES", "IndexConfig", "SearchType"],
    "rag.index.core": ["Index"],
    "rag.index.info": ["IndexInfo"],
    "rag.index.request": ["SearchRequest"],
    "rag.index.registry": ["EmbeddingModel", "StoreBackend", "default_embedding_spec", "make_embeddings",
                           "register_embeddings", "register_store", "store_backend", "store_names"],
    "rag.index.state": ["default_index_path"],
    "rag.index.summary": ["UpdateSummary"],
}, submodules=["answer", "chat", "dryrun", "update"])  # named by rag.index.core's type hints


__all__ = [
    "Index",
    "IndexInfo",
    "IndexConfig",
    "HybridConfig",
    "UpdateSummary",
    "Answer",
    "Source",
    "IndexRetriever",
    "SearchRequest",
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
