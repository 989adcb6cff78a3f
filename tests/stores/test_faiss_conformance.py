"""FAISS runs the shared store conformance suite: flat (exact) and approximate variants."""

import pytest

from stores import FAISS
from stores.faiss import DistanceStrategy
from stores.testing import VectorStoreConformance


class _Persisting(VectorStoreConformance):
    def save(self, store, path):
        store.save_local(path.parent, index_name=path.name)

    def load(self, store_class, path, embedding):
        return store_class.load_local(path.parent, embedding, index_name=path.name)


class TestFlatEuclidean(_Persisting):
    @pytest.fixture
    def make_store(self):
        return lambda embedding: FAISS(embedding)


class TestFlatInnerProductNormalized(_Persisting):
    @pytest.fixture
    def make_store(self):
        return lambda embedding: FAISS(embedding, normalize_L2=True, distance_strategy=DistanceStrategy.MAX_INNER_PRODUCT)


class TestFlatCosine(_Persisting):
    @pytest.fixture
    def make_store(self):
        return lambda embedding: FAISS(embedding, distance_strategy="COSINE")


class TestHNSW(_Persisting):
    """HNSW with a wide search is exact on these small stores; deletes use tombstones."""

    @pytest.fixture
    def make_store(self):
        return lambda embedding: FAISS(embedding, index_factory="HNSW16", efSearch=128)


class TestIVF(_Persisting):
    """IVF with one list: trainable by a single vector and exact, so even the over-fetching
    filtered search (used for every non-flat index) must agree with brute force."""

    @pytest.fixture
    def make_store(self):
        return lambda embedding: FAISS(embedding, index_factory="IVF1,Flat")
