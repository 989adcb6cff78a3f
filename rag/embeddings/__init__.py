"""Embedding models: the interface, hashing (no dependencies), the local MiniLM model
(``local`` extra), an OpenAI-compatible HTTP client, and a fake for tests."""

from rag._lazy import lazy_exports
from rag.embeddings.base import Embeddings, model_id_of
from rag.embeddings.fake import DeterministicFakeEmbedding
from rag.embeddings.hashing import HashingEmbeddings
from rag.embeddings.local import LocalEmbeddings

# The HTTP client (httpx) is imported on first use of its names (PEP 562): searching an
# index built with the local model never needs it.
__getattr__, __dir__ = lazy_exports(__name__, {
    "rag.embeddings.openai": ["OpenAIEmbeddings", "EmbeddingServiceError"]})


__all__ = [
    "Embeddings",
    "HashingEmbeddings",
    "LocalEmbeddings",
    "OpenAIEmbeddings",
    "EmbeddingServiceError",
    "DeterministicFakeEmbedding",
    "model_id_of",
]
