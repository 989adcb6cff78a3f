"""Deterministic fake embeddings for tests, as LangChain's ``DeterministicFakeEmbedding``."""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

from rag.embeddings.base import Embeddings, _check_int, _check_texts

__all__ = ["DeterministicFakeEmbedding"]


class DeterministicFakeEmbedding(Embeddings):
    """Standard-normal vectors seeded by the text's sha256: same text, same vector.

    Produces the same numbers as LangChain's class of the same name (seed = sha256 of the
    text modulo 10**8, ``numpy.random.default_rng(seed).normal(size=size)``): equal lists
    from ``embed_documents`` / ``embed_query``, and those values as float32 from the
    ``*_array`` methods. Vectors are not normalised. ``size``: vector length, an int >= 1.

    >>> DeterministicFakeEmbedding(size=8).embed_query_array("a").shape
    (8,)
    """

    def __init__(self, size: int) -> None:
        _check_int("size", size)
        self.size = size
        self.dimension = size

    def _vector(self, text: str) -> np.ndarray:
        seed = int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16) % 10**8
        return np.random.default_rng(seed).normal(size=self.size)

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        texts = _check_texts(texts)
        matrix = np.empty((len(texts), self.size), dtype=np.float32)
        for row, text in enumerate(texts):
            matrix[row] = self._vector(text)
        return matrix

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        # float64 lists, not the float32 rows: exactly LangChain's numbers.
        return [self._vector(text).tolist() for text in _check_texts(texts)]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    def embed_query_array(self, text: str) -> np.ndarray:
        return self.embed_documents_array([text])[0]

    def __repr__(self) -> str:
        return f"DeterministicFakeEmbedding(size={self.size})"
