"""EnsembleRetriever: weighted reciprocal-rank fusion, matched with LangChain's where it can be."""

import asyncio

import pytest

from rag.documents import Document
from rag.ensemble import weighted_reciprocal_rank
from rag.errors import NotFoundError, ValidationError
from rag.retrievers import BaseRetriever, EnsembleRetriever


class Fixed(BaseRetriever):
    """Returns the same list every time and records the configs it was invoked with."""

    def __init__(self, docs):
        self.docs = docs
        self.configs = []

    def invoke(self, input, config=None, **kwargs):
        self.configs.append(config)
        return super().invoke(input, config, **kwargs)

    def _get_relevant_documents(self, query, **kwargs):
        return list(self.docs)


A, B, C = Document("a"), Document("b"), Document("c")


def test_fusion_scores_by_hand():
    # weights 0.7/0.3, c = 1: a = 0.7/2 + 0.3/3 = 0.45; b = 0.7/3 + 0.3/2 = 0.38333; c = 0.3/4
    fused = weighted_reciprocal_rank([[A, B], [B, A, C]], [0.7, 0.3], c=1)
    assert [(d.page_content, round(s, 5)) for d, s in fused] == [("a", 0.45), ("b", 0.38333), ("c", 0.075)]


def test_equal_scores_keep_first_seen_order():
    fused = weighted_reciprocal_rank([[A], [B]], [0.5, 0.5])
    assert [d.page_content for d, _ in fused] == ["a", "b"]


def test_documents_with_ids_are_matched_by_id_not_text():
    first, second = Document("same text", {}, "1"), Document("same text", {}, "2")
    assert len(weighted_reciprocal_rank([[first], [second]], [0.5, 0.5])) == 2


def test_documents_without_ids_are_matched_by_text():
    assert len(weighted_reciprocal_rank([[Document("x")], [Document("x", {"other": 1})]], [0.5, 0.5])) == 1


def test_id_key_matches_by_a_metadata_value():
    left, right = Document("one", {"doc": 7}), Document("two", {"doc": 7})
    fused = weighted_reciprocal_rank([[left], [right]], [0.5, 0.5], id_key="doc")
    assert [d.page_content for d, _ in fused] == ["one"]


def test_a_missing_id_key_names_the_document():
    with pytest.raises(NotFoundError, match="'doc'.*orphan"):
        weighted_reciprocal_rank([[Document("orphan")]], [1.0], id_key="doc")


def test_the_retriever_returns_every_distinct_document_best_first():
    ensemble = EnsembleRetriever([Fixed([A, B]), Fixed([B, C])])
    assert [d.page_content for d in ensemble.invoke("q")] == ["b", "a", "c"]


def test_weights_default_to_equal_shares():
    assert EnsembleRetriever([Fixed([]), Fixed([]), Fixed([]), Fixed([])]).weights == [0.25] * 4


def test_a_heavier_weight_wins_a_head_to_head():
    ensemble = EnsembleRetriever([Fixed([A, B]), Fixed([B, A])], weights=[0.9, 0.1])
    assert ensemble.invoke("q")[0].page_content == "a"


def test_string_results_are_wrapped_in_documents():
    class Strings:
        def invoke(self, query, config=None):
            return ["plain"]

    assert EnsembleRetriever([Strings()]).invoke("q") == [Document("plain")]


def test_children_receive_the_callbacks_and_a_position_tag():
    first, second = Fixed([A]), Fixed([B])
    EnsembleRetriever([first, second]).invoke("q", {"tags": ["outer"], "run_name": "mine"})
    assert first.configs[0]["tags"] == ["outer", "retriever_1"]
    assert second.configs[0]["tags"] == ["outer", "retriever_2"]
    assert "run_name" not in first.configs[0]


def test_async_gives_the_same_result():
    ensemble = EnsembleRetriever([Fixed([A, B]), Fixed([C, B])], weights=[0.3, 0.7])
    assert asyncio.run(ensemble.ainvoke("q")) == ensemble.invoke("q")


@pytest.mark.parametrize("kwargs, shown", [
    ({"weights": [1.0]}, "1 weights for 2"), ({"weights": [-1, 2]}, "-1"), ({"weights": [0, 0]}, "greater than 0"),
    ({"c": -5}, "-5"), ({"id_key": 3}, "3"),
])
def test_bad_arguments_fail_at_construction(kwargs, shown):
    with pytest.raises(ValidationError, match=shown):
        EnsembleRetriever([Fixed([]), Fixed([])], **kwargs)


def test_no_retrievers_is_refused():
    with pytest.raises(ValidationError, match="empty"):
        EnsembleRetriever([])


def test_order_matches_langchains_for_documents_without_ids():
    from langchain_classic.retrievers import EnsembleRetriever as LangChainEnsemble
    from langchain_core.documents import Document as LCDocument
    from langchain_core.retrievers import BaseRetriever as LCBase

    lists = [["w", "x", "y", "z"], ["y", "v", "w"], ["z", "y", "u", "x", "w"]]
    weights = [0.5, 0.3, 0.2]

    class LCFixed(LCBase):
        texts: list

        def _get_relevant_documents(self, query, *, run_manager):
            return [LCDocument(page_content=t) for t in self.texts]

    theirs = LangChainEnsemble(retrievers=[LCFixed(texts=t) for t in lists], weights=weights, c=10).invoke("q")
    ours = EnsembleRetriever([Fixed([Document(t) for t in texts]) for texts in lists], weights=weights, c=10).invoke("q")
    assert [d.page_content for d in ours] == [d.page_content for d in theirs]
