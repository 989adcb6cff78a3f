"""Conformance: ``as_retriever`` (LangChain's ``search_type``/``search_kwargs``), checked when built."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.errors import ValidationError

__all__ = ["RetrieverTests"]

#: A search type and search_kwargs that ask it for two documents.
TWO_EACH = [
    ("hybrid", {"k": 2}),
    ("similarity", {"k": 2, "fetch_k": 10}),
    ("mmr", {"k": 2, "fetch_k": 10, "lambda_mult": 0.5}),
    ("similarity_score_threshold", {"k": 2, "score_threshold": 0.0}),
    ("bm25", {"k": 2}),
]


class RetrieverTests:
    """``as_retriever(search_type, search_kwargs)``: a Runnable from query to documents;
    what it cannot use is refused when it is built, naming the key."""

    def test_a_misspelt_search_kwargs_key_is_refused_naming_it(self, indexed):
        with pytest.raises(ValidationError, match="lamda_mult") as refused:
            indexed.as_retriever("mmr", {"k": 3, "fetch_k": 50, "lamda_mult": 0.2})
        assert "\n" not in str(refused.value)

    def test_a_key_of_another_search_type_is_refused_naming_it(self, indexed):
        with pytest.raises(ValidationError, match="lambda_mult"):
            indexed.as_retriever("similarity", {"k": 3, "lambda_mult": 0.2})

    def test_a_misspelt_search_type_is_refused_naming_it(self, indexed):
        with pytest.raises(ValidationError, match="similarty"):
            indexed.as_retriever("similarty", {"k": 3})

    def test_a_threshold_retriever_without_a_score_threshold_is_refused(self, indexed):
        with pytest.raises(ValidationError, match="score_threshold"):
            indexed.as_retriever("similarity_score_threshold", {"k": 3})

    def test_valid_mmr_search_kwargs_are_taken_and_k_honoured(self, indexed):
        retriever = indexed.as_retriever("mmr", {"k": 3, "fetch_k": 50, "lambda_mult": 0.2})
        found = retriever.invoke("owls hunt at night")
        assert len(found) == 3 and Path(found[0].metadata["source"]).name == "owls.md"

    @pytest.mark.parametrize("search_type, search_kwargs", TWO_EACH, ids=[t for t, _ in TWO_EACH])
    def test_each_search_type_retrieves_k_documents(self, indexed, search_type, search_kwargs):
        assert len(indexed.as_retriever(search_type, search_kwargs).invoke("cats purr, owls hunt, dogs bark")) == 2

    def test_the_retriever_finds_what_search_finds(self, indexed):
        retrieved = indexed.as_retriever("similarity", {"k": 3}).invoke("owls hunt at night")
        assert [d.id for d in retrieved] == [d.id for d, _ in indexed.search("owls hunt at night", k=3,
                                                                             search_type="similarity")]

    def test_the_retrievers_filter_is_honoured(self, indexed, docs):
        cats = str(docs / "cats.md")
        found = indexed.as_retriever("hybrid", {"k": 4, "filter": {"source": cats}}).invoke("owls purr")
        assert found and {d.metadata["source"] for d in found} == {cats}

    def test_the_retrievers_score_threshold_is_honoured(self, indexed):
        found = indexed.as_retriever("similarity_score_threshold", {"k": 4, "score_threshold": 0.3}).invoke(
            "owls hunt at night")
        assert [Path(d.metadata["source"]).name for d in found] == ["owls.md"]

    def test_the_retriever_answers_a_batch_of_queries(self, indexed):
        batches = indexed.as_retriever("bm25", {"k": 1}).batch(["owls hunt", "goldfish swim"])
        assert [[Path(d.metadata["source"]).name for d in found] for found in batches] == [["owls.md"], ["fish.md"]]
