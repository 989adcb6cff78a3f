"""The exception tree.

Every error the toolkit raises on purpose derives from :class:`RagError` and also from
the builtin a LangChain user would already catch, so ``except ValueError`` keeps working::

    RagError
    ├── ValidationError(ValueError)        bad argument or input value
    │   └── DimensionMismatchError         vector of the wrong length
    ├── EmbeddingMismatchError(ValueError) index built with another embedding model
    ├── NotFoundError(KeyError)            a name or id that is required but absent
    ├── StorageError(OSError)              reading or writing an index folder failed
    │   ├── CorruptIndexError              folder truncated, tampered with or of another version
    │   └── IndexNotFoundError(FileNotFoundError)  no index at the path given
    ├── FetchError(OSError)                a URL could not be fetched (``url``, ``status``)
    │   └── PageNotFoundError(FileNotFoundError)  the server answered 404 or 410
    ├── EmbeddingServiceError(RuntimeError)  an embeddings server failed (``status_code``)
    ├── APIError                           a chat model server failed (tree in rag.models.errors)
    └── MissingDependencyError(ImportError) an optional extra is not installed
"""

from __future__ import annotations

__all__ = [
    "RagError",
    "ValidationError",
    "DimensionMismatchError",
    "EmbeddingMismatchError",
    "NotFoundError",
    "StorageError",
    "CorruptIndexError",
    "IndexNotFoundError",
    "MissingDependencyError",
    "FetchError",
    "PageNotFoundError",
    "EmbeddingServiceError",
]


class RagError(Exception):
    """Root of every error raised on purpose by this toolkit."""


class ValidationError(RagError, ValueError):
    """An argument or input value is not what was expected; the message shows it."""


class DimensionMismatchError(ValidationError):
    """A vector's length differs from the dimension the store or model uses."""


class EmbeddingMismatchError(RagError, ValueError):
    """An index was built with another embedding model (``model_id``) or dimension."""


class NotFoundError(RagError, KeyError):
    """A required key, id or variable is absent."""

    def __str__(self) -> str:
        # KeyError's str() is the repr of its argument; keep the message readable.
        return str(self.args[0]) if self.args else ""


class StorageError(RagError, OSError):
    """An index folder could not be read or written."""


class IndexNotFoundError(StorageError, FileNotFoundError):
    """No index folder at the path given (the message says how to create one)."""


class CorruptIndexError(StorageError):
    """An index folder is incomplete, altered, or written by an unsupported format version."""


class MissingDependencyError(RagError, ImportError):
    """An optional extra is not installed; the message gives the ``pip install`` command."""


class FetchError(RagError, OSError):
    """A URL could not be fetched: connection error, timeout, HTTP error status, size cap.

    ``url`` is the URL requested and ``status`` the final HTTP status (None when no
    response arrived). Subclasses OSError, as ``requests``' errors do.
    """

    def __init__(self, message: str, *, url: str, status: int | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.status = status


class PageNotFoundError(FetchError, FileNotFoundError):
    """The server answered 404 or 410: like a missing file, it is a FileNotFoundError."""


class EmbeddingServiceError(RagError, RuntimeError):
    """The embeddings server refused a request or answered something unusable.

    ``status_code`` is the HTTP status (None for a connection failure or a malformed body).
    """

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code

