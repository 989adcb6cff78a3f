"""Conformance: similarity search, relevance scores and thresholds, batched queries."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from rag.documents import Document
from rag.embeddings import HashingEmbeddings
from rag.errors import ValidationError
from stores.testing._support import FixedEmbedding, brute_force_cosine, shared_fixture, unit_rows

__all__ = ["SearchingTests"]


class SearchingTests:
    """Similarity search agrees with brute force; relevance is in [0, 1] (exact checks skip when ``exact`` is False)."""

    def test_search_on_an_empty_store_returns_nothing(self, store):
        assert store.similarity_search("anything") == []

    def test_k_larger_than_the_store_returns_every_document(self, vector_store):
        assert len(vector_store.similarity_search_by_vector(vector_store._test_vectors[0], k=500)) == 50

    def test_a_stored_vector_finds_itself_first(self, vector_store):
        for i in (0, 17, 49):
            assert vector_store.similarity_search_by_vector(vector_store._test_vectors[i], k=1)[0].id == str(i)

    @shared_fixture
    @given(seed=st.integers(0, 10_000), k=st.integers(1, 60))
    def test_results_agree_with_brute_force(self, make_store, seed, k):
        if not self.exact:
            pytest.skip("approximate index")
        vectors = unit_rows(seed, 40)
        store = make_store(None)
        store.add_vectors(vectors, [Document(str(i)) for i in range(40)], ids=[str(i) for i in range(40)])
        query = unit_rows(seed + 1, 1)[0]
        expected = np.sort(brute_force_cosine(query, vectors))[::-1][: min(k, 40)]
        ids = [int(d.id) for d in store.similarity_search_by_vector(query, k)]
        assert len(ids) == min(k, 40)
        np.testing.assert_allclose(brute_force_cosine(query, vectors)[ids], expected, atol=1e-5)

    @shared_fixture
    @given(seed=st.integers(0, 10_000), k=st.integers(1, 20))
    def test_relevance_scores_are_in_unit_range_and_ordered(self, make_store, seed, k):
        store = make_store(HashingEmbeddings(dim=32))
        words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
        rng = np.random.default_rng(seed)
        texts = [" ".join(rng.choice(words, size=3)) for _ in range(15)]
        store.add_texts(texts)
        scores = [s for _, s in store.similarity_search_with_relevance_scores(" ".join(rng.choice(words, 2)), k=k)]
        assert all(0.0 <= s <= 1.0 for s in scores)
        assert scores == sorted(scores, reverse=True)

    def test_relevance_of_unit_vectors_is_the_clipped_cosine(self, vector_store):
        query = vector_store._test_vectors[3]
        vector_store._embedding = FixedEmbedding(query)
        pairs = vector_store.similarity_search_with_relevance_scores("q", k=50)
        cosines = brute_force_cosine(query, vector_store._test_vectors)
        for document, relevance in pairs:
            assert relevance == pytest.approx(min(max(cosines[int(document.id)], 0.0), 1.0), abs=1e-4)

    def test_relevance_of_named_documents_is_what_a_search_reports_for_them(self, vector_store):
        query = vector_store._test_vectors[3]
        found = {d.id: s for d, s in vector_store.similarity_search_with_relevance_scores_by_vector(query, k=50)}
        named = vector_store.relevance_scores_by_ids(query, [*reversed(found), "no-such-id"])
        assert named == pytest.approx(found, abs=1e-4)

    def test_relevance_of_named_documents_leaves_absent_ones_out(self, vector_store):
        assert vector_store.relevance_scores_by_ids(vector_store._test_vectors[0], ["no-such-id"]) == {}
        assert vector_store.relevance_scores_by_ids(vector_store._test_vectors[0], []) == {}

    def test_score_threshold_drops_less_relevant_results(self, vector_store):
        vector_store._embedding = FixedEmbedding(vector_store._test_vectors[3])
        pairs = vector_store.similarity_search_with_relevance_scores("q", k=50, score_threshold=0.5)
        assert pairs and all(score >= 0.5 for _, score in pairs)
        everything = vector_store.similarity_search_with_relevance_scores("q", k=50)
        assert len(pairs) == sum(1 for _, s in everything if s >= 0.5)

    @pytest.mark.parametrize("threshold", [-0.1, 1.5, "0.5"])
    def test_a_threshold_outside_unit_range_raises(self, vector_store, threshold):
        vector_store._embedding = FixedEmbedding(vector_store._test_vectors[0])
        with pytest.raises(ValidationError, match="score_threshold"):
            vector_store.similarity_search_with_relevance_scores("q", score_threshold=threshold)

    def test_batched_search_equals_one_search_per_query(self, vector_store):
        queries = unit_rows(99, 5)
        batched = vector_store.similarity_search_with_score_by_vectors(queries, k=4)
        single = [vector_store.similarity_search_with_score_by_vector(q, k=4) for q in queries]
        assert [[d.id for d, _ in row] for row in batched] == [[d.id for d, _ in row] for row in single]
        for row_b, row_s in zip(batched, single):
            np.testing.assert_allclose([s for _, s in row_b], [s for _, s in row_s], rtol=1e-5, atol=1e-6)
