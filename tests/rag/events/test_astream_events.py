"""astream_events v2: LangChain's event shapes, checked against langchain-core 1.7.2."""

from __future__ import annotations

import asyncio

import pytest

from rag import codec
from rag.documents import Document
from rag.errors import ValidationError
from rag.models import FakeListChatModel
from rag.parsers import StrOutputParser
from rag.prompts import ChatPromptTemplate
from rag.retrievers import BaseRetriever
from rag.runnables import RunnableLambda, RunnableParallel

lc_core = pytest.importorskip("langchain_core")
from langserve.serialization import WellKnownLCSerializer  # noqa: E402

KEYS = {"event", "name", "run_id", "parent_ids", "tags", "metadata", "data"}


def collect(runnable, value, **kwargs):
    async def run():
        return [event async for event in runnable.astream_events(value, version="v2", **kwargs)]

    return asyncio.run(run())


def _plain(value):
    """Messages without their run-based ids; chunks and messages compared by content; a chat
    prompt value without the type tag we add (so LangServe's client rebuilds it)."""
    if isinstance(value, dict):
        if value.get("type") == "ChatPromptValueConcrete":
            value = {k: v for k, v in value.items() if k != "type"}
        if value.get("type") in ("ai", "AIMessageChunk"):
            value = {k: v for k, v in value.items() if k not in ("id", "tool_call_chunks", "chunk_position")}
            value["type"] = "ai"
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def normalise(events, encode):
    """Each event with run ids replaced by the order runs appeared in, data encoded."""
    order: dict[str, int] = {}
    for event in events:
        order.setdefault(event["run_id"], len(order))
    out = []
    for event in events:
        metadata = {k: v for k, v in event["metadata"].items() if not k.startswith(("ls_", "lc_"))}
        out.append({"event": event["event"], "name": event["name"], "tags": event["tags"], "metadata": metadata,
                    "run": order[event["run_id"]], "parents": [order.get(p) for p in event["parent_ids"]],
                    "data": _plain(encode(event["data"]))})
    return out


def assert_same_events(ours, theirs):
    """Same events in the same order; our data holds at least LangChain's keys, equal."""
    assert [(e["event"], e["name"], e["tags"], e["run"], e["parents"], e["metadata"]) for e in ours] == \
        [(e["event"], e["name"], e["tags"], e["run"], e["parents"], e["metadata"]) for e in theirs]
    for mine, reference in zip(ours, theirs):
        assert {k: mine["data"].get(k) for k in reference["data"]} == reference["data"], mine["event"]


def test_prompt_model_parser_events_match_langchain():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel as LCModel
    from langchain_core.output_parsers import StrOutputParser as LCParser
    from langchain_core.prompts import ChatPromptTemplate as LCPrompt

    ours = ChatPromptTemplate.from_template("say {topic}") | FakeListChatModel(responses=["x"]) | StrOutputParser()
    theirs = LCPrompt.from_template("say {topic}") | LCModel(responses=["x"]) | LCParser()
    assert_same_events(normalise(collect(ours, {"topic": "cats"}), codec.encode),
                       normalise(collect(theirs, {"topic": "cats"}), WellKnownLCSerializer().dumpd))


def test_lambda_calling_a_model_events_match_langchain_including_tokens():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel as LCModel
    from langchain_core.runnables import RunnableLambda as LCLambda

    our_model, their_model = FakeListChatModel(responses=["y"]), LCModel(responses=["y"])

    def ask(question):
        return our_model.invoke(question)

    def lc_ask(question):
        return their_model.invoke(question)

    lc_ask.__name__ = "ask"
    ours, theirs = collect(RunnableLambda(ask), "q"), collect(LCLambda(lc_ask), "q")
    assert_same_events(normalise(ours, codec.encode), normalise(theirs, WellKnownLCSerializer().dumpd))
    assert "on_chat_model_stream" in [e["event"] for e in ours]  # invoke still streams tokens


def test_nested_sequence_and_map_events_match_langchain_per_run():
    from langchain_core.runnables import RunnableLambda as LCLambda
    from langchain_core.runnables import RunnableParallel as LCParallel

    def inc(x):
        return x + 1

    def double(x):
        return x * 2

    def square(x):
        return x * x

    ours = RunnableLambda(inc) | RunnableParallel(d=RunnableLambda(double), s=RunnableLambda(square))
    theirs = LCLambda(inc) | LCParallel(d=LCLambda(double), s=LCLambda(square))

    def by_run(events):
        # Branches run concurrently: compare each run's own events; chunks in any order.
        runs: dict = {}
        for event in events:
            runs.setdefault((event["name"], tuple(event["tags"]), len(event["parent_ids"])), []).append(
                (event["event"], repr(event["data"].get("chunk")), event["data"].get("output")))
        return {run: (items[0], sorted(items[1:-1]), items[-1]) for run, items in runs.items()}

    assert by_run(collect(ours, 2)) == by_run(collect(theirs, 2))


def test_every_event_has_the_v2_keys_and_children_name_their_parents():
    chain = ChatPromptTemplate.from_template("{q}") | FakeListChatModel(responses=["a b"])
    events = collect(chain, {"q": "hi"})
    assert all(set(event) == KEYS for event in events)
    root = events[0]["run_id"]
    assert all(event["parent_ids"] == [root] for event in events if event["run_id"] != root)


def test_chat_model_token_events_carry_message_chunks():
    events = collect(FakeListChatModel(responses=["one two three"]), "hi")
    tokens = [event["data"]["chunk"].content for event in events if event["event"] == "on_chat_model_stream"]
    assert tokens == ["one ", "two ", "three"]


class Shelf(BaseRetriever):
    def _get_relevant_documents(self, query, **kwargs):
        return [Document(f"about {query}")]


def test_retriever_events_carry_the_query_and_the_documents():
    events = collect(Shelf(), "cats")
    assert [e["event"] for e in events] == ["on_retriever_start", "on_retriever_end"]
    assert events[0]["data"] == {"input": "cats"}  # the root's input as given
    assert events[1]["data"]["output"] == [Document("about cats")]


def test_include_and_exclude_filters_follow_langchain():
    chain = ChatPromptTemplate.from_template("{q}") | FakeListChatModel(responses=["a"]) | StrOutputParser()
    assert {e["event"] for e in collect(chain, {"q": "x"}, include_types=["prompt"])} == {
        "on_prompt_start", "on_prompt_end"}
    assert {e["name"] for e in collect(chain, {"q": "x"}, exclude_names=["FakeListChatModel"])} == {
        "RunnableSequence", "ChatPromptTemplate", "StrOutputParser"}
    assert {e["name"] for e in collect(chain, {"q": "x"}, include_tags=["seq:step:3"])} == {"StrOutputParser"}


def test_an_error_is_raised_after_the_events_before_it():
    def fail(x):
        raise ValueError("no")

    seen = []

    async def run():
        async for event in (RunnableLambda(lambda x: x) | RunnableLambda(fail)).astream_events(1):
            seen.append(event["event"])

    with pytest.raises(ValueError, match="no"):
        asyncio.run(run())
    assert seen[:2] == ["on_chain_start", "on_chain_start"]


def test_only_version_v2_is_offered():
    async def first_v1_event():
        return await RunnableLambda(lambda x: x).astream_events(1, version="v1").__anext__()

    with pytest.raises(ValidationError, match="v2"):
        asyncio.run(first_v1_event())


def test_leaving_the_event_stream_early_stops_the_run():
    reached_end = []

    async def slow(x):
        await asyncio.sleep(30)
        reached_end.append(x)
        return x

    async def first_event_only():
        stream = RunnableLambda(slow).astream_events(1)
        first = await stream.__anext__()
        await stream.aclose()  # what `break` in `async for` does
        return first["event"]

    assert asyncio.run(first_event_only()) == "on_chain_start"
    assert reached_end == []
