"""Embedding models: the interface, hashing (no dependencies) and a fake for tests."""

from rag.embeddings.base import Embeddings, model_id_of
from rag.embeddings.fake import DeterministicFakeEmbedding
from rag.embeddings.hashing import HashingEmbeddings

__all__ = ["Embeddings", "HashingEmbeddings", "DeterministicFakeEmbedding", "model_id_of"]
