"""Embedding models: the interface, hashing (no dependencies), the local MiniLM model
(``local`` extra), an OpenAI-compatible HTTP client, and a fake for tests."""

from rag.embeddings.base import Embeddings, model_id_of
from rag.embeddings.fake import DeterministicFakeEmbedding
from rag.embeddings.hashing import HashingEmbeddings
from rag.embeddings.local import LocalEmbeddings
from rag.embeddings.openai import EmbeddingServiceError, OpenAIEmbeddings

__all__ = [
    "Embeddings",
    "HashingEmbeddings",
    "LocalEmbeddings",
    "OpenAIEmbeddings",
    "EmbeddingServiceError",
    "DeterministicFakeEmbedding",
    "model_id_of",
]
