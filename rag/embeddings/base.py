"""The Embeddings interface: text to float32 vectors."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from typing import Any, Sequence

import numpy as np

from rag.errors import ValidationError
from rag.vectors import as_matrix, as_vector

__all__ = ["Embeddings", "model_id_of", "embed_texts", "embed_query_text"]


class Embeddings(ABC):
    """Turns texts into vectors. Subclasses implement :meth:`embed_documents` only.

    ``embed_documents(texts)`` returns a float32 array of shape (len(texts), dimension);
    ``embed_query(text)`` one row of shape (dimension,). ``model_id`` names the model and
    its dimension; indexes record it so that a query is never embedded by another model.
    """

    #: Length of every vector, when known before embedding anything.
    dimension: int | None = None

    @abstractmethod
    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``; returns float32 (len(texts), dimension)."""

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query; returns float32 (dimension,)."""
        return np.asarray(self.embed_documents([text]), dtype=np.float32)[0]

    async def aembed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Async :meth:`embed_documents`, run in a worker thread (the work is CPU-bound)."""
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> np.ndarray:
        """Async :meth:`embed_query`, run in a worker thread."""
        return await asyncio.to_thread(self.embed_query, text)

    @property
    def model_id(self) -> str:
        """Identity recorded in indexes; default: class name and dimension."""
        return f"{type(self).__name__}-{self.dimension}"


def model_id_of(embedding: Any) -> str:
    """The ``model_id`` of any embeddings object (LangChain's have none: use the class name)."""
    model_id = getattr(embedding, "model_id", None)
    return str(model_id) if model_id else type(embedding).__name__


def _check_int(name: str, value: Any, *, low: int = 1, high: int | None = None, allow_none: bool = False) -> None:
    """ValidationError, showing ``value``, unless it is an int (not a bool) in
    [``low``, ``high``] (no upper bound when ``high`` is None), or None when ``allow_none``."""
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        limit = f"between {low} and {high}" if high is not None else f">= {low}"
        raise ValidationError(f"{name} must be an int {limit}{' or None' if allow_none else ''}, got {value!r}")


def _check_texts(texts: Any) -> list[str]:
    if isinstance(texts, str):
        raise ValidationError(
            f"texts must be a list of strings, got a single string {texts!r:.60}; wrap it in a list"
        )
    texts = list(texts)
    for position, text in enumerate(texts):
        if not isinstance(text, str):
            raise ValidationError(
                f"texts[{position}] must be a str, got {type(text).__name__}: {text!r:.60}"
            )
    return texts


def embed_texts(embedding: Any, texts: Sequence[str], *, dimension: int | None = None) -> np.ndarray:
    """Embed with any embeddings object (ours or LangChain's) and validate the result.

    Returns float32 (len(texts), dim); raises when the model returns the wrong number of
    rows, ragged rows, NaN, or a dimension other than ``dimension``.
    """
    texts = _check_texts(texts)
    if not texts:
        return np.empty((0, dimension or 0), dtype=np.float32)
    matrix = as_matrix(embedding.embed_documents(texts), dimension=dimension, name="embeddings")
    if matrix.shape[0] != len(texts):
        raise ValidationError(
            f"{model_id_of(embedding)} returned {matrix.shape[0]} vectors for {len(texts)} texts"
        )
    return matrix


def embed_query_text(embedding: Any, text: str, *, dimension: int | None = None) -> np.ndarray:
    """Embed one query with any embeddings object and validate it (float32, finite)."""
    if not isinstance(text, str):
        raise ValidationError(f"query must be a str, got {type(text).__name__}: {text!r:.60}")
    return as_vector(embedding.embed_query(text), dimension=dimension, name="query embedding")
