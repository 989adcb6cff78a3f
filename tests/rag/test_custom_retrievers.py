"""Retrievers written the LangChain way (``_get_relevant_documents(self, query, *,
run_manager)``, fields declared as annotations) run unchanged on our BaseRetriever: the
same source is executed against langchain-core 1.7.2 and against us, and the documents and
callback events must agree."""

import asyncio
import textwrap
import uuid

import pytest

from rag.errors import ValidationError

lc_retrievers = pytest.importorskip("langchain_core.retrievers")

# The retriever and the handler, written once for LangChain; only the imports differ.
SOURCE = textwrap.dedent('''
    class ToyRetriever(BaseRetriever):
        """LangChain's documentation example, plus a nested call and an on_text event."""

        documents: list[Document]
        k: int = 2

        def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
            run_manager.on_text(f"searching {query}")
            needle = RunnableLambda(lambda q: q.lower(), name="normalise").invoke(
                query, config={"callbacks": run_manager.get_child()})
            return [d for d in self.documents if needle in d.page_content.lower()][: self.k]

        async def _aget_relevant_documents(self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun) -> list[Document]:
            await run_manager.on_text(f"async searching {query}")
            needle = await RunnableLambda(lambda q: q.lower(), name="normalise").ainvoke(
                query, config={"callbacks": run_manager.get_child()})
            return [d for d in self.documents if needle in d.page_content.lower()][: self.k]


    class SyncOnlyRetriever(BaseRetriever):
        prefix: str

        def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
            run_manager.on_text("sync body")
            return [Document(page_content=self.prefix + query)]


    class Recorder(BaseCallbackHandler):
        def __init__(self):
            self.events = []

        def on_retriever_start(self, serialized, query, *, run_id, parent_run_id=None, **kwargs):
            self.events.append(("retriever_start", kwargs.get("name"), query, run_id, parent_run_id))

        def on_retriever_end(self, documents, *, run_id, parent_run_id=None, **kwargs):
            self.events.append(("retriever_end", [d.page_content for d in documents], None, run_id, parent_run_id))

        def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs):
            self.events.append(("chain_start", kwargs.get("name"), inputs, run_id, parent_run_id))

        def on_chain_end(self, outputs, *, run_id, parent_run_id=None, **kwargs):
            self.events.append(("chain_end", None, outputs, run_id, parent_run_id))

        def on_text(self, text, *, run_id, parent_run_id=None, **kwargs):
            self.events.append(("text", None, text, run_id, parent_run_id))
''')

OURS = """
from rag.callbacks import AsyncCallbackManagerForRetrieverRun, BaseCallbackHandler, CallbackManagerForRetrieverRun
from rag.documents import Document
from rag.retrievers import BaseRetriever
from rag.runnables import RunnableLambda
"""

THEIRS = """
from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, BaseCallbackHandler, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda
"""


def load(imports: str) -> dict:
    namespace: dict = {}
    exec(imports + SOURCE, namespace)
    return namespace


@pytest.fixture(params=["ours", "theirs"])
def side(request):
    return request.param


def normalised(events):
    """Run ids replaced by their order of first appearance (ids differ between runs)."""
    numbers: dict = {}

    def number(run_id):
        return None if run_id is None else numbers.setdefault(run_id, len(numbers))

    return [(kind, name, payload, number(run_id), number(parent)) for kind, name, payload, run_id, parent in events]


def run_both(call):
    results = []
    for imports in (OURS, THEIRS):
        namespace = load(imports)
        docs = [namespace["Document"](page_content=text) for text in ("A cat sat", "The CAT ran", "a dog", "cat nap")]
        recorder = namespace["Recorder"]()
        found = call(namespace, docs, recorder)
        results.append(([d.page_content for d in found], normalised(recorder.events)))
    return results


def test_a_langchain_retriever_returns_what_langchain_returns():
    ours, theirs = run_both(lambda ns, docs, rec: ns["ToyRetriever"](documents=docs, k=2).invoke(
        "Cat", config={"callbacks": [rec]}))
    assert ours[0] == theirs[0] == ["A cat sat", "The CAT ran"]


def test_its_run_manager_reaches_our_handlers_as_langchains_reaches_its():
    ours, theirs = run_both(lambda ns, docs, rec: ns["ToyRetriever"](documents=docs).invoke(
        "Cat", config={"callbacks": [rec]}))
    assert ours[1] == theirs[1]
    kinds = [event[0] for event in ours[1]]
    assert kinds == ["retriever_start", "text", "chain_start", "chain_end", "retriever_end"]


def test_a_call_given_run_manager_get_child_nests_under_the_retriever_run():
    ours, _ = run_both(lambda ns, docs, rec: ns["ToyRetriever"](documents=docs).invoke(
        "Cat", config={"callbacks": [rec]}))
    retriever_start, chain_start = ours[1][0], ours[1][2]
    assert chain_start[1] == "normalise" and chain_start[4] == retriever_start[3]


def test_the_async_body_gets_an_async_run_manager_on_both_sides():
    ours, theirs = run_both(lambda ns, docs, rec: asyncio.run(ns["ToyRetriever"](documents=docs, k=3).ainvoke(
        "cat", config={"callbacks": [rec]})))
    assert ours == theirs
    assert ("text", None, "async searching cat", 0, None) in ours[1]


def test_a_sync_only_retriever_runs_from_ainvoke_with_a_sync_run_manager():
    ours, theirs = run_both(lambda ns, docs, rec: asyncio.run(ns["SyncOnlyRetriever"](prefix=">").ainvoke(
        "q", config={"callbacks": [rec]})))
    assert ours == theirs and ours[0] == [">q"]


def test_batch_runs_the_langchain_style_body_for_each_query():
    namespace = load(OURS)
    retriever = namespace["SyncOnlyRetriever"](prefix="#")
    assert [[d.page_content for d in found] for found in retriever.batch(["a", "b"])] == [["#a"], ["#b"]]


def test_field_defaults_are_not_shared_between_instances():
    namespace = load(OURS)

    class Collecting(namespace["BaseRetriever"]):
        seen: list = []

        def _get_relevant_documents(self, query, *, run_manager):
            self.seen.append(query)
            return []

    first, second = Collecting(), Collecting()
    first.invoke("x")
    assert first.seen == ["x"] and second.seen == []


def test_a_missing_required_field_is_named():
    namespace = load(OURS)
    with pytest.raises(ValidationError, match=r"missing the required field\(s\) \['documents'\]"):
        namespace["ToyRetriever"](k=1)


def test_an_unknown_field_is_refused_naming_the_fields_there_are():
    namespace = load(OURS)
    with pytest.raises(ValidationError, match=r"unknown field\(s\) \['kk'\].*'documents', 'k'"):
        namespace["ToyRetriever"](documents=[], kk=1)


def test_invoke_keywords_for_a_retriever_that_takes_none_raise_instead_of_vanishing():
    namespace = load(OURS)
    with pytest.raises(ValidationError, match=r"takes no keyword arguments besides run_manager; invoke got \['k'\]"):
        namespace["SyncOnlyRetriever"](prefix="").invoke("q", k=3)


def test_a_retriever_without_run_manager_still_gets_invoke_keywords():
    namespace = load(OURS)

    class Keyworded(namespace["BaseRetriever"]):
        def _get_relevant_documents(self, query, **kwargs):
            return [namespace["Document"](f"{query}:{kwargs}")]

    assert Keyworded().invoke("q", k=3)[0].page_content == "q:{'k': 3}"


def test_a_run_manager_without_handlers_is_still_given_and_harmless():
    namespace = load(OURS)
    documents = [namespace["Document"]("cat")]
    assert [d.page_content for d in namespace["ToyRetriever"](documents=documents).invoke("cat")] == ["cat"]


def test_the_run_manager_exposes_langchains_ids_and_tags():
    namespace = load(OURS)
    seen = {}

    class Inspecting(namespace["BaseRetriever"]):
        def _get_relevant_documents(self, query, *, run_manager):
            seen.update(run_id=run_manager.run_id, parent=run_manager.parent_run_id, tags=run_manager.tags,
                        child=run_manager.get_child("inner"))
            return []

    recorder = namespace["Recorder"]()
    Inspecting(tags=["mine"]).invoke("q", config={"callbacks": [recorder], "tags": ["outer"]})
    assert isinstance(seen["run_id"], uuid.UUID) and seen["parent"] is None
    assert seen["tags"] == ["outer", "mine"]
    assert list(seen["child"]) == [recorder] and seen["child"].parent_run_id == seen["run_id"]
    assert seen["child"].tags == ["outer", "mine", "inner"]
