"""Fake chat models that script tool calls: FakeListChatModel and GenericFakeChatModel."""

import asyncio

import pytest

from rag.errors import UsageError, ValidationError
from rag.messages import AIMessage, AIMessageChunk
from rag.models import FakeListChatModel, GenericFakeChatModel
from rag.tools import tool


@tool
def search(query: str) -> str:
    """Search the docs."""
    return query


def tool_call_reply(text=""):
    return AIMessage(text, tool_calls=[{"name": "search", "args": {"query": "rag"}, "id": "call_1"},
                                       {"name": "search", "args": {"query": "faiss"}, "id": "call_2"}])


def test_generic_fake_replies_with_the_scripted_messages_in_order():
    model = GenericFakeChatModel(messages=iter([tool_call_reply(), "plain text"]))
    first, second = model.invoke("q"), model.invoke("q")
    assert [c["args"] for c in first.tool_calls] == [{"query": "rag"}, {"query": "faiss"}]
    assert (second.content, second.tool_calls) == ("plain text", [])


def test_generic_fake_supports_bind_tools():
    model = GenericFakeChatModel(messages=iter([tool_call_reply()]))
    assert model.bind_tools([search], tool_choice="any").invoke("q").tool_calls[0]["name"] == "search"


def test_fake_list_supports_bind_tools_and_scripted_tool_calls():
    model = FakeListChatModel(responses=[tool_call_reply(), "done"])
    bound = model.bind_tools([search])
    assert bound.invoke("q").tool_calls[1]["id"] == "call_2"
    assert bound.invoke("q").content == "done"


@pytest.mark.parametrize("make", [
    lambda reply: GenericFakeChatModel(messages=iter([reply])),
    lambda reply: FakeListChatModel(responses=[reply]),
])
def test_streamed_tool_calls_add_up_to_the_scripted_message(make):
    reply = tool_call_reply("Let me look.")
    chunks = list(make(reply).stream("q"))
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    assert total.content == "Let me look."
    assert [(c["name"], c["args"], c["id"]) for c in total.tool_calls] == [
        ("search", {"query": "rag"}, "call_1"), ("search", {"query": "faiss"}, "call_2")]


def test_streamed_text_comes_word_by_word():
    chunks = list(GenericFakeChatModel(messages=iter(["one two three"])).stream("q"))
    assert [c.content for c in chunks] == ["one ", "two ", "three"]


def test_the_async_path_gives_the_same_replies():
    model = GenericFakeChatModel(messages=iter([tool_call_reply(), "end"]))

    async def run():
        return await model.ainvoke("q"), [c async for c in model.astream("q")]

    first, chunks = asyncio.run(run())
    assert first.tool_calls[0]["args"] == {"query": "rag"}
    assert "".join(c.content for c in chunks) == "end"


def test_replies_are_copies_so_the_script_can_be_reused():
    reply = tool_call_reply()
    model = FakeListChatModel(responses=[reply])
    model.invoke("q").tool_calls[0]["args"]["query"] = "changed"
    assert model.invoke("q").tool_calls[0]["args"] == {"query": "rag"}
    assert reply.id is None


def test_an_exhausted_script_says_how_many_replies_it_gave():
    model = GenericFakeChatModel(messages=iter(["only"]))
    model.invoke("q")
    with pytest.raises(UsageError, match="gave all 1"):
        model.invoke("q")


@pytest.mark.parametrize("bad", ["a string", AIMessage("one message"), 42])
def test_generic_fake_needs_an_iterable_of_messages(bad):
    with pytest.raises(ValidationError, match="messages=iter"):
        GenericFakeChatModel(messages=bad)


def test_a_scripted_reply_of_another_type_is_named():
    with pytest.raises(ValidationError, match="str or an AIMessage, got int"):
        GenericFakeChatModel(messages=iter([3])).invoke("q")


def test_fake_list_refuses_responses_that_are_not_str_or_ai_messages():
    with pytest.raises(ValidationError, match="str or AIMessage"):
        FakeListChatModel(responses=[{"content": "hi"}])
