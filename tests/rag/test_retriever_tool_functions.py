"""create_retriever_tool(...).func and .coroutine are plain annotated functions, as
LangChain's: typing.get_type_hints works on them (LangGraph's ToolNode calls it) and a
direct call returns what LangChain's returns."""

import asyncio
import inspect
import typing

import pytest

from rag.callbacks import BaseCallbackHandler
from rag.embeddings import DeterministicFakeEmbedding
from rag.tools import create_retriever_tool
from stores import InMemoryVectorStore

lc_tools = pytest.importorskip("langchain_core.tools")
lc_vectorstores = pytest.importorskip("langchain_core.vectorstores")
lc_embeddings = pytest.importorskip("langchain_core.embeddings")

TEXTS = ["Cats purr when content.", "Dogs bark at strangers.", "Parrots repeat words."]
IDS = ["c", "d", "p"]


def both_tools(**options):
    ours = InMemoryVectorStore.from_texts(TEXTS, DeterministicFakeEmbedding(size=16), ids=IDS)
    theirs = lc_vectorstores.InMemoryVectorStore.from_texts(TEXTS, lc_embeddings.DeterministicFakeEmbedding(size=16),
                                                            ids=IDS)
    return (create_retriever_tool(ours.as_retriever(search_kwargs={"k": 2}), "pets", "Search pets.", **options),
            lc_tools.create_retriever_tool(theirs.as_retriever(search_kwargs={"k": 2}), "pets", "Search pets.",
                                           **options))


@pytest.mark.parametrize("attribute", ["func", "coroutine"])
def test_type_hints_resolve_with_langchains_parameters(attribute):
    ours, theirs = both_tools()
    our_hints = typing.get_type_hints(getattr(ours, attribute), include_extras=True)
    their_hints = typing.get_type_hints(getattr(theirs, attribute), include_extras=True)
    assert set(their_hints) <= set(our_hints)
    assert our_hints["query"] is str


def test_the_functions_are_plain_functions_not_partials():
    ours, _ = both_tools()
    assert inspect.isfunction(ours.func) and inspect.iscoroutinefunction(ours.coroutine)


def test_calling_func_directly_returns_langchains_text():
    ours, theirs = both_tools()
    assert ours.func("cats purr") == theirs.func("cats purr")


def test_calling_the_coroutine_directly_returns_langchains_content_and_artifact():
    ours, theirs = both_tools(response_format="content_and_artifact")
    our_text, our_docs = asyncio.run(ours.coroutine("dogs bark"))
    their_text, their_docs = asyncio.run(theirs.coroutine("dogs bark"))
    assert our_text == their_text and [d.id for d in our_docs] == [d.id for d in their_docs]


def test_callbacks_given_to_func_reach_the_retriever_run():
    seen = []

    class Queries(BaseCallbackHandler):
        def on_retriever_start(self, serialized, query, **kwargs):
            seen.append(query)

    ours, _ = both_tools()
    ours.func("parrots", callbacks=[Queries()])
    assert seen == ["parrots"]
