"""PGVector runs the shared store conformance suite against a real PostgreSQL + pgvector
(one server per test session, one new collection per store)."""

import uuid

import pytest

from stores.testing import VectorStoreConformance

pytest.importorskip("psycopg")
from stores.pgvector import PGVector  # noqa: E402


@pytest.fixture
def opened():
    """The stores a test made: their collections are dropped and connections closed after it."""
    stores = []
    yield stores
    for store in stores:
        store.delete_collection()
        store.close()


def _factory(uri, opened, **options):
    def make(embedding):
        store = PGVector(embedding, connection=uri, collection_name=f"test-{uuid.uuid4().hex[:12]}", **options)
        opened.append(store)
        return store

    return make


class TestPGVectorExact(VectorStoreConformance):
    @pytest.fixture
    def make_store(self, postgres_uri, opened):
        return _factory(postgres_uri, opened)

    @pytest.fixture
    def construction_options(self, postgres_uri):
        return {"connection": postgres_uri, "collection_name": f"test-{uuid.uuid4().hex[:12]}"}


class TestPGVectorHNSW(VectorStoreConformance):
    """HNSW with a wide search is exact on these small collections."""

    @pytest.fixture
    def make_store(self, postgres_uri, opened):
        return _factory(postgres_uri, opened, hnsw=True, ef_search=200)

    @pytest.fixture
    def construction_options(self, postgres_uri):
        return {"connection": postgres_uri, "collection_name": f"test-{uuid.uuid4().hex[:12]}", "hnsw": True}
