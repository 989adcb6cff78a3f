"""What a caller sees of the state, as LangGraph 1.2 shows it: ``invoke`` returns the output
schema's keys; the "values" stream and ``get_state`` show every key of the state, the
private ones (a node's own input schema) included."""

from __future__ import annotations

from typing import TypedDict

from rag.graph import START, StateGraph
from rag.graph.checkpoint.memory import InMemorySaver


class State(TypedDict):
    a: str
    b: str


class Output(TypedDict):
    b: str


class Private(TypedDict):
    secret: str


def graph():
    def first(state: State) -> Private:
        return {"secret": "x", "a": "A"}

    def second(state: Private):
        return {"b": f"B from {state['secret']}"}

    builder = StateGraph(State, output_schema=Output).add_node("first", first).add_node("second", second)
    return builder.add_edge(START, "first").add_edge("first", "second").compile(checkpointer=InMemorySaver())


def test_invoke_returns_the_output_schemas_keys():
    assert graph().invoke({"a": "", "b": ""}, {"configurable": {"thread_id": "t"}}) == {"b": "B from x"}


def test_the_values_stream_shows_every_key_of_the_state():
    chunks = list(graph().stream({"a": "", "b": ""}, {"configurable": {"thread_id": "t"}}, stream_mode="values"))
    assert chunks[-1] == {"a": "A", "b": "B from x", "secret": "x"}


def test_get_state_shows_every_key_of_the_state():
    app = graph()
    app.invoke({"a": "", "b": ""}, {"configurable": {"thread_id": "t"}})
    assert app.get_state({"configurable": {"thread_id": "t"}}).values == {"a": "A", "b": "B from x", "secret": "x"}
