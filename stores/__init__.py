"""Vector stores: the shared VectorStore base and its backends."""

from stores.base import VectorStore
from stores.faiss import FAISS
from stores.memory import InMemoryVectorStore
from stores.scoring import DistanceStrategy

__all__ = ["VectorStore", "InMemoryVectorStore", "FAISS", "DistanceStrategy"]
