"""rag: retrieval-augmented question answering over vector stores, offline first."""

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
