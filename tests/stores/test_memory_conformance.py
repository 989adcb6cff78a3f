"""InMemoryVectorStore runs the shared store conformance suite."""

import pytest

from stores import InMemoryVectorStore
from stores.testing import VectorStoreConformance


class TestInMemoryVectorStore(VectorStoreConformance):
    @pytest.fixture
    def make_store(self):
        return lambda embedding: InMemoryVectorStore(embedding)

    def save(self, store, path):
        store.dump(path)

    def load(self, store_class, path, embedding):
        return store_class.load(path, embedding)
