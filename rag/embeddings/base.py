"""The Embeddings interface: text to vectors, as LangChain's lists or as float32 numpy."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Sequence

import numpy as np

from rag._threads import to_thread
from rag.errors import ValidationError
from rag.vectors import as_matrix, as_vector

__all__ = ["Embeddings", "model_id_of", "embed_texts", "embed_query_text"]


class Embeddings(ABC):
    """Turns texts into vectors, with LangChain's interface and a numpy one.

    LangChain's methods return plain lists, as LangChain's do (``==`` compares them,
    ``json.dumps`` writes them): ``embed_documents(texts)`` -> ``list[list[float]]``,
    ``embed_query(text)`` -> ``list[float]`` (and their async twins). The ``*_array`` twins
    return float32 numpy instead, (len(texts), dimension) and (dimension,); the stores and
    the indexer call those, so no list is ever built on the hot path.

    A subclass implements one of ``embed_documents_array`` (numpy) or ``embed_documents``
    (lists, a class written for LangChain); the other is derived from it when the class is
    defined. Likewise, optionally, ``embed_query`` / ``embed_query_array`` (default: embed
    the query as a one-text batch) and the async methods (default: the sync one in a worker
    thread). Whichever of a pair a class defines itself wins over what its bases define, so
    overriding LangChain's ``embed_documents`` in a subclass of a model of ours changes
    what the stores get too. ``model_id`` names the model and its dimension; indexes record
    it so that a query is never embedded by another model.

    >>> from rag.embeddings import HashingEmbeddings
    >>> vector = HashingEmbeddings(dim=4).embed_query("hi")
    >>> type(vector).__name__, len(vector)
    ('list', 4)
    >>> HashingEmbeddings(dim=4).embed_query_array("hi").dtype
    dtype('float32')
    """

    #: Length of every vector, when known before embedding anything.
    dimension: int | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = vars(cls)
        for lists_name, array_name in _TWINS:
            if lists_name in own and array_name not in own:
                setattr(cls, array_name, _ARRAY_FROM_LISTS[lists_name](own[lists_name]))
            elif array_name in own and lists_name not in own:
                setattr(cls, lists_name, _LISTS_FROM_ARRAY[array_name](own[array_name]))

    @abstractmethod
    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``; returns float32 (len(texts), dimension)."""

    @abstractmethod
    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed ``texts``; returns one list of floats per text (LangChain's shape)."""

    def embed_query_array(self, text: str) -> np.ndarray:
        """Embed one query; returns float32 (dimension,)."""
        return self.embed_documents_array([text])[0]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query; returns a list of floats (LangChain's shape)."""
        return self.embed_query_array(text).tolist()

    async def aembed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        """Async :meth:`embed_documents_array`, in a worker thread (the work is CPU-bound)."""
        return await to_thread(self.embed_documents_array, texts)

    async def aembed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Async :meth:`embed_documents`, in a worker thread."""
        return await to_thread(self.embed_documents, texts)

    async def aembed_query_array(self, text: str) -> np.ndarray:
        """Async :meth:`embed_query_array`, in a worker thread."""
        return await to_thread(self.embed_query_array, text)

    async def aembed_query(self, text: str) -> list[float]:
        """Async :meth:`embed_query`, in a worker thread."""
        return await to_thread(self.embed_query, text)

    @property
    def model_id(self) -> str:
        """Identity recorded in indexes; default: class name and dimension."""
        return f"{type(self).__name__}-{self.dimension}"


# ---------------------------------------------------------------------- the derived twins
# Each derived method calls the function its class defined (not ``self.<name>``), so a
# subclass that overrides one twin and calls ``super()`` never loops back into itself.


def _matrix_of(function: Any) -> Any:
    def embed_documents_array(self: Any, texts: Sequence[str]) -> np.ndarray:
        return as_matrix(function(self, texts), name="embeddings")

    return embed_documents_array


def _lists_of(function: Any) -> Any:
    def embed_documents(self: Any, texts: Sequence[str]) -> list[list[float]]:
        return function(self, texts).tolist()

    return embed_documents


def _vector_of(function: Any) -> Any:
    def embed_query_array(self: Any, text: str) -> np.ndarray:
        return as_vector(function(self, text), name="query embedding")

    return embed_query_array


def _list_of(function: Any) -> Any:
    def embed_query(self: Any, text: str) -> list[float]:
        return function(self, text).tolist()

    return embed_query


def _amatrix_of(function: Any) -> Any:
    async def aembed_documents_array(self: Any, texts: Sequence[str]) -> np.ndarray:
        return as_matrix(await function(self, texts), name="embeddings")

    return aembed_documents_array


def _alists_of(function: Any) -> Any:
    async def aembed_documents(self: Any, texts: Sequence[str]) -> list[list[float]]:
        return (await function(self, texts)).tolist()

    return aembed_documents


def _avector_of(function: Any) -> Any:
    async def aembed_query_array(self: Any, text: str) -> np.ndarray:
        return as_vector(await function(self, text), name="query embedding")

    return aembed_query_array


def _alist_of(function: Any) -> Any:
    async def aembed_query(self: Any, text: str) -> list[float]:
        return (await function(self, text)).tolist()

    return aembed_query


_TWINS = (("embed_documents", "embed_documents_array"), ("embed_query", "embed_query_array"),
          ("aembed_documents", "aembed_documents_array"), ("aembed_query", "aembed_query_array"))
_ARRAY_FROM_LISTS = {"embed_documents": _matrix_of, "embed_query": _vector_of,
                     "aembed_documents": _amatrix_of, "aembed_query": _avector_of}
_LISTS_FROM_ARRAY = {"embed_documents_array": _lists_of, "embed_query_array": _list_of,
                     "aembed_documents_array": _alists_of, "aembed_query_array": _alist_of}


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
    # Ours return numpy directly; LangChain's (and any object without the twin) return lists.
    embed = getattr(embedding, "embed_documents_array", None) or embedding.embed_documents
    matrix = as_matrix(embed(texts), dimension=dimension, name="embeddings")
    if matrix.shape[0] != len(texts):
        raise ValidationError(
            f"{model_id_of(embedding)} returned {matrix.shape[0]} vectors for {len(texts)} texts"
        )
    return matrix


def embed_query_text(embedding: Any, text: str, *, dimension: int | None = None) -> np.ndarray:
    """Embed one query with any embeddings object and validate it (float32, finite)."""
    if not isinstance(text, str):
        raise ValidationError(f"query must be a str, got {type(text).__name__}: {text!r:.60}")
    embed = getattr(embedding, "embed_query_array", None) or embedding.embed_query
    return as_vector(embed(text), dimension=dimension, name="query embedding")
