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
from hypothesis import given, settings, strategies as st

from stores.testing import SearchingTests, VectorStoreConformance
from stores.testing._support import shared_fixture

pytest.importorskip("pymilvus")
from pymilvus import Collection, utility  # noqa: E402

from stores.milvus import Milvus  # noqa: E402

#: Collections made ahead per dimension: about what the suite uses (HashingEmbeddings(64) is
#: the default store's, 8 the random vectors', and two property tests make a store per
#: example, run here with 10 examples each); a store finding none left creates its own.
POOL_SIZES = {64: 75, 8: 90, 16: 3, 32: 20}


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
        began = time.perf_counter()
        for collection in collections:
            collection.load(_async=True)
        for collection in collections:
            while utility.loading_progress(collection.name, using=self.alias)["loading_progress"] != "100%":
                time.sleep(0.05)
        print(f"milvus pool: {len(collections)} collections loaded in {time.perf_counter() - began:.1f} s")

    def take(self, dimension: int):
        names = self.free.get(dimension)
        if not names:
            print(f"milvus pool: none left of dimension {dimension}")
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


def _fewer_examples(test, **strategies):
    """The shared property test with 10 examples: each makes a store (a collection)."""
    return settings(shared_fixture, max_examples=10, deadline=None)(given(**strategies)(test.hypothesis.inner_test))


class TestMilvus(VectorStoreConformance):
    """HNSW; these small collections are searched exactly (Milvus searches unsealed
    segments by brute force), so the exact agreement checks apply."""

    test_results_agree_with_brute_force = _fewer_examples(
        SearchingTests.test_results_agree_with_brute_force, seed=st.integers(0, 10_000), k=st.integers(1, 60))
    test_relevance_scores_are_in_unit_range_and_ordered = _fewer_examples(
        SearchingTests.test_relevance_scores_are_in_unit_range_and_ordered, seed=st.integers(0, 10_000),
        k=st.integers(1, 20))

    @pytest.fixture
    def make_store(self, milvus_uri, milvus_pool, opened):
        PooledMilvus.pool = milvus_pool

        def make(embedding):
            store = PooledMilvus(embedding, f"test_{uuid.uuid4().hex[:12]}", uri=milvus_uri)
            opened.append(store)
            return store

        return make

    @pytest.fixture
    def construction_options(self, milvus_uri):
        return {"uri": milvus_uri, "collection_name": f"test_{uuid.uuid4().hex[:12]}"}
