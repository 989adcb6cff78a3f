"""Embeddings return LangChain's plain lists from the public methods and float32 numpy from
the ``*_array`` twins; a subclass implements either side and gets the other."""

import asyncio
import json

import numpy as np
import pytest

from rag.embeddings import DeterministicFakeEmbedding, Embeddings, HashingEmbeddings
from rag.embeddings.base import embed_query_text, embed_texts
from stores import FAISS, InMemoryVectorStore

lc_embeddings = pytest.importorskip("langchain_core.embeddings")

TEXTS = ["The meaning of life is 42", "", "ünïcödé"]


def test_embed_documents_returns_the_lists_langchain_returns():
    ours = DeterministicFakeEmbedding(size=12).embed_documents(TEXTS)
    theirs = lc_embeddings.DeterministicFakeEmbedding(size=12).embed_documents(TEXTS)
    assert type(ours) is list and all(type(row) is list for row in ours)
    assert ours == theirs


def test_embed_query_returns_the_list_langchain_returns():
    ours = DeterministicFakeEmbedding(size=12).embed_query("a query")
    theirs = lc_embeddings.DeterministicFakeEmbedding(size=12).embed_query("a query")
    assert ours == theirs and all(type(value) is float for value in ours)


def test_async_embeddings_return_the_lists_langchain_returns():
    ours, theirs = DeterministicFakeEmbedding(size=6), lc_embeddings.DeterministicFakeEmbedding(size=6)
    assert asyncio.run(ours.aembed_documents(TEXTS)) == asyncio.run(theirs.aembed_documents(TEXTS))
    assert asyncio.run(ours.aembed_query("q")) == asyncio.run(theirs.aembed_query("q"))


def test_public_results_compare_with_equals_and_write_as_json():
    emb = HashingEmbeddings(dim=16)
    assert emb.embed_query("same words") == emb.embed_query("same words")
    assert json.loads(json.dumps(emb.embed_documents(["a b", "c"]))) == emb.embed_documents(["a b", "c"])


def test_array_twins_are_float32_numpy_with_the_same_values():
    emb = HashingEmbeddings(dim=32)
    matrix = emb.embed_documents_array(["one", "two three"])
    vector = emb.embed_query_array("one")
    assert matrix.dtype == vector.dtype == np.float32 and matrix.shape == (2, 32) and vector.shape == (32,)
    np.testing.assert_array_equal(matrix, np.asarray(emb.embed_documents(["one", "two three"]), dtype=np.float32))
    np.testing.assert_array_equal(vector, np.asarray(emb.embed_query("one"), dtype=np.float32))


def test_async_array_twins_match_the_sync_ones():
    emb = HashingEmbeddings(dim=32)
    np.testing.assert_array_equal(asyncio.run(emb.aembed_documents_array(["a b"])), emb.embed_documents_array(["a b"]))
    np.testing.assert_array_equal(asyncio.run(emb.aembed_query_array("a b")), emb.embed_query_array("a b"))


class ListEmbeddings(Embeddings):
    """Written for LangChain: lists in, lists out, a distinct query vector."""

    dimension = 3

    def embed_documents(self, texts):
        return [[float(len(text)), 1.0, 0.0] for text in texts]

    def embed_query(self, text):
        return [0.0, 0.0, 1.0]


def test_a_subclass_written_for_langchain_gets_the_array_twins():
    emb = ListEmbeddings()
    np.testing.assert_array_equal(emb.embed_documents_array(["ab", "c"]), np.float32([[2, 1, 0], [1, 1, 0]]))
    np.testing.assert_array_equal(emb.embed_query_array("x"), np.float32([0, 0, 1]))
    np.testing.assert_array_equal(asyncio.run(emb.aembed_query_array("x")), np.float32([0, 0, 1]))


def test_a_subclass_implementing_the_array_method_gets_langchains_lists():
    class Twos(Embeddings):
        def embed_documents_array(self, texts):
            return np.full((len(texts), 2), 2.0, dtype=np.float32)

    assert Twos().embed_documents(["a"]) == [[2.0, 2.0]] and Twos().embed_query("a") == [2.0, 2.0]


def test_a_subclass_implementing_neither_method_cannot_be_created():
    class Nothing(Embeddings):
        pass

    with pytest.raises(TypeError, match="abstract"):
        Nothing()


def test_overriding_embed_documents_on_a_model_of_ours_changes_what_stores_get():
    calls = []

    class Counting(HashingEmbeddings):
        def embed_documents(self, texts):
            calls.append(len(texts))
            return super().embed_documents(texts)

    store = InMemoryVectorStore(Counting(dim=16))
    store.add_texts(["a", "b", "c"])
    assert calls == [3]


def test_stores_embed_through_the_array_twin_without_building_lists():
    class ArrayOnly(HashingEmbeddings):
        def embed_documents(self, texts):
            raise AssertionError("the store asked for lists")

        def embed_documents_array(self, texts):
            return HashingEmbeddings.embed_documents_array(self, texts)

        def embed_query(self, text):
            raise AssertionError("the store asked for a list")

        def embed_query_array(self, text):
            return HashingEmbeddings.embed_query_array(self, text)

    store = FAISS.from_texts(["cats purr", "dogs bark"], ArrayOnly(dim=32), ids=["c", "d"])
    assert store.similarity_search("cats purr", k=1)[0].id == "c"
    assert asyncio.run(store.asimilarity_search("dogs bark", k=1))[0].id == "d"


def test_the_embedding_helpers_accept_langchains_embeddings():
    theirs = lc_embeddings.DeterministicFakeEmbedding(size=5)
    assert embed_texts(theirs, ["a", "b"]).dtype == np.float32
    np.testing.assert_allclose(embed_query_text(theirs, "a"), theirs.embed_query("a"), rtol=1e-6)
