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
    text modulo 10**8, ``numpy.random.default_rng(seed).normal(size=size)``), as float32.
    Vectors are not normalised. ``size``: vector length, an int >= 1.

    >>> DeterministicFakeEmbedding(size=8).embed_query("a").shape
    (8,)
    """

    def __init__(self, size: int) -> None:
        _check_int("size", size)
        self.size = size
        self.dimension = size

    def _vector(self, text: str) -> np.ndarray:
        seed = int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16) % 10**8
        return np.random.default_rng(seed).normal(size=self.size)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = _check_texts(texts)
        matrix = np.empty((len(texts), self.size), dtype=np.float32)
        for row, text in enumerate(texts):
            matrix[row] = self._vector(text)
        return matrix

    def __repr__(self) -> str:
        return f"DeterministicFakeEmbedding(size={self.size})"
