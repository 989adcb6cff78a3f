"""rag: retrieval-augmented question answering over vector stores, offline first."""

from rag._lazy import lazy_exports
from rag.documents import Document
from rag.errors import (
    APIError,
    CorruptIndexError,
    DimensionMismatchError,
    EmbeddingMismatchError,
    EmbeddingServiceError,
    FetchError,
    IndexNotFoundError,
    InvalidTypeError,
    MissingDependencyError,
    NotFoundError,
    PageNotFoundError,
    RagError,
    RequestRefusedError,
    StorageError,
    UsageError,
    ValidationError,
)

# rag.retrievers (and rag.embeddings, rag.persistence, rag.runnables) on first attribute access: type hints name
# rag.retrievers.VectorStoreRetriever without importing it (and the Runnable machinery).
__getattr__, __dir__ = lazy_exports(__name__, {}, submodules=["embeddings", "persistence", "retrievers", "runnables"])

__all__ = [
    "Document",
    "RagError",
    "ValidationError",
    "DimensionMismatchError",
    "InvalidTypeError",
    "EmbeddingMismatchError",
    "NotFoundError",
    "StorageError",
    "CorruptIndexError",
    "IndexNotFoundError",
    "MissingDependencyError",
    "FetchError",
    "PageNotFoundError",
    "RequestRefusedError",
    "UsageError",
    "APIError",
    "EmbeddingServiceError",
]
