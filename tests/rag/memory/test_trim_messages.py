"""trim_messages: LangChain's results (langchain-core 1.7.2) wherever no tool exchange sits at
the edge, and a tool exchange is never split."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.errors import ValidationError
from rag.memory import trim_messages
from rag.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

KINDS = {"system": SystemMessage, "human": HumanMessage, "ai": AIMessage}


def _lc(messages):
    from langchain_core import messages as lc

    classes = {"system": lc.SystemMessage, "human": lc.HumanMessage, "ai": lc.AIMessage}
    return [classes[m.type](m.content) for m in messages]


def _shape(messages):
    return [(m.type, m.content) for m in messages]


def _chars(messages) -> int:  # a list counter both frameworks accept
    return sum(len(m.content) if isinstance(m.content, str) else sum(len(b["text"]) for b in m.content)
               for m in messages)


plain = st.lists(st.tuples(st.sampled_from(["human", "ai"]),
                           st.lists(st.sampled_from(["one line", "two", "a longer line of text"]), min_size=1,
                                    max_size=3).map("\n".join)), max_size=8)


@settings(deadline=None, max_examples=150)
@given(conversation=plain, system=st.booleans(), max_tokens=st.integers(0, 60),
       counter=st.sampled_from(["len", "chars"]), strategy=st.sampled_from(["first", "last"]),
       start_on=st.sampled_from([None, "human", "ai"]), end_on=st.sampled_from([None, "human", "ai", ("human", "ai")]),
       include_system=st.booleans(), allow_partial=st.booleans())
def test_without_tool_calls_the_result_is_langchains(conversation, system, max_tokens, counter, strategy, start_on,
                                                     end_on, include_system, allow_partial):
    from langchain_core.messages import trim_messages as lc_trim

    if strategy == "first":
        start_on, include_system = None, False
    messages = ([SystemMessage("sys\nprompt")] if system else []) + [KINDS[kind](text) for kind, text in conversation]
    token_counter = len if counter == "len" else _chars
    options = dict(max_tokens=max_tokens, token_counter=token_counter, strategy=strategy, start_on=start_on,
                   end_on=end_on, include_system=include_system, allow_partial=allow_partial)
    assert _shape(trim_messages(messages, **options)) == _shape(lc_trim(_lc(messages), **options))


def test_content_blocks_are_kept_whole_when_partial_as_langchain():
    from langchain_core.messages import AIMessage as LCAI
    from langchain_core.messages import trim_messages as lc_trim

    blocks = [{"type": "text", "text": "first block"}, {"type": "text", "text": "second block"}]
    ours = trim_messages([HumanMessage("hi"), AIMessage(blocks)], max_tokens=14, token_counter=_chars,
                         allow_partial=True)
    theirs = lc_trim([LCAI("hi"), LCAI(blocks)], max_tokens=14, token_counter=_chars, allow_partial=True)
    assert [m.content for m in ours] == [m.content for m in theirs] == [[{"type": "text", "text": "second block"}]]


def _tool_turn(n: int) -> list[BaseMessage]:
    calls = [{"name": "lookup", "args": {"n": n}, "id": f"c{n}a"}, {"name": "lookup", "args": {"n": n}, "id": f"c{n}b"}]
    return [HumanMessage(f"q{n}"), AIMessage("", tool_calls=calls), ToolMessage("r", tool_call_id=f"c{n}a"),
            ToolMessage("r", tool_call_id=f"c{n}b"), AIMessage(f"a{n}")]


def _split_exchanges(messages: list[BaseMessage]) -> bool:
    """True when a ToolMessage lacks its AIMessage before it, or a tool-calling AIMessage
    lacks any of its ToolMessages after it."""
    answered = set()
    for index, message in enumerate(messages):
        if isinstance(message, ToolMessage) and message.tool_call_id not in answered:
            return True
        if isinstance(message, AIMessage) and message.tool_calls:
            ids = {call["id"] for call in message.tool_calls}
            following = {m.tool_call_id for m in messages[index + 1:index + 1 + len(ids)] if isinstance(m, ToolMessage)}
            if following != ids:
                return True
            answered |= ids
    return False


@settings(deadline=None, max_examples=150)
@given(turns=st.integers(1, 4), max_tokens=st.integers(0, 25), strategy=st.sampled_from(["first", "last"]),
       end_on=st.sampled_from([None, "ai", "tool", "human"]))
def test_an_ai_message_is_never_split_from_its_tool_messages(turns, max_tokens, strategy, end_on):
    messages = [m for n in range(turns) for m in _tool_turn(n)]
    kept = trim_messages(messages, max_tokens=max_tokens, token_counter=len, strategy=strategy, end_on=end_on)
    assert len(kept) <= max_tokens
    assert not _split_exchanges(kept)


def test_langchain_splits_the_exchange_where_we_drop_it_whole():
    from langchain_core.messages import trim_messages as lc_trim

    messages = _tool_turn(1)
    lc_messages = [m for m in messages]  # our messages convert through dicts below
    from langchain_core.messages import convert_to_messages as lc_convert

    theirs = lc_trim(lc_convert([{"role": "user", "content": "q1"},
                                 {"role": "assistant", "content": "", "tool_calls": [
                                     {"name": "lookup", "args": {}, "id": "c1a"}, {"name": "lookup", "args": {}, "id": "c1b"}]},
                                 {"role": "tool", "content": "r", "tool_call_id": "c1a"},
                                 {"role": "tool", "content": "r", "tool_call_id": "c1b"},
                                 {"role": "assistant", "content": "a1"}]), max_tokens=3, token_counter=len)
    assert [m.type for m in theirs] == ["tool", "tool", "ai"]  # orphan tool results: chat APIs refuse them
    assert [m.type for m in trim_messages(lc_messages, max_tokens=3, token_counter=len)] == ["ai"]


def test_include_system_keeps_the_system_message_and_its_cost():
    messages = [SystemMessage("s"), HumanMessage("a"), AIMessage("b"), HumanMessage("c")]
    assert _shape(trim_messages(messages, max_tokens=2, token_counter=len, include_system=True)) == [
        ("system", "s"), ("human", "c")]


def test_a_per_message_counter_is_summed():
    def tokens(message: BaseMessage) -> int:
        return 2

    assert len(trim_messages([HumanMessage("a")] * 5, max_tokens=5, token_counter=tokens)) == 2


def test_without_messages_it_is_a_runnable():
    trimmer = trim_messages(max_tokens=1, token_counter=len)
    assert _shape(trimmer.invoke([HumanMessage("a"), AIMessage("b")])) == [("ai", "b")]


@pytest.mark.parametrize("options, message", [
    (dict(max_tokens=-1), "max_tokens must be an int >= 0, got -1"),
    (dict(max_tokens=3, strategy="middle"), "strategy must be 'first' or 'last', got 'middle'"),
    (dict(max_tokens=3, strategy="first", start_on="human"), "start_on parameter is only valid with strategy='last'"),
    (dict(max_tokens=3, strategy="first", include_system=True), "include_system parameter is only valid"),
])
def test_bad_options_are_refused(options, message):
    with pytest.raises(ValidationError, match=message):
        trim_messages([HumanMessage("a")], token_counter=len, **options)


def test_it_is_importable_from_rag_messages_as_from_langchain_core_messages():
    from rag import messages

    assert messages.trim_messages is trim_messages
    assert messages.messages_to_dict([HumanMessage("a")]) == [{"type": "human", "data": {
        "content": "a", "additional_kwargs": {}, "response_metadata": {}, "type": "human", "name": None, "id": None}}]
