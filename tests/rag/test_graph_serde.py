"""Checkpoint serialisation: JSON values, messages and Documents load back equal; nothing
else is written (never pickle)."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag.documents import Document
from rag.graph.checkpoint.serde import SerializationError, dumps, loads
from rag.graph.types import Interrupt
from rag.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**53, 2**53) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)
messages = st.one_of(
    st.builds(HumanMessage, st.text(max_size=10), id=st.none() | st.text(max_size=5)),
    st.builds(SystemMessage, st.text(max_size=10)),
    st.builds(AIMessage, st.text(max_size=10), id=st.text(min_size=1, max_size=5),
              tool_calls=st.lists(st.fixed_dictionaries({"name": st.text(min_size=1, max_size=5),
                                                         "args": st.dictionaries(st.text(max_size=3), st.integers()),
                                                         "id": st.text(max_size=4)}), max_size=2)),
    st.builds(ToolMessage, st.text(max_size=10), tool_call_id=st.text(min_size=1, max_size=5),
              artifact=json_values),
)


@given(st.dictionaries(st.text(max_size=6), json_values | st.lists(messages, max_size=4)
                       | st.builds(Document, st.text(max_size=10), st.dictionaries(st.text(max_size=3), json_values, max_size=2)),
                       max_size=4))
def test_state_of_json_values_messages_and_documents_loads_back_equal(state):
    assert loads(dumps(state)) == state


def test_a_message_chunk_and_an_interrupt_load_back_as_themselves():
    chunk = AIMessageChunk("par", id="run-1", tool_call_chunks=[{"name": "f", "args": "{}", "id": "c", "index": 0}])
    value = {"chunk": chunk, "pause": Interrupt({"q": 1}, "abc")}
    assert loads(dumps(value)) == value


def test_a_user_dict_that_looks_tagged_is_refused_on_load_rather_than_misread():
    with pytest.raises(ValueError, match="cannot read"):
        loads(json.dumps({"__rag_type__": "pickle", "payload": "..."}))


@pytest.mark.parametrize("bad, type_name", [(object(), "object"), (b"bytes", "bytes"), (lambda: 1, "function")])
def test_a_value_json_cannot_hold_names_the_key_path_and_type(bad, type_name):
    with pytest.raises(SerializationError) as raised:
        dumps({"channel_values": {"memory": {"notes": [1, bad]}}})
    assert raised.value.key == "memory" and raised.value.path == "['memory']['notes'][1]"
    assert type_name in str(raised.value)


@pytest.mark.parametrize("key", [1, 2.5, True, None])
def test_a_dict_key_that_is_not_a_string_is_refused_rather_than_loaded_back_as_one(key):
    # JSON would write {1: "a", "1": "b"} as one key: refusing keeps a resumed state equal.
    with pytest.raises(SerializationError) as raised:
        dumps({"channel_values": {"counts": {"ok": {key: "a", str(key): "b"}}}})
    assert raised.value.key == "counts" and raised.value.path == f"['counts']['ok'][{key!r}]"
    assert "dict key" in str(raised.value)


def test_a_set_of_tuples_loads_back_as_the_same_set():
    state = {"seen": {(1, "a"), (2, ("b", 3))}, "flat": frozenset({"x", 1})}
    assert loads(dumps(state)) == state
