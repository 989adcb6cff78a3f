"""Each package re-exports an explicit __all__, and every listed name exists."""

import importlib

import pytest

PACKAGES = [
    "rag",
    "rag.embeddings",
    "rag.runnables",
    "rag.retrievers",
    "rag.messages",
    "rag.prompts",
    "rag.parsers",
    "rag.models",
    "rag.graph",
    "rag.graph.checkpoint",
    "rag.graph.types",
    "rag.graph.errors",
    "rag.graph.message",
    "rag.graph.config",
    "rag.memory",
    "rag.agents",
    "rag.agents.errors",
    "rag.bm25",
    "rag.evaluation",
    "rag.cli",
    "rag.index",
    "rag.persistence",
    "rag.search_types",
    "rag.serve",
    "stores",
    "stores.faiss",
    "stores.filters",
    "stores.pgvector",
    "stores.milvus",
    "stores.testing",
    "loaders",
    "loaders.selection",
    "splitters",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_every_name_in_all_is_importable(name):
    module = importlib.import_module(name)
    assert isinstance(module.__all__, (list, tuple))
    missing = [item for item in module.__all__ if not hasattr(module, item)]
    assert missing == []


def test_the_foundation_names_are_public():
    from rag import Document  # noqa: F401
    from rag.embeddings import DeterministicFakeEmbedding, Embeddings, HashingEmbeddings  # noqa: F401
    from rag.retrievers import BaseRetriever, VectorStoreRetriever  # noqa: F401
    from rag.runnables import Runnable, RunnableLambda  # noqa: F401
    from stores import InMemoryVectorStore, VectorStore  # noqa: F401
