"""Milvus-specific behaviour against a real Milvus 2.3.5 server: connecting, the record of
the collection, what Milvus cannot store, the raw expression escape hatch, and two
processes writing to one collection."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from rag.documents import Document
from rag.embeddings import HashingEmbeddings
from rag.errors import EmbeddingMismatchError, StoreConnectionError, ValidationError

pytest.importorskip("pymilvus")
from stores.milvus import Milvus  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def shared(milvus_uri):
    """One store (one collection) shared by the tests that only read it or add unique ids."""
    store = Milvus(HashingEmbeddings(dim=16), f"t_{uuid.uuid4().hex[:12]}", uri=milvus_uri, consistency_level="Strong")
    store.add_texts(["red apple", "green pear", 'say "hi"\nthen go'],
                    [{"kind": "fruit", "n": 1}, {"kind": "fruit", "n": None, "tags": ["a", "b"]},
                     {"we\"ird key": 'quote " and \\ backslash', "kind": "talk"}], ids=["apple", "pear", "talk"])
    yield store
    store.delete_collection()
    store.close()


def test_an_unreachable_server_is_one_line_within_the_timeout():
    began = time.monotonic()
    with pytest.raises(StoreConnectionError) as caught:
        Milvus(None, "x", uri="http://me:s3cret@127.0.0.1:9", timeout=2)
    assert time.monotonic() - began < 10
    message = str(caught.value)
    assert "\n" not in message and "127.0.0.1:9" in message and "s3cret" not in message


def test_a_malformed_uri_is_refused_without_showing_its_password():
    with pytest.raises(ValidationError) as caught:
        Milvus(None, "x", uri="me:s3cret@nowhere")
    assert "s3cret" not in str(caught.value)


def test_results_carry_their_ids_and_relevance_in_unit_range(shared):
    pairs = shared.similarity_search_with_relevance_scores("apple", k=3)
    assert pairs[0][0].id == "apple" and all(0.0 <= score <= 1.0 for _, score in pairs)


def test_field_names_and_values_with_quotes_backslashes_and_newlines_are_matched_exactly(shared):
    assert [d.id for d in shared.similarity_search("x", k=3, filter={'we"ird key': 'quote " and \\ backslash'})] == ["talk"]
    assert shared.similarity_search("x", k=3, filter={"kind": 'fruit" or "1" == "1'}) == []


def test_null_and_list_values_are_matched_by_equality(shared):
    assert [d.id for d in shared.similarity_search("x", k=3, filter={"n": None})] == ["pear"]
    assert [d.id for d in shared.similarity_search("x", k=3, filter={"tags": {"$eq": ["a", "b"]}})] == ["pear"]


def test_a_raw_milvus_expression_is_the_escape_hatch(shared):
    assert [d.id for d in shared.similarity_search("x", k=3, expr='metadata["n"] == 1')] == ["apple"]
    assert [d.id for d in shared.similarity_search("x", k=3, filter='metadata["kind"] like "ta%"')] == ["talk"]
    with pytest.raises(ValidationError, match="not both"):
        shared.similarity_search("x", filter={"n": 1}, expr='metadata["n"] == 1')


@pytest.mark.parametrize("metadata, named", [
    ({"x": float("nan")}, "NaN"), ({"x": 2**64}, "64-bit"), ({1: "a"}, "key 1"), ({"x": {1, 2}}, "set"),
    ({"x": "a" * 70_000}, "bytes as JSON"),
])
def test_metadata_milvus_cannot_store_is_refused_and_nothing_is_written(shared, metadata, named):
    before = len(shared)
    with pytest.raises(ValidationError, match=named):
        shared.add_texts(["fine", "bad"], [{"ok": 1}, metadata], ids=["fine-1", "bad-1"])
    assert len(shared) == before and shared.get_by_ids(["fine-1", "bad-1"]) == []


def test_a_text_longer_than_milvus_stores_is_refused(shared):
    with pytest.raises(ValidationError, match="65535"):
        shared.add_texts(["é" * 40_000], ids=["long"])
    assert shared.get_by_ids(["long"]) == []


def test_a_text_or_id_that_is_not_unicode_is_refused_before_any_batch_is_sent(shared, milvus_uri):
    store = Milvus(HashingEmbeddings(dim=16), shared.collection_name, uri=milvus_uri, consistency_level="Strong",
                   batch_size=1)
    for texts, ids, named in ((["fine", "lone \ud800 surrogate"], ["fine-2", "bad-2"], r"texts\[1\]"),
                              (["fine", "bad"], ["fine-2", "bad-\udc80"], r"ids\[1\]")):
        with pytest.raises(ValidationError, match=named):
            store.add_texts(texts, ids=ids)
        assert store.get_by_ids(["fine-2"]) == []
    with pytest.raises(ValidationError, match=r"metadatas\[0\]"):
        store.add_texts(["bad"], [{"k": "lone \ud800"}], ids=["bad-3"])
    store.close()


def test_integers_beyond_64_bits_in_a_filter_compare_as_numbers(shared):
    everything = sorted(d.id for d in shared.similarity_search("x", k=3))
    assert sorted(d.id for d in shared.similarity_search("x", k=3, filter={"n": {"$ne": 2**64}})) == everything
    assert [d.id for d in shared.similarity_search("x", k=3, filter={"n": {"$lt": 2**70}})] == ["apple"]
    assert [d.id for d in shared.similarity_search("x", k=3, filter={"n": {"$gt": -(10**400)}})] == ["apple"]
    assert shared.similarity_search("x", k=3, filter={"n": {"$in": [-(2**70), 2**64 + 1, 10**400]}}) == []


def test_a_collection_of_another_dimension_or_model_is_refused(shared, milvus_uri):
    with pytest.raises(EmbeddingMismatchError, match="HashingEmbeddings-16"):
        Milvus(HashingEmbeddings(dim=8), shared.collection_name, uri=milvus_uri)
    opened = Milvus(None, shared.collection_name, uri=milvus_uri)
    with pytest.raises(ValidationError, match="dimension"):
        opened.add_embeddings([("t", [0.1] * 8)])
    opened.close()


def test_a_second_store_on_the_collection_sees_the_documents_and_record(shared, milvus_uri):
    other = Milvus(HashingEmbeddings(dim=16), shared.collection_name, uri=milvus_uri, consistency_level="Strong")
    assert other.get_by_ids(["pear"])[0].metadata == {"kind": "fruit", "n": None, "tags": ["a", "b"]}
    assert other.record["model_id"] == "HashingEmbeddings-16-v1" and other.record["dimension"] == 16
    other.close()


def test_a_collection_this_store_did_not_make_is_refused(milvus_uri, shared):
    from pymilvus import Collection, CollectionSchema, DataType, FieldSchema

    name = f"foreign_{uuid.uuid4().hex[:8]}"
    fields = [FieldSchema("pk", DataType.INT64, is_primary=True), FieldSchema("v", DataType.FLOAT_VECTOR, dim=4)]
    Collection(name, CollectionSchema(fields), using=shared.connection.alias)
    with pytest.raises(ValidationError, match="not made by this store"):
        Milvus(None, name, uri=milvus_uri)
    Collection(name, using=shared.connection.alias).drop()


_WRITER = textwrap.dedent("""
    import sys
    from rag.embeddings import HashingEmbeddings
    from stores.milvus import Milvus
    uri, name, worker = sys.argv[1], sys.argv[2], sys.argv[3]
    store = Milvus(HashingEmbeddings(dim=16), name, uri=uri, consistency_level="Strong")
    for batch in range(5):
        ids = [f"{worker}-{batch}-{i}" for i in range(20)]
        store.add_texts([f"text {i}" for i in ids], [{"worker": worker}] * 20, ids=ids)
        store.similarity_search("text", k=3)
""")


def test_two_processes_writing_to_one_collection_lose_nothing(milvus_uri):
    name = f"t_{uuid.uuid4().hex[:12]}"
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    workers = [subprocess.Popen([sys.executable, "-c", _WRITER, milvus_uri, name, w], env=env, stderr=subprocess.PIPE)
               for w in ("a", "b")]
    for worker in workers:
        assert worker.wait(timeout=120) == 0, worker.stderr.read().decode()[-2000:]
    store = Milvus(HashingEmbeddings(dim=16), name, uri=milvus_uri, consistency_level="Strong")
    try:
        assert len(store) == 200
        wanted = [f"{w}-{b}-{i}" for w in "ab" for b in range(5) for i in range(20)]
        assert len(store.get_by_ids(wanted)) == 200
        assert len(store.similarity_search("x", k=200, filter={"worker": "b"})) == 100
    finally:
        store.delete_collection()
        store.close()

