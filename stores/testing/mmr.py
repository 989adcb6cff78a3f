"""Conformance: maximal marginal relevance search."""

from __future__ import annotations

import pytest

from rag.errors import ValidationError
from stores.testing._support import unit_rows

__all__ = ["MMRTests"]


class MMRTests:
    """MMR picks distinct documents, starts with the most similar, and honours filters."""

    def test_mmr_returns_k_distinct_documents_starting_with_the_most_similar(self, vector_store):
        query = vector_store._test_vectors[10]
        found = vector_store.max_marginal_relevance_search_by_vector(query, k=5, fetch_k=20)
        assert len({d.id for d in found}) == 5 and found[0].id == "10"

    def test_mmr_with_lambda_one_is_plain_similarity(self, vector_store):
        if not self.exact:
            pytest.skip("approximate index")
        query = unit_rows(11, 1)[0]
        mmr = vector_store.max_marginal_relevance_search_by_vector(query, k=6, fetch_k=30, lambda_mult=1.0)
        plain = vector_store.similarity_search_by_vector(query, k=6)
        assert [d.id for d in mmr] == [d.id for d in plain]

    def test_mmr_uses_k_candidates_when_fetch_k_is_smaller(self, vector_store):
        found = vector_store.max_marginal_relevance_search_by_vector(vector_store._test_vectors[0], k=6, fetch_k=2)
        assert len(found) == 6

    @pytest.mark.parametrize("lambda_mult", [-0.5, 1.5])
    def test_mmr_rejects_lambda_outside_unit_range(self, vector_store, lambda_mult):
        with pytest.raises(ValidationError, match="lambda_mult"):
            vector_store.max_marginal_relevance_search_by_vector(vector_store._test_vectors[0], lambda_mult=lambda_mult)

    def test_mmr_respects_the_filter(self, vector_store):
        found = vector_store.max_marginal_relevance_search_by_vector(
            vector_store._test_vectors[0], k=4, filter={"parity": "even"})
        assert len(found) == 4 and all(d.metadata["parity"] == "even" for d in found)

    def test_mmr_with_scores_gives_each_document_its_own_similarity_score(self, vector_store):
        query = vector_store._test_vectors[3]
        chosen = vector_store.max_marginal_relevance_search_with_score_by_vector(
            query, k=4, fetch_k=12, filter={"parity": "odd"})
        own = dict((d.id, s) for d, s in vector_store.similarity_search_with_score_by_vector(
            query, k=len(vector_store), filter={"parity": "odd"}))
        assert len(chosen) == 4
        for doc, score in chosen:
            assert score == pytest.approx(own[doc.id], rel=1e-5, abs=1e-5)

    def test_mmr_with_scores_chooses_what_mmr_by_vector_chooses(self, vector_store):
        query = vector_store._test_vectors[5]
        with_scores = vector_store.max_marginal_relevance_search_with_score_by_vector(query, k=5, fetch_k=15)
        plain = vector_store.max_marginal_relevance_search_by_vector(query, k=5, fetch_k=15)
        assert [d.id for d, _ in with_scores] == [d.id for d in plain]

    def test_async_mmr_with_scores_matches_the_sync_call(self, vector_store):
        import asyncio

        query = vector_store._test_vectors[7]
        got = asyncio.run(vector_store.amax_marginal_relevance_search_with_score_by_vector(query, k=3, fetch_k=10))
        expected = vector_store.max_marginal_relevance_search_with_score_by_vector(query, k=3, fetch_k=10)
        assert got == expected
