"""Conformance: dispatch by search type, retrievers and the ``from_*`` constructors."""

from __future__ import annotations

import pytest

from rag.errors import ValidationError

__all__ = ["SearchTypeTests"]


class SearchTypeTests:
    """``search`` dispatches on LangChain's search types; ``as_retriever`` and ``from_texts`` work."""

    @pytest.mark.parametrize("search_type", ["similarity", "mmr"])
    def test_search_dispatches_on_search_type(self, store, search_type):
        store.add_texts(["red apple", "green pear", "blue sky"])
        assert len(store.search("apple", search_type, k=2)) == 2

    def test_search_threshold_type_dispatches(self, store):
        store.add_texts(["red apple", "green pear", "blue sky"])
        found = store.search("red apple", "similarity_score_threshold", score_threshold=0.9)
        assert [d.page_content for d in found] == ["red apple"]

    def test_an_unknown_search_type_raises_with_the_choices(self, store):
        with pytest.raises(ValidationError, match="similarity_score_threshold"):
            store.search("q", "nearest")

    def test_as_retriever_returns_a_working_retriever(self, store):
        store.add_texts(["red apple", "green pear"], ids=["a", "p"])
        retriever = store.as_retriever(search_kwargs={"k": 1})
        assert [d.id for d in retriever.invoke("apple")] == ["a"]

    def test_from_texts_builds_a_searchable_store(self, make_store, embedding, construction_options):
        store_class = type(make_store(embedding))
        store = store_class.from_texts(["red apple", "green pear"], embedding, ids=["a", "p"], **construction_options)
        assert store.similarity_search("pear", k=1)[0].id == "p"
