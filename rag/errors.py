"""The exception tree.

Every error the toolkit raises on purpose derives from :class:`RagError` and also from
the builtin a LangChain user would already catch, so ``except ValueError`` keeps working::

    RagError
    ├── ValidationError(ValueError)        bad argument or input value
    │   └── DimensionMismatchError         vector of the wrong length
    ├── EmbeddingMismatchError(ValueError) index built with another embedding model
    ├── NotFoundError(KeyError)            a name or id that is required but absent
    ├── StorageError(OSError)              reading or writing an index folder failed
    │   └── CorruptIndexError              folder truncated, tampered with or of another version
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
    "MissingDependencyError",
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


class CorruptIndexError(StorageError):
    """An index folder is incomplete, altered, or written by an unsupported format version."""


class MissingDependencyError(RagError, ImportError):
    """An optional extra is not installed; the message gives the ``pip install`` command."""
