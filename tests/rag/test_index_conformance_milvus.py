"""An index kept in Milvus runs the index conformance suite (rag.index.testing), against
the session's real Milvus 2.3.5 standalone server (tests/conftest.py: one server per
session; a new collection per test, dropped after it).

What only Milvus does (write stamps, the BM25 cache, raw expressions...) stays in
test_shared_index_milvus.py."""

import uuid

import pytest

from rag.index.testing import IndexConformance, IndexMaker, NoLocalCopyTests

pytest.importorskip("pymilvus")
from tests.rag.shared_index_support import Engine  # noqa: E402


@pytest.fixture(autouse=True)
def own_cache(tmp_path_factory, monkeypatch):
    """The caches of this test's processes (this one and its children: Milvus's BM25 is
    cached on disk) in its own folder."""
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))  # outside tmp_path, which tests index


class TestMilvusIndex(IndexConformance, NoLocalCopyTests):
    @pytest.fixture
    def make_index(self, milvus_uri):
        collection = f"ix_{uuid.uuid4().hex[:10]}"  # letters, digits and _ only: a name Milvus can hold
        maker = IndexMaker(milvus_uri, location={"collection": collection}, names=("Milvus",), shown=collection)
        yield maker
        maker.close()
        Engine("milvus", milvus_uri).drop(collection)
