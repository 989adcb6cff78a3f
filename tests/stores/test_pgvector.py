"""PGVector against a real PostgreSQL + pgvector: shared collections, credentials, and
what is refused (the conformance suite covers the VectorStore API)."""

import datetime
import math
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import numpy as np
import pytest

from rag.documents import Document
from rag.embeddings import DeterministicFakeEmbedding, HashingEmbeddings
from rag.errors import DimensionMismatchError, EmbeddingMismatchError, StoreConnectionError, ValidationError

pytest.importorskip("psycopg")
import psycopg  # noqa: E402

from stores.pgvector import PGVector  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def collection():
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def store(postgres_uri, collection):
    with PGVector(HashingEmbeddings(dim=32), connection=postgres_uri, collection_name=collection) as opened:
        yield opened
        opened.delete_collection()


def test_a_second_store_on_the_same_collection_sees_the_documents(store, postgres_uri, collection):
    store.add_texts(["red apple", "green pear"], [{"n": 1}, {"n": 2}], ids=["a", "p"])
    with PGVector(HashingEmbeddings(dim=32), connection=postgres_uri, collection_name=collection) as other:
        assert len(other) == 2
        assert other.get_by_ids(["p"]) == [Document("green pear", {"n": 2}, id="p")]
        assert other.similarity_search("apple", k=1, filter={"n": {"$lt": 2}})[0].id == "a"


WORKER = textwrap.dedent("""
    import sys
    from rag.embeddings import HashingEmbeddings
    from stores.pgvector import PGVector
    uri, collection, worker = sys.argv[1], sys.argv[2], sys.argv[3]
    store = PGVector(HashingEmbeddings(dim=32), connection=uri, collection_name=collection)
    for batch in range(20):
        ids = [f"{worker}-{batch}-{i}" for i in range(10)]
        store.add_texts([f"worker {worker} batch {batch} item {i}" for i in range(10)], ids=ids)
        assert store.similarity_search(f"worker {worker} batch {batch}", k=3)
        assert len(store.get_by_ids(ids)) == 10
    store.close()
""")


def test_two_processes_adding_and_searching_one_collection_lose_nothing(postgres_uri, collection):
    command = [sys.executable, "-c", WORKER, postgres_uri, collection]
    workers = [subprocess.Popen([*command, str(w)], cwd=ROOT, stderr=subprocess.PIPE, text=True) for w in (1, 2)]
    errors = [worker.communicate(timeout=300)[1] for worker in workers]
    assert [worker.returncode for worker in workers] == [0, 0], errors
    with PGVector(HashingEmbeddings(dim=32), connection=postgres_uri, collection_name=collection) as store:
        assert len(store) == 400
        wanted = [f"{w}-{b}-{i}" for w in (1, 2) for b in range(20) for i in range(10)]
        assert len(store.get_by_ids(wanted)) == 400
        assert store.similarity_search("worker 2 batch 7 item 3", k=1)[0].id == "2-7-3"
        store.delete_collection()


def test_an_unreachable_server_gives_one_line_naming_the_uri_without_its_password():
    uri = "postgresql://alice:s3cret-pw@127.0.0.1:1/knowledge"
    with pytest.raises(StoreConnectionError) as caught:
        PGVector(HashingEmbeddings(dim=8), connection=uri, connect_timeout=2)
    message = str(caught.value)
    assert "\n" not in message and "s3cret-pw" not in message
    assert message.startswith("cannot connect to PostgreSQL at postgresql://alice:***@127.0.0.1:1/knowledge: ")


@pytest.mark.parametrize("uri", [
    "alice:s3cret-pw@127.0.0.1:1/knowledge",  # no scheme: libpq reads it as key=value and quotes it
    "postgresql://alice:s3cret-pw@[::1:1/knowledge",  # unparsable: libpq quotes the whole URI
])
def test_a_malformed_uri_is_refused_without_showing_its_password(uri):
    with pytest.raises(StoreConnectionError) as caught:
        PGVector(HashingEmbeddings(dim=8), connection=uri, connect_timeout=2)
    assert "s3cret-pw" not in str(caught.value) and "alice:***@" in str(caught.value)


def test_a_missing_socket_folder_is_a_connection_error(tmp_path):
    with pytest.raises(StoreConnectionError, match="cannot connect to PostgreSQL at postgresql://me@/db"):
        PGVector(HashingEmbeddings(dim=8), connection=f"postgresql://me@/db?host={tmp_path}/nothing")


@pytest.fixture
def password_role(postgres):
    """A role with a password, and pg_hba.conf asking every role but the superuser for it
    (scram-sha-256); the file is restored afterwards."""
    admin = psycopg.connect(postgres.get_uri(), autocommit=True)
    hba = Path(admin.execute("SHOW hba_file").fetchone()[0])
    original = hba.read_text()
    role = f"reader_{uuid.uuid4().hex[:8]}"
    admin.execute(f"CREATE ROLE {role} LOGIN SUPERUSER PASSWORD 'right-horse-battery'")
    hba.write_text("local all postgres trust\nlocal all all scram-sha-256\n")
    admin.execute("SELECT pg_reload_conf()")
    yield role, postgres.get_uri().replace("postgres:@", f"{role}:{{password}}@", 1)
    hba.write_text(original)
    admin.execute("SELECT pg_reload_conf()")
    admin.execute(f"DROP ROLE {role}")
    admin.close()


def test_wrong_credentials_are_refused_without_showing_the_password(password_role, collection):
    role, template = password_role
    with pytest.raises(StoreConnectionError, match=f'password authentication failed for user "{role}"') as caught:
        PGVector(HashingEmbeddings(dim=8), connection=template.format(password="wrong-guess"), collection_name=collection)
    assert "wrong-guess" not in str(caught.value) and "\n" not in str(caught.value)


def test_the_password_may_come_from_the_environment(password_role, collection, monkeypatch):
    role, template = password_role
    monkeypatch.setenv("PGPASSWORD", "right-horse-battery")
    with PGVector(HashingEmbeddings(dim=8), connection=template.replace(":{password}", ""), collection_name=collection) as store:
        store.add_texts(["hello"], ids=["h"])
        assert store.where.startswith(f"postgresql://{role}@")
        assert [d.id for d in store.similarity_search("hello", k=1)] == ["h"]
        store.delete_collection()


def test_a_collection_built_with_another_model_is_refused(store, postgres_uri, collection):
    store.add_texts(["a"], ids=["a"])
    with pytest.raises(EmbeddingMismatchError, match="built with HashingEmbeddings"):
        PGVector(DeterministicFakeEmbedding(size=32), connection=postgres_uri, collection_name=collection)


def test_a_collection_of_another_dimension_is_refused(store, postgres_uri, collection):
    store.add_texts(["a"], ids=["a"])
    with pytest.raises(EmbeddingMismatchError, match="dimension 32, not 64"):
        PGVector(None, connection=postgres_uri, collection_name=collection, embedding_length=64)
    with pytest.raises(DimensionMismatchError, match="dimension 16, expected 32"):
        PGVector(None, connection=postgres_uri, collection_name=collection).add_vectors(
            np.ones((1, 16), np.float32), [Document("b")])


@pytest.mark.parametrize("metadata, named", [
    ({"score": math.nan}, "NaN or infinite"),
    ({"when": datetime.date(2024, 1, 2)}, "date"),
    ({1: "int key"}, "key 1"),
    ({"note": "nul \x00 inside"}, "NUL"),
])
def test_metadata_postgresql_cannot_store_is_refused_and_nothing_is_written(store, metadata, named):
    store.add_texts(["kept"], ids=["k"])
    with pytest.raises(ValidationError, match=named):
        store.add_texts(["fine", "bad"], [{"ok": True}, metadata], ids=["fine", "bad"])
    assert len(store) == 1 and store.get_by_ids(["fine", "bad"]) == []


def test_a_text_with_a_nul_character_is_refused(store):
    with pytest.raises(ValidationError, match=r"texts\[0\] contains a NUL"):
        store.add_texts(["a\x00b"], ids=["x"])
    assert len(store) == 0


def test_numpy_numbers_in_metadata_are_stored_as_numbers(store):
    store.add_texts(["a"], [{"n": np.int64(3), "x": np.float32(0.5)}], ids=["a"])
    assert store.get_by_ids(["a"])[0].metadata == {"n": 3, "x": 0.5}
    assert [d.id for d in store.similarity_search("a", filter={"n": {"$gte": 3}})] == ["a"]


def test_filter_values_and_field_names_are_bound_never_spliced_into_sql(store):
    store.add_texts(["a"], [{"x'); DROP TABLE rag_collections; --": "y"}], ids=["a"])
    hostile = "x'); DROP TABLE rag_collections; --"
    assert [d.id for d in store.similarity_search("a", filter={hostile: "y"})] == ["a"]
    assert store.similarity_search("a", filter={"x": "'; DELETE FROM pg_class; --"}) == []
    assert len(store) == 1


def test_hnsw_filtered_search_still_fills_k(postgres_uri, collection):
    with PGVector(None, connection=postgres_uri, collection_name=collection, hnsw=True) as store:
        rng = np.random.default_rng(3)
        vectors = rng.standard_normal((2000, 16)).astype(np.float32)
        store.add_vectors(vectors, [Document(str(i), {"rare": i % 100 == 0}) for i in range(2000)])
        found = store.similarity_search_by_vector(vectors[0], k=10, filter={"rare": True})
        assert len(found) == 10 and all(d.metadata["rare"] for d in found)
        store.delete_collection()


def test_an_hnsw_index_built_after_loading_serves_every_store_on_the_collection(postgres_uri, collection):
    with PGVector(None, connection=postgres_uri, collection_name=collection) as store:
        vectors = np.random.default_rng(4).standard_normal((300, 8)).astype(np.float32)
        store.add_vectors(vectors, [Document(str(i)) for i in range(300)], ids=[str(i) for i in range(300)])
        store.create_hnsw_index()
        with PGVector(None, connection=postgres_uri, collection_name=collection) as other:
            assert other.hnsw is True
            assert other.similarity_search_by_vector(vectors[42], k=1)[0].id == "42"
        store.delete_collection()


def test_a_lost_connection_is_a_connection_error_naming_the_server(postgres_uri, collection):
    store = PGVector(HashingEmbeddings(dim=8), connection=postgres_uri, collection_name=collection)
    store.add_texts(["a"], ids=["a"])
    store.connection.close()
    with pytest.raises(StoreConnectionError, match="lost the connection to PostgreSQL at postgresql://"):
        store.similarity_search("a")
    with PGVector(HashingEmbeddings(dim=8), connection=postgres_uri, collection_name=collection) as again:
        assert len(again) == 1
        again.delete_collection()
