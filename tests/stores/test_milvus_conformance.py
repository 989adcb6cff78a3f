"""Milvus runs the shared store conformance suite against a real Milvus 2.3.5 standalone
server (one server per test session, one collection per store).

Loading a new collection takes Milvus ~1.5 s, and the suite makes about a hundred stores;
so the collections are made ahead, all at once (Milvus loads them in parallel), by the
store's own schema and index code, and a store that creates its collection takes one of
the right dimension and renames it (a renamed collection stays loaded). Only that step
differs from a store outside the tests, which creates and loads its collection itself
(tests/stores/test_milvus.py covers that path).
"""

from __future__ import annotations

import time
import uuid
from collections import defaultdict

import pytest

from stores.testing import VectorStoreConformance

pytest.importorskip("pymilvus")
from pymilvus import Collection, utility  # noqa: E402

from stores.milvus import Milvus  # noqa: E402

#: Collections made ahead per dimension: about what the suite uses (HashingEmbeddings(64) is
#: the default store's, 8 the random vectors'); a store finding none left creates its own.
POOL_SIZES = {64: 70, 8: 45, 16: 3, 32: 6}


class _Pool:
    def __init__(self, uri: str) -> None:
        self.template = Milvus(None, "rag_pool_template", uri=uri, consistency_level="Strong")
        self.alias = self.template.connection.alias
        self.free: dict[int, list[str]] = defaultdict(list)
        collections = []
        for dimension, count in POOL_SIZES.items():
            for _ in range(count):
                name = f"pool_{dimension}_{uuid.uuid4().hex[:12]}"
                collection = Collection(name, self.template._schema(dimension), using=self.alias,
                                        consistency_level="Strong")
                collection.create_index("vector", self.template._index_params(), sync=False)
                collections.append(collection)
                self.free[dimension].append(name)
        for collection in collections:
            collection.load(_async=True)
        for collection in collections:
            while utility.loading_progress(collection.name, using=self.alias)["loading_progress"] != "100%":
                time.sleep(0.05)

    def take(self, dimension: int):
        names = self.free.get(dimension)
        return names.pop() if names else None


@pytest.fixture(scope="session")
def milvus_pool(milvus_uri):
    pool = _Pool(milvus_uri)
    yield pool
    pool.template.close()


class PooledMilvus(Milvus):
    """Milvus whose new collection is a pooled one renamed (see the module docstring)."""

    pool: _Pool

    def _create_collection(self, dimension: int) -> None:
        name = self.pool.take(dimension)
        if name is None:
            return super()._create_collection(dimension)
        utility.rename_collection(name, self.collection_name, using=self.pool.alias)
        self._open_collection()


@pytest.fixture
def opened():
    """The stores a test made: their collections are dropped and connections closed after it."""
    stores = []
    yield stores
    for store in stores:
        store.delete_collection()
        store.close()


class TestMilvus(VectorStoreConformance):
    """HNSW; these small collections are searched exactly (Milvus searches unsealed
    segments by brute force), so the exact agreement checks apply."""

    @pytest.fixture
    def make_store(self, milvus_uri, milvus_pool, opened):
        PooledMilvus.pool = milvus_pool

        def make(embedding):
            store = PooledMilvus(embedding, f"test_{uuid.uuid4().hex[:12]}", uri=milvus_uri, consistency_level="Strong")
            opened.append(store)
            return store

        return make

    @pytest.fixture
    def construction_options(self, milvus_uri):
        return {"uri": milvus_uri, "collection_name": f"test_{uuid.uuid4().hex[:12]}", "consistency_level": "Strong"}
