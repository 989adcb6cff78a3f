"""The wire codec (rag.codec): round trips (property-based), LangServe's shapes, and the
role table's type tags."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rag import codec
from rag.documents import Document
from rag.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage
from rag.prompts.values import ChatPromptValue, StringPromptValue

text = st.text(max_size=30)
json_values = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | text,
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                               st.text(max_size=8).filter(lambda k: k != "type"), inner, max_size=4),
                           max_leaves=12)
metadata = st.dictionaries(st.text(max_size=8), json_values, max_size=4)
documents = st.builds(Document, text, metadata, id=st.none() | text)
messages = st.one_of(
    st.builds(HumanMessage, text, name=st.none() | text, id=st.none() | text),
    st.builds(SystemMessage, text),
    st.builds(AIMessage, text, id=st.none() | text,
              tool_calls=st.lists(st.builds(lambda n, a, i: {"name": n, "args": a, "id": i}, text,
                                            st.dictionaries(st.text(max_size=5), json_values, max_size=3),
                                            st.none() | text), max_size=2)),
    st.builds(ToolMessage, text, tool_call_id=st.text(min_size=1, max_size=10)),
)


@settings(deadline=None, max_examples=60)
@given(st.lists(documents | messages, max_size=4))
def test_documents_and_messages_survive_the_wire(values):
    assert codec.loads(codec.dumps(values)) == values


@settings(deadline=None, max_examples=40)
@given(json_values)
def test_plain_json_passes_through_unchanged(value):
    assert codec.loads(codec.dumps(value)) == value


def test_an_ai_message_chunk_carries_tool_call_chunks_on_the_wire():
    chunk = AIMessageChunk("", tool_call_chunks=[{"name": "search", "args": '{"q": 1}', "id": "c1", "index": 0}])
    wire = codec.encode(chunk)
    assert wire["type"] == "AIMessageChunk"
    assert wire["tool_call_chunks"] == [{"name": "search", "args": '{"q": 1}', "id": "c1", "index": 0,
                                         "type": "tool_call_chunk"}]
    assert codec.decode(wire) == chunk


def test_prompt_values_use_langserves_type_tags():
    assert codec.encode(StringPromptValue("hi")) == {"text": "hi", "type": "StringPromptValue"}
    value = ChatPromptValue([HumanMessage("hi")])
    assert codec.encode(value)["type"] == "ChatPromptValueConcrete"
    assert codec.decode(codec.encode(value)) == value


def test_a_dict_that_only_looks_like_a_document_stays_a_dict():
    assert codec.decode({"type": "Document", "page_content": 5}) == {"type": "Document", "page_content": 5}


def test_values_json_cannot_hold_are_refused_by_name():
    import pytest

    from rag.errors import InvalidTypeError

    with pytest.raises(InvalidTypeError, match="object"):
        codec.encode(object())


def test_langchains_chunks_of_other_kinds_decode_as_whole_messages():
    human = {"type": "HumanMessageChunk", "content": "hi", "id": "h1"}
    tool = {"type": "ToolMessageChunk", "content": "42", "tool_call_id": "c1"}
    assert codec.decode([human, tool]) == [HumanMessage("hi", id="h1"), ToolMessage("42", tool_call_id="c1")]


def test_langchains_function_and_chat_messages_stay_data():
    # No class here for FunctionMessage or ChatMessage: kept as the dicts they are, as LangServe does.
    records = [{"type": "function", "content": "{}", "name": "lookup"}, {"type": "chat", "content": "hi", "role": "x"}]
    assert codec.decode(records) == records
