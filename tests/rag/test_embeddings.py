"""Embeddings: hashing (deterministic, offline) and the LangChain-compatible fake."""

import asyncio
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, strategies as st

from rag.embeddings import DeterministicFakeEmbedding, Embeddings, HashingEmbeddings
from rag.errors import ValidationError


def test_hashing_vectors_are_float32_with_the_requested_dimension():
    vectors = HashingEmbeddings(dim=128).embed_documents_array(["one text", "another text"])
    assert vectors.shape == (2, 128) and vectors.dtype == np.float32


@given(st.text(alphabet=st.characters(categories=["L", "N", "Zs"]), min_size=1, max_size=60))
def test_hashing_vectors_are_unit_length_or_zero(text):
    vector = HashingEmbeddings(dim=64).embed_query_array(text)
    norm = float(np.linalg.norm(vector))
    assert norm == pytest.approx(1.0, abs=1e-5) or norm == 0.0


def test_a_text_without_words_embeds_to_the_zero_vector():
    assert not HashingEmbeddings(dim=16).embed_query_array("  ... !!").any()


def test_hashing_ignores_case():
    emb = HashingEmbeddings(dim=64)
    np.testing.assert_array_equal(emb.embed_query("Vector STORE"), emb.embed_query("vector store"))


def test_word_order_matters_through_bigrams():
    emb = HashingEmbeddings(dim=4096)
    assert float(emb.embed_query_array("dog bites man") @ emb.embed_query_array("man bites dog")) < 0.99


def test_shared_words_make_texts_similar():
    emb = HashingEmbeddings()
    related = float(emb.embed_query_array("the cat sat on the mat") @ emb.embed_query_array("a cat on a mat"))
    unrelated = float(emb.embed_query_array("the cat sat on the mat") @ emb.embed_query_array("stock prices fell sharply"))
    assert related > 0.2 and abs(unrelated) < 0.1


def test_hashing_is_identical_across_processes_with_different_hash_seeds():
    code = (
        "import json, sys; sys.path.insert(0, %r);"
        "from rag.embeddings import HashingEmbeddings;"
        "print(json.dumps(HashingEmbeddings(dim=32).embed_query('Deterministic across runs')))"
    ) % os.getcwd()
    outputs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        outputs.append(json.loads(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                                 capture_output=True, text=True).stdout))
    assert outputs[0] == outputs[1]
    np.testing.assert_allclose(outputs[0], HashingEmbeddings(dim=32).embed_query("Deterministic across runs"))


def test_batch_and_single_embeddings_agree():
    emb = HashingEmbeddings(dim=64)
    texts = ["first text", "second one", ""]
    batch = emb.embed_documents(texts)
    for row, text in zip(batch, texts):
        np.testing.assert_array_equal(row, emb.embed_query(text))


@pytest.mark.parametrize("dim", [0, 1, -5, 2.0, "64", True])
def test_hashing_rejects_a_bad_dimension(dim):
    with pytest.raises(ValidationError, match="dim must be an int >= 2"):
        HashingEmbeddings(dim=dim)


def test_a_single_string_instead_of_a_list_is_refused():
    with pytest.raises(ValidationError, match="wrap it in a list"):
        HashingEmbeddings().embed_documents("oops")


def test_model_id_names_the_class_and_dimension():
    assert HashingEmbeddings(dim=256).model_id == "HashingEmbeddings-256-v1"
    assert DeterministicFakeEmbedding(size=8).model_id == "DeterministicFakeEmbedding-8"


def test_async_embedding_matches_sync():
    emb = HashingEmbeddings(dim=32)
    got = asyncio.run(emb.aembed_documents(["a b", "c"]))
    np.testing.assert_array_equal(got, emb.embed_documents(["a b", "c"]))
    np.testing.assert_array_equal(asyncio.run(emb.aembed_query("a b")), emb.embed_query("a b"))


def test_a_subclass_needs_only_embed_documents():
    class Ones(Embeddings):
        dimension = 3

        def embed_documents(self, texts):
            return np.ones((len(texts), 3), dtype=np.float32)

    assert Ones().embed_query("x") == [1.0, 1.0, 1.0]
    assert Ones().model_id == "Ones-3"


def test_fake_embedding_is_deterministic_per_text():
    emb = DeterministicFakeEmbedding(size=16)
    np.testing.assert_array_equal(emb.embed_query("same"), emb.embed_query("same"))
    assert emb.embed_query("same") != emb.embed_query("other")


def test_fake_embedding_gives_langchains_numbers():
    langchain = pytest.importorskip("langchain_core.embeddings")
    theirs = langchain.DeterministicFakeEmbedding(size=12)
    ours = DeterministicFakeEmbedding(size=12)
    texts = ["The meaning of life is 42", "", "ünïcödé"]
    np.testing.assert_allclose(ours.embed_documents(texts), np.asarray(theirs.embed_documents(texts)), rtol=1e-6)
