"""Messages, prompt templates and StrOutputParser, with differential checks against langchain-core."""

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.errors import NotFoundError, ValidationError
from rag.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
    get_buffer_string,
    message_chunk_to_message,
)
from rag.parsers import StrOutputParser
from rag.prompts import ChatPromptTemplate, ChatPromptValue, MessagesPlaceholder, PromptTemplate, StringPromptValue

lc_prompts = pytest.importorskip("langchain_core.prompts")


# -- messages -----------------------------------------------------------------------------
def test_tuples_strings_and_role_dicts_coerce_to_messages():
    messages = convert_to_messages([("system", "s"), "h", ("assistant", "a"), {"role": "user", "content": "u"}])
    assert messages == [SystemMessage("s"), HumanMessage("h"), AIMessage("a"), HumanMessage("u")]


def test_an_unknown_role_names_it_and_the_choices():
    with pytest.raises(ValidationError, match="unknown message role 'robot'.*'human'"):
        convert_to_messages([("robot", "beep")])


def test_chunks_add_content_and_usage():
    total = AIMessageChunk("a", usage_metadata={"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}) + \
        AIMessageChunk("b", usage_metadata={"input_tokens": 0, "output_tokens": 1, "total_tokens": 1})
    assert total.content == "ab" and total.usage_metadata == {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}


@settings(deadline=None, max_examples=50)
@given(st.lists(st.text(max_size=5), min_size=1, max_size=6))
def test_adding_chunks_concatenates_their_text_in_order(pieces):
    total = AIMessageChunk(pieces[0])
    for piece in pieces[1:]:
        total = total + AIMessageChunk(piece)
    assert total.content == "".join(pieces)


def test_tool_call_chunks_join_by_index_and_parse_when_complete():
    first = AIMessageChunk("", tool_call_chunks=[{"name": "f", "args": '{"a": ', "id": "1", "index": 0}])
    assert first.tool_calls == [] and first.invalid_tool_calls[0]["name"] == "f"
    total = first + AIMessageChunk("", tool_call_chunks=[{"name": None, "args": "1}", "id": None, "index": 0}])
    assert total.tool_calls == [{"name": "f", "args": {"a": 1}, "id": "1", "type": "tool_call"}]
    assert total.invalid_tool_calls == []


def test_a_chunk_becomes_a_plain_ai_message():
    message = message_chunk_to_message(AIMessageChunk("hi", id="x"))
    assert type(message) is AIMessage and message.content == "hi" and message.id == "x"


def test_a_tool_message_needs_its_tool_call_id():
    with pytest.raises(ValidationError, match="tool_call_id"):
        ToolMessage("result")


def test_text_joins_the_text_blocks_of_list_content():
    message = AIMessage([{"type": "text", "text": "a"}, {"type": "image_url", "image_url": "u"}, "b"])
    assert message.text == "ab"


def test_buffer_string_matches_langchain():
    from langchain_core import messages as lc

    ours = get_buffer_string([SystemMessage("s"), HumanMessage("h"), AIMessage("a"), ToolMessage("t", tool_call_id="1")])
    theirs = lc.get_buffer_string([lc.SystemMessage("s"), lc.HumanMessage("h"), lc.AIMessage("a"),
                                   lc.ToolMessage("t", tool_call_id="1")])
    assert ours == theirs


# -- prompt templates ---------------------------------------------------------------------
def test_prompt_template_variables_are_sorted_and_exclude_escaped_braces():
    assert PromptTemplate.from_template("{b} {a} {{c}}").input_variables == ["a", "b"]


def test_a_missing_variable_raises_key_error_naming_it():
    with pytest.raises(KeyError) as info:
        PromptTemplate.from_template("{a} {b}").invoke({"a": 1})
    assert isinstance(info.value, NotFoundError) and "missing variables ['b']" in str(info.value)


def test_a_single_variable_template_accepts_a_bare_value():
    assert PromptTemplate.from_template("Q: {q}").invoke("hi") == StringPromptValue("Q: hi")


def test_attribute_access_in_a_template_is_refused():
    with pytest.raises(ValidationError, match="attribute access and indexing are not allowed"):
        PromptTemplate.from_template("{user.__class__}")


def test_positional_fields_are_refused():
    with pytest.raises(ValidationError, match="positional field"):
        PromptTemplate.from_template("{0}")


def test_jinja2_is_refused_with_the_reason():
    with pytest.raises(ValidationError, match="jinja2 can run code"):
        PromptTemplate("{{ x }}", template_format="jinja2")


def test_partial_fills_values_and_functions():
    prompt = PromptTemplate.from_template("{greeting} {name}").partial(greeting=lambda: "hello")
    assert prompt.input_variables == ["name"] and prompt.format(name="ann") == "hello ann"


def test_mismatched_input_variables_are_refused():
    with pytest.raises(ValidationError, match=r"input_variables \['x'\] do not match"):
        PromptTemplate("{y}", input_variables=["x"])


names = st.from_regex(r"[a-z][a-z_]{0,6}", fullmatch=True)
literal = st.text(alphabet="abc xyz.:!-", max_size=6)


@settings(deadline=None, max_examples=50)
@given(st.lists(st.tuples(literal, names), min_size=1, max_size=4), literal)
def test_prompt_formatting_matches_langchain(parts, tail):
    template = "".join(f"{text}{{{name}}}" for text, name in parts) + tail + "{{kept}}"
    values = {name: f"<{name}>" for _, name in parts}
    ours = PromptTemplate.from_template(template)
    theirs = lc_prompts.PromptTemplate.from_template(template)
    assert ours.input_variables == theirs.input_variables
    assert ours.format(**values) == theirs.format(**values)


def test_chat_prompt_matches_langchain_for_templates_placeholders_and_optional_placeholders():
    spec = [("system", "You are {role}."), ("placeholder", "{extra}"), ("human", "{question}")]
    ours = ChatPromptTemplate.from_messages([*spec[:1], MessagesPlaceholder("history"), *spec[1:]])
    theirs = lc_prompts.ChatPromptTemplate.from_messages([*spec[:1], lc_prompts.MessagesPlaceholder("history"),
                                                          *spec[1:]])
    values = {"role": "a librarian", "question": "Where?", "history": [("human", "hi"), ("ai", "hello")]}
    assert ours.input_variables == theirs.input_variables
    assert ours.optional_variables == theirs.optional_variables
    assert ours.invoke(values).to_string() == theirs.invoke(values).to_string()


def test_a_chat_prompt_keeps_message_objects_unformatted():
    prompt = ChatPromptTemplate.from_messages([SystemMessage("literal {braces}"), ("human", "{q}")])
    assert prompt.input_variables == ["q"]
    assert prompt.format_messages(q="x") == [SystemMessage("literal {braces}"), HumanMessage("x")]


def test_a_missing_placeholder_variable_raises_key_error():
    prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"), ("human", "{q}")])
    with pytest.raises(KeyError, match="history"):
        prompt.invoke({"q": "x"})


def test_a_placeholder_value_must_be_a_list():
    with pytest.raises(ValidationError, match="'history' must be a list of messages, got str"):
        MessagesPlaceholder("history").format_messages(history="hi")


def test_n_messages_keeps_the_last_messages():
    placeholder = MessagesPlaceholder("h", n_messages=2)
    assert placeholder.format_messages(h=["a", "b", "c"]) == [HumanMessage("b"), HumanMessage("c")]


def test_chat_from_template_is_one_human_message():
    value = ChatPromptTemplate.from_template("hi {name}").invoke({"name": "ann"})
    assert value == ChatPromptValue([HumanMessage("hi ann")])


def test_chat_prompt_partial_removes_the_variable():
    prompt = ChatPromptTemplate.from_messages([("system", "{a}"), ("human", "{b}")]).partial(a="x")
    assert prompt.input_variables == ["b"] and prompt.format_messages(b="y")[0] == SystemMessage("x")


def test_an_unknown_role_in_a_chat_template_is_refused():
    with pytest.raises(ValidationError, match="unknown role 'bot'"):
        ChatPromptTemplate.from_messages([("bot", "{x}")])


def test_prompts_have_async_invoke():
    assert asyncio.run(PromptTemplate.from_template("{a}").ainvoke({"a": 1})).to_string() == "1"


# -- parser -------------------------------------------------------------------------------
def test_str_parser_returns_message_text_or_the_string():
    parser = StrOutputParser()
    assert parser.invoke(AIMessage("x")) == "x" and parser.invoke("y") == "y"


def test_str_parser_passes_each_chunk_on_as_it_comes():
    chunks = iter([AIMessageChunk("a"), AIMessageChunk("b")])
    stream = StrOutputParser().transform(chunks)
    assert next(stream) == "a" and next(chunks) is not None and list(stream) == []


def test_str_parser_refuses_other_values_by_name():
    with pytest.raises(ValidationError, match="takes a message or a str, got int"):
        StrOutputParser().invoke(5)
