"""What the conformance tests share: reference data, brute force, and the store fixtures."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from rag.documents import Document
from rag.embeddings import DeterministicFakeEmbedding, HashingEmbeddings
from stores.base import VectorStore

__all__ = ["DIM", "StoreFixtures", "unit_rows", "brute_force_cosine", "FixedEmbedding", "largest_data_file",
           "shared_fixture"]

#: Dimension of the random test vectors.
DIM = 8

#: For @given tests: the fixtures they use are factories or read-only stores, so sharing them
#: between generated examples is intended; each backend subclass runs the same test method.
shared_fixture = settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.differing_executors]
)


def unit_rows(seed: int, count: int, dim: int = DIM) -> np.ndarray:
    """``count`` random unit vectors (float32), reproducible from ``seed``."""
    rows = np.random.default_rng(seed).normal(size=(count, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def brute_force_cosine(query: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Reference cosine similarities computed in float64."""
    q = query.astype(np.float64) / np.linalg.norm(query)
    r = rows.astype(np.float64) / np.linalg.norm(rows, axis=1, keepdims=True)
    return r @ q


class FixedEmbedding(HashingEmbeddings):
    """Embeds every text as one fixed vector (to search by a known query through text APIs)."""

    def __init__(self, vector: np.ndarray) -> None:
        super().__init__(dim=int(vector.shape[0]))
        self.vector = np.asarray(vector, dtype=np.float32)

    def embed_documents(self, texts):
        return np.tile(self.vector, (len(texts), 1))


def largest_data_file(folder: Path) -> Path:
    """The biggest file of an index folder other than its manifest (to damage it)."""
    return max((p for p in folder.iterdir() if p.name != "manifest.json"), key=lambda p: p.stat().st_size)


class StoreFixtures:
    """The fixtures every capability's tests use; a backend overrides ``make_store``.

    ``exact``: False for approximate indexes, which skips exact agreement with brute force.
    """

    exact: bool = True

    @pytest.fixture
    def make_store(self) -> Callable[[Any], VectorStore]:  # pragma: no cover - overridden
        raise NotImplementedError("a conformance subclass must define the make_store fixture")

    @pytest.fixture
    def construction_options(self) -> dict[str, Any]:
        """Keyword arguments ``from_texts`` needs besides the embeddings (a database
        store's connection, say); a backend overrides this fixture when it needs some."""
        return {}

    @pytest.fixture
    def embedding(self) -> HashingEmbeddings:
        return HashingEmbeddings(dim=64)

    @pytest.fixture
    def store(self, make_store, embedding) -> VectorStore:
        return make_store(embedding)

    @pytest.fixture
    def vector_store(self, make_store) -> VectorStore:
        """A store of 50 random unit vectors with ids "0".."49" and metadata n, parity."""
        store = make_store(DeterministicFakeEmbedding(size=DIM))
        vectors = unit_rows(7, 50)
        documents = [Document(f"doc {i}", {"n": i, "parity": "even" if i % 2 == 0 else "odd"}) for i in range(50)]
        store.add_vectors(vectors, documents, ids=[str(i) for i in range(50)])
        store._test_vectors = vectors  # type: ignore[attr-defined]
        return store
