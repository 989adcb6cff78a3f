"""Differential tests: our in-memory store against langchain-core's on the same data."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from rag.embeddings import DeterministicFakeEmbedding
from stores import InMemoryVectorStore

lc_vectorstores = pytest.importorskip("langchain_core.vectorstores")
lc_embeddings = pytest.importorskip("langchain_core.embeddings")

WORDS = ["alpha", "beta", "gamma", "delta", "kappa", "omega", "sigma", "tau"]


def corpus(seed: int, size: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=4)) + f" #{i}" for i in range(size)]


@given(seed=st.integers(0, 10_000), size=st.integers(1, 30), k=st.integers(1, 10))
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_similarity_search_with_score_matches_langchain(seed, size, k):
    texts = corpus(seed, size)
    ids = [str(i) for i in range(size)]
    ours = InMemoryVectorStore.from_texts(texts, DeterministicFakeEmbedding(size=16), ids=ids)
    theirs = lc_vectorstores.InMemoryVectorStore.from_texts(texts, lc_embeddings.DeterministicFakeEmbedding(size=16), ids=ids)
    query = corpus(seed + 1, 1)[0]
    got = ours.similarity_search_with_score(query, k=k)
    expected = theirs.similarity_search_with_score(query, k=k)
    assert [d.id for d, _ in got] == [d.id for d, _ in expected]
    np.testing.assert_allclose([s for _, s in got], [s for _, s in expected], atol=1e-5)


@given(seed=st.integers(0, 10_000), k=st.integers(1, 8), fetch_k=st.integers(8, 25), lambda_mult=st.floats(0, 1))
def test_mmr_search_matches_langchain_when_fetch_k_is_at_least_k(seed, k, fetch_k, lambda_mult):
    texts = corpus(seed, 25)
    ids = [str(i) for i in range(25)]
    ours = InMemoryVectorStore.from_texts(texts, DeterministicFakeEmbedding(size=16), ids=ids)
    theirs = lc_vectorstores.InMemoryVectorStore.from_texts(texts, lc_embeddings.DeterministicFakeEmbedding(size=16), ids=ids)
    query = corpus(seed + 7, 1)[0]
    got = ours.max_marginal_relevance_search(query, k=k, fetch_k=fetch_k, lambda_mult=lambda_mult)
    expected = theirs.max_marginal_relevance_search(query, k=k, fetch_k=fetch_k, lambda_mult=lambda_mult)
    assert [d.id for d in got] == [d.id for d in expected]


def test_a_langchain_embeddings_object_works_with_our_store():
    store = InMemoryVectorStore.from_texts(["red apple", "green pear"], lc_embeddings.DeterministicFakeEmbedding(size=8), ids=["a", "p"])
    assert store.similarity_search("red apple", k=1)[0].id == "a"
    assert store.similarity_search_by_vector(lc_embeddings.DeterministicFakeEmbedding(size=8).embed_query("green pear"), k=1)[0].id == "p"


def test_threshold_retrieval_works_where_langchains_in_memory_store_raises():
    texts = ["red apple", "green pear"]
    theirs = lc_vectorstores.InMemoryVectorStore.from_texts(texts, lc_embeddings.DeterministicFakeEmbedding(size=8))
    with pytest.raises(NotImplementedError):
        theirs.similarity_search_with_relevance_scores("red apple", score_threshold=0.5)
    ours = InMemoryVectorStore.from_texts(texts, DeterministicFakeEmbedding(size=8))
    assert [d.page_content for d, _ in ours.similarity_search_with_relevance_scores("red apple", score_threshold=0.99)] == ["red apple"]


def _both_stores():
    texts = ["red apple", "green pear", "yellow banana"]
    metadatas = [{"colour": "red"}, {"colour": "green"}, {}]
    ids = ["a", "p", "b"]
    ours = InMemoryVectorStore.from_texts(texts, DeterministicFakeEmbedding(size=8), metadatas, ids=ids)
    theirs = lc_vectorstores.InMemoryVectorStore.from_texts(texts, lc_embeddings.DeterministicFakeEmbedding(size=8),
                                                            metadatas, ids=ids)
    return ours, theirs


def test_store_view_lists_what_langchains_store_dict_holds():
    ours, theirs = _both_stores()
    ours.delete(["p"]), theirs.delete(["p"])
    assert list(ours.store) == list(theirs.store) == ["a", "b"]
    for doc_id, entry in theirs.store.items():
        got = ours.store[doc_id]
        assert set(got) == set(entry) == {"id", "vector", "text", "metadata"}
        assert (got["id"], got["text"], got["metadata"]) == (entry["id"], entry["text"], entry["metadata"])
        assert isinstance(got["vector"], list)
        np.testing.assert_allclose(got["vector"], entry["vector"], rtol=1e-6)


def test_store_view_cannot_change_the_store():
    ours, _ = _both_stores()
    with pytest.raises(TypeError):
        ours.store["a"] = {"id": "a", "vector": [0.0] * 8, "text": "x", "metadata": {}}
    entry = ours.store["a"]
    entry["metadata"]["colour"] = "blue"
    entry["vector"][0] = 99.0
    assert ours.store["a"]["metadata"] == {"colour": "red"}
    assert ours.store["a"]["vector"][0] != 99.0


def test_store_view_follows_later_writes_and_raises_key_error_for_missing_ids():
    ours, _ = _both_stores()
    view = ours.store
    ours.add_texts(["purple plum"], ids=["u"])
    assert "u" in view and len(view) == 4
    with pytest.raises(KeyError):
        view["nope"]
