"""Retrievers: VectorStoreRetriever's search types, validation and callbacks."""

import asyncio

import pytest

from rag import Document
from rag.embeddings import HashingEmbeddings
from rag.errors import ValidationError
from rag.retrievers import BaseRetriever, VectorStoreRetriever
from rag.runnables import RunnableLambda
from stores import InMemoryVectorStore

TEXTS = ["red apples grow on trees", "green pears are sweet", "the sky is blue today", "red apples make cider"]


@pytest.fixture
def store():
    return InMemoryVectorStore.from_texts(TEXTS, HashingEmbeddings(dim=256), ids=["a1", "p", "s", "a2"],
                                          metadatas=[{"kind": "fruit"}, {"kind": "fruit"}, {"kind": "sky"}, {"kind": "fruit"}])


def test_similarity_retrieval_returns_the_k_most_similar(store):
    found = VectorStoreRetriever(store, search_kwargs={"k": 2}).invoke("red apples")
    assert sorted(d.id for d in found) == ["a1", "a2"]


def test_threshold_retrieval_keeps_only_relevant_documents(store):
    retriever = store.as_retriever(search_type="similarity_score_threshold", search_kwargs={"score_threshold": 0.3})
    found = retriever.invoke("red apples")
    assert found and {d.id for d in found} <= {"a1", "a2"}


def test_an_integer_threshold_is_accepted(store):
    retriever = store.as_retriever(search_type="similarity_score_threshold", search_kwargs={"score_threshold": 1})
    assert retriever.invoke("nothing like this") == []


def test_mmr_retrieval_returns_diverse_documents(store):
    found = store.as_retriever(search_type="mmr", search_kwargs={"k": 2, "lambda_mult": 0.1}).invoke("red apples")
    assert len(found) == 2 and found[0].id in {"a1", "a2"} and found[1].id not in {"a1", "a2"}


def test_invoke_kwargs_override_search_kwargs(store):
    retriever = store.as_retriever(search_kwargs={"k": 1})
    assert len(retriever.invoke("apples", k=3)) == 3


def test_a_filter_in_search_kwargs_is_applied(store):
    found = store.as_retriever(search_kwargs={"k": 4, "filter": {"kind": "sky"}}).invoke("apples")
    assert [d.id for d in found] == ["s"]


def test_an_unknown_search_type_names_the_value_and_the_choices(store):
    with pytest.raises(ValidationError, match="'similarity', 'similarity_score_threshold', 'mmr', got 'fuzzy'"):
        store.as_retriever(search_type="fuzzy")


def test_a_missing_threshold_is_refused(store):
    with pytest.raises(ValidationError, match="needs search_kwargs\\['score_threshold'\\]"):
        store.as_retriever(search_type="similarity_score_threshold")


@pytest.mark.parametrize("threshold", [-0.01, 1.01, "high", None])
def test_a_threshold_outside_unit_range_is_refused(store, threshold):
    with pytest.raises(ValidationError, match="score_threshold"):
        store.as_retriever(search_type="similarity_score_threshold", search_kwargs={"score_threshold": threshold})


def test_a_misspelt_search_kwarg_is_refused_with_the_accepted_ones(store):
    with pytest.raises(ValidationError, match="\\['filters'\\] are not used"):
        store.as_retriever(search_kwargs={"filters": {"kind": "sky"}})


def test_a_bad_k_is_refused_at_construction(store):
    with pytest.raises(ValidationError, match="positive int, got 0"):
        store.as_retriever(search_kwargs={"k": 0})


def test_a_retriever_rejects_a_non_string_query(store):
    with pytest.raises(ValidationError, match="query string, got int"):
        store.as_retriever().invoke(5)


def test_ainvoke_and_batch_give_invoke_results(store):
    retriever = store.as_retriever(search_kwargs={"k": 2})
    expected = retriever.invoke("blue sky")
    assert asyncio.run(retriever.ainvoke("blue sky")) == expected
    assert retriever.batch(["blue sky", "pears"])[0] == expected


def test_a_retriever_composes_with_runnables(store):
    chain = store.as_retriever(search_kwargs={"k": 1}) | RunnableLambda(lambda docs: docs[0].id)
    assert chain.invoke("green pears") == "p"


def test_callbacks_see_the_query_and_the_documents(store):
    events = []

    class Recorder:
        def on_retriever_start(self, serialized, query, **kwargs):
            events.append(("start", query))

        def on_retriever_end(self, documents, **kwargs):
            events.append(("end", len(documents)))

    store.as_retriever(search_kwargs={"k": 2}).invoke("pears", {"callbacks": [Recorder()]})
    assert events == [("start", "pears"), ("end", 2)]


def test_a_custom_retriever_implements_one_method():
    class Fixed(BaseRetriever):
        def _get_relevant_documents(self, query, **kwargs):
            return [Document(query.upper())]

    assert Fixed().invoke("hi") == [Document("HI")]
    assert asyncio.run(Fixed().ainvoke("yo")) == [Document("YO")]


def test_an_error_reaches_the_error_callback_and_the_caller():
    seen = []

    class Failing(BaseRetriever):
        def _get_relevant_documents(self, query, **kwargs):
            raise RuntimeError("backend down")

    class Recorder:
        def on_retriever_error(self, error, **kwargs):
            seen.append(str(error))

    with pytest.raises(RuntimeError, match="backend down"):
        Failing().invoke("q", {"callbacks": [Recorder()]})
    assert seen == ["backend down"]
