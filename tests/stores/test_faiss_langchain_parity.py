"""Differential tests: our FAISS against langchain-community's FAISS on the same data."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from rag.embeddings import DeterministicFakeEmbedding
from stores import FAISS

lc_faiss = pytest.importorskip("langchain_community.vectorstores.faiss")
lc_embeddings = pytest.importorskip("langchain_core.embeddings")

# LangChain warns about its own relevance values and normalisation; those are what we compare.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

WORDS = ["alpha", "beta", "gamma", "delta", "kappa", "omega", "sigma", "tau"]


def corpus(seed: int, size: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=3)) + f" #{i}" for i in range(size)]


@given(seed=st.integers(0, 10_000), size=st.integers(1, 30), k=st.integers(1, 10),
       strategy=st.sampled_from(["EUCLIDEAN_DISTANCE", "MAX_INNER_PRODUCT"]), normalize=st.booleans())
def test_similarity_search_with_score_matches_langchain(seed, size, k, strategy, normalize):
    texts = corpus(seed, size)
    ids = [str(i) for i in range(size)]
    ours = FAISS.from_texts(texts, DeterministicFakeEmbedding(size=16), ids=ids,
                            distance_strategy=strategy, normalize_L2=normalize)
    theirs = lc_faiss.FAISS.from_texts(texts, lc_embeddings.DeterministicFakeEmbedding(size=16), ids=ids,
                                       distance_strategy=lc_faiss.DistanceStrategy(strategy), normalize_L2=normalize)
    query = corpus(seed + 1, 1)[0]
    got = ours.similarity_search_with_score(query, k=k)
    expected = theirs.similarity_search_with_score(query, k=k)
    assert [d.id for d, _ in got] == [d.id for d, _ in expected]
    np.testing.assert_allclose([s for _, s in got], [s for _, s in expected], rtol=1e-4, atol=1e-4)


def test_a_selective_filter_returns_k_where_langchain_comes_up_short():
    texts = [f"text number {i}" for i in range(200)]
    metadatas = [{"group": "rare" if i % 50 == 0 else "common"} for i in range(200)]
    ours = FAISS.from_texts(texts, DeterministicFakeEmbedding(size=16), metadatas)
    theirs = lc_faiss.FAISS.from_texts(texts, lc_embeddings.DeterministicFakeEmbedding(size=16), metadatas)
    query = "something else entirely"
    assert len(ours.similarity_search(query, k=4, filter={"group": "rare"})) == 4
    assert len(theirs.similarity_search(query, k=4, filter={"group": "rare"})) < 4


def test_relevance_stays_in_unit_range_where_langchains_goes_negative():
    texts = [f"text number {i}" for i in range(20)]
    ours = FAISS.from_texts(texts, DeterministicFakeEmbedding(size=16))
    theirs = lc_faiss.FAISS.from_texts(texts, lc_embeddings.DeterministicFakeEmbedding(size=16))
    theirs_scores = [s for _, s in theirs.similarity_search_with_relevance_scores("a query", k=20)]
    ours_scores = [s for _, s in ours.similarity_search_with_relevance_scores("a query", k=20)]
    assert min(theirs_scores) < 0
    assert all(0 <= s <= 1 for s in ours_scores) and ours_scores == sorted(ours_scores, reverse=True)


def test_readding_an_id_replaces_where_langchain_raises():
    theirs = lc_faiss.FAISS.from_texts(["a"], lc_embeddings.DeterministicFakeEmbedding(size=8), ids=["1"])
    with pytest.raises(ValueError):
        theirs.add_texts(["b"], ids=["1"])
    ours = FAISS.from_texts(["a"], DeterministicFakeEmbedding(size=8), ids=["1"])
    ours.add_texts(["b"], ids=["1"])
    assert [d.page_content for d in ours.get_by_ids(["1"])] == ["b"] and ours.index.ntotal == 1


@given(seed=st.integers(0, 10_000), k=st.integers(1, 8), fetch_k=st.integers(8, 25), lambda_mult=st.floats(0, 1),
       strategy=st.sampled_from(["EUCLIDEAN_DISTANCE", "MAX_INNER_PRODUCT"]))
def test_mmr_with_scores_by_vector_matches_langchain_without_a_filter(seed, k, fetch_k, lambda_mult, strategy):
    texts = corpus(seed, 25)
    ids = [str(i) for i in range(25)]
    ours = FAISS.from_texts(texts, DeterministicFakeEmbedding(size=16), ids=ids, distance_strategy=strategy)
    theirs = lc_faiss.FAISS.from_texts(texts, lc_embeddings.DeterministicFakeEmbedding(size=16), ids=ids,
                                       distance_strategy=lc_faiss.DistanceStrategy(strategy))
    query = lc_embeddings.DeterministicFakeEmbedding(size=16).embed_query(corpus(seed + 3, 1)[0])
    got = ours.max_marginal_relevance_search_with_score_by_vector(query, k=k, fetch_k=fetch_k, lambda_mult=lambda_mult)
    expected = theirs.max_marginal_relevance_search_with_score_by_vector(query, k=k, fetch_k=fetch_k,
                                                                          lambda_mult=lambda_mult)
    assert [d.id for d, _ in got] == [d.id for d, _ in expected]
    np.testing.assert_allclose([s for _, s in got], [s for _, s in expected], rtol=1e-4, atol=1e-4)


def test_filtered_mmr_scores_are_the_documents_own_where_langchain_reports_another_documents():
    texts = [f"text number {i}" for i in range(40)]
    metadatas = [{"group": "a" if i % 3 == 0 else "b"} for i in range(40)]
    ids = [str(i) for i in range(40)]
    embedding = lc_embeddings.DeterministicFakeEmbedding(size=16)
    ours = FAISS.from_texts(texts, DeterministicFakeEmbedding(size=16), metadatas, ids=ids)
    theirs = lc_faiss.FAISS.from_texts(texts, embedding, metadatas, ids=ids)
    query = embedding.embed_query("a query")
    arguments = {"k": 4, "fetch_k": 10, "lambda_mult": 0.5, "filter": {"group": "a"}}

    def own_scores(store):
        return {d.id: float(s) for d, s in store.similarity_search_with_score_by_vector(query, k=40, filter={"group": "a"})}

    ours_pairs = ours.max_marginal_relevance_search_with_score_by_vector(query, **arguments)
    theirs_pairs = theirs.max_marginal_relevance_search_with_score_by_vector(query, **arguments)
    assert all(s == pytest.approx(own_scores(ours)[d.id], rel=1e-5) for d, s in ours_pairs)
    # LangChain takes scores[0][i] of the unfiltered fetch for the i-th filtered candidate.
    assert any(float(s) != pytest.approx(own_scores(theirs)[d.id], rel=1e-5) for d, s in theirs_pairs)


def test_async_mmr_with_scores_by_vector_matches_langchains_async_call():
    import asyncio

    texts = corpus(5, 20)
    ids = [str(i) for i in range(20)]
    ours = FAISS.from_texts(texts, DeterministicFakeEmbedding(size=16), ids=ids)
    theirs = lc_faiss.FAISS.from_texts(texts, lc_embeddings.DeterministicFakeEmbedding(size=16), ids=ids)
    query = lc_embeddings.DeterministicFakeEmbedding(size=16).embed_query("alpha beta")
    got = asyncio.run(ours.amax_marginal_relevance_search_with_score_by_vector(query, k=3, fetch_k=10))
    expected = asyncio.run(theirs.amax_marginal_relevance_search_with_score_by_vector(query, k=3, fetch_k=10))
    assert [d.id for d, _ in got] == [d.id for d, _ in expected]
    np.testing.assert_allclose([s for _, s in got], [s for _, s in expected], rtol=1e-4)
