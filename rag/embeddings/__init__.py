"""Embedding models: the interface, hashing (no dependencies), the local MiniLM model
(``local`` extra), an OpenAI-compatible HTTP client, and a fake for tests."""

from importlib import import_module
from typing import Any

from rag.embeddings.base import Embeddings, model_id_of
from rag.embeddings.fake import DeterministicFakeEmbedding
from rag.embeddings.hashing import HashingEmbeddings
from rag.embeddings.local import LocalEmbeddings

# The HTTP client (httpx) is imported on first use of its names (PEP 562): searching an
# index built with the local model never needs it.
_LAZY = {"OpenAIEmbeddings": "rag.embeddings.openai", "EmbeddingServiceError": "rag.embeddings.openai"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rag.embeddings' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "Embeddings",
    "HashingEmbeddings",
    "LocalEmbeddings",
    "OpenAIEmbeddings",
    "EmbeddingServiceError",
    "DeterministicFakeEmbedding",
    "model_id_of",
]
