"""Conformance: metadata filters (dict language and callables) restrict every search."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, strategies as st

from rag.documents import Document
from rag.embeddings import DeterministicFakeEmbedding
from rag.errors import ValidationError
from stores.testing._support import DIM, brute_force_cosine, shared_fixture, unit_rows

__all__ = ["FilteringTests"]


class FilteringTests:
    """Filtered search returns the best matching documents, k whenever k match (exact stores)."""

    def test_a_dict_filter_keeps_only_matching_documents(self, vector_store):
        found = vector_store.similarity_search_by_vector(vector_store._test_vectors[0], k=10, filter={"parity": "odd"})
        assert len(found) == 10 and all(d.metadata["parity"] == "odd" for d in found)

    @shared_fixture
    @given(cut=st.integers(0, 60), k=st.integers(1, 30), seed=st.integers(0, 1000))
    def test_filtered_search_returns_min_of_k_and_the_matches(self, vector_store, cut, k, seed):
        query = unit_rows(seed, 1)[0]
        found = vector_store.similarity_search_by_vector(query, k=k, filter={"n": {"$lt": cut}})
        matches = min(cut, 50)
        if self.exact:
            assert len(found) == min(k, matches)
        assert all(d.metadata["n"] < cut for d in found)

    def test_filtered_results_are_the_best_among_the_matches(self, vector_store):
        if not self.exact:
            pytest.skip("approximate index")
        query = unit_rows(5, 1)[0]
        cosines = brute_force_cosine(query, vector_store._test_vectors)
        odd = [i for i in range(50) if i % 2]
        expected = sorted(odd, key=lambda i: -cosines[i])[:5]
        found = vector_store.similarity_search_by_vector(query, k=5, filter={"parity": {"$eq": "odd"}})
        assert [int(d.id) for d in found] == expected

    def test_a_callable_filter_receives_what_langchain_passes(self, vector_store):
        if not vector_store.supports_callable_filter:
            pytest.skip(f"{type(vector_store).__name__} filters in its database")
        seen: list[Any] = []

        def keep_small(item):
            seen.append(item)
            metadata = item.metadata if isinstance(item, Document) else item
            return metadata["n"] < 3

        found = vector_store.similarity_search_by_vector(vector_store._test_vectors[0], k=10, filter=keep_small)
        assert sorted(int(d.id) for d in found) == [0, 1, 2]
        expected_type = Document if vector_store.callable_filter_receives == "document" else dict
        assert all(isinstance(item, expected_type) for item in seen)

    def test_a_callable_filter_sees_documents_added_replaced_and_deleted_since_the_last_one(self, make_store):
        store = make_store(DeterministicFakeEmbedding(size=DIM))
        if not store.supports_callable_filter:
            pytest.skip(f"{type(store).__name__} filters in its database")
        store.add_texts(["a", "b"], [{"keep": True}, {"keep": True}], ids=["a", "b"])
        query = unit_rows(3, 1)[0]

        def kept(item: Any) -> bool:
            return (item.metadata if isinstance(item, Document) else item)["keep"]

        assert sorted(d.id for d in store.similarity_search_by_vector(query, k=10, filter=kept)) == ["a", "b"]
        store.add_texts(["c", "b2"], [{"keep": True}, {"keep": False}], ids=["c", "b"])
        store.delete(["a"])
        found = store.similarity_search_by_vector(query, k=10, filter=kept)
        assert [(d.id, d.page_content) for d in found] == [("c", "c")]

    def test_a_store_that_filters_in_its_database_refuses_a_callable_filter(self, vector_store):
        if vector_store.supports_callable_filter:
            pytest.skip(f"{type(vector_store).__name__} runs callable filters")
        with pytest.raises(ValidationError, match="cannot run a Python callable"):
            vector_store.similarity_search_by_vector(vector_store._test_vectors[0], filter=lambda m: True)
        with pytest.raises(ValidationError, match="cannot run a Python callable"):
            vector_store.max_marginal_relevance_search_by_vector(vector_store._test_vectors[0], filter=lambda m: True)

    def test_an_unknown_filter_operator_raises_naming_it(self, vector_store):
        with pytest.raises(ValidationError, match=r"\$regex"):
            vector_store.similarity_search_by_vector(vector_store._test_vectors[0], filter={"n": {"$regex": "1"}})

    def test_a_filter_matching_nothing_returns_nothing(self, vector_store):
        assert vector_store.similarity_search_by_vector(vector_store._test_vectors[0], filter={"n": -1}) == []
