"""Hashing embeddings: a dependency-free, deterministic bag of words and bigrams."""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from functools import lru_cache
from typing import Sequence

import numpy as np

from rag.embeddings.base import Embeddings, _check_int, _check_texts

__all__ = ["HashingEmbeddings"]

_WORD = re.compile(r"\w+")


# A small cache: frequent words and bigrams hit it; a large one (2**18 entries were about
# 80 MiB) grew with the corpus's vocabulary and dominated the memory of indexing with it.
@lru_cache(maxsize=1 << 14)
def _bucket(token: str, dimension: int) -> tuple[int, float]:
    # blake2b, not hash(): Python salts str hashes per process, which would make vectors
    # differ between the process that indexed and the one that queries.
    digest = int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "little")
    sign = -1.0 if digest >> 63 else 1.0
    return digest % dimension, sign


class HashingEmbeddings(Embeddings):
    """Feature hashing of lower-cased word unigrams and bigrams into ``dim`` signed buckets.

    Each term weighs ``1 + ln(tf)`` (sublinear term frequency); its bucket and sign come from
    blake2b, so vectors are identical across processes and machines. Rows are L2-normalised;
    a text with no words maps to the zero vector. No model, no network.

    ``dim``: vector length, an int >= 2, default 1024.

    >>> emb = HashingEmbeddings(dim=256)
    >>> emb.embed_query_array("Vector stores index embeddings").shape
    (256,)
    """

    def __init__(self, dim: int = 1024) -> None:
        _check_int("dim", dim, low=2)
        self.dim = dim
        self.dimension = dim

    @property
    def model_id(self) -> str:
        # The version suffix changes if tokenisation or weighting ever does, so old indexes
        # are refused instead of being queried with incompatible vectors.
        return f"HashingEmbeddings-{self.dim}-v1"

    def _terms(self, text: str) -> Counter[str]:
        words = _WORD.findall(text.lower())
        terms = Counter(words)
        terms.update(f"{a} {b}" for a, b in zip(words, words[1:]))
        return terms

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        texts = _check_texts(texts)
        rows: list[int] = []
        cols: list[int] = []
        values: list[float] = []
        for row, text in enumerate(texts):
            for term, count in self._terms(text).items():
                bucket, sign = _bucket(term, self.dim)
                rows.append(row)
                cols.append(bucket)
                values.append(sign * (1.0 + math.log(count)))
        matrix = np.zeros((len(texts), self.dim), dtype=np.float32)
        # add.at accumulates collisions (two terms in one bucket) instead of overwriting.
        np.add.at(matrix, (np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)),
                  np.asarray(values, dtype=np.float32))
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        np.divide(matrix, norms, out=matrix, where=norms > 0)
        return matrix

    def __repr__(self) -> str:
        return f"HashingEmbeddings(dim={self.dim})"
