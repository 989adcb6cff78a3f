"""Graph definitions LangGraph refuses are refused here too, with LangGraph's wording first
and the bad value named (issue 37: bad input)."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from rag.graph import START, StateGraph
from rag.graph.errors import InvalidUpdateError
from rag.graph.types import Command


def test_a_reducer_that_cannot_take_current_and_update_is_refused_naming_the_key():
    def one_argument(current): ...

    class State(TypedDict):
        hello: Annotated[str, one_argument]

    with pytest.raises(ValueError, match=r"Invalid reducer signature for state key 'hello': one_argument\(current\)"):
        StateGraph(State)


@pytest.mark.parametrize("reducer", [operator.add, lambda current, update, extra=None: current + update,
                                     lambda *values: values[0] + values[1]])
def test_a_reducer_callable_with_two_values_is_accepted(reducer):
    class State(TypedDict):
        log: Annotated[list, reducer]

    app = StateGraph(State).add_node("a", lambda s: {"log": ["a"]}).add_edge(START, "a").compile()
    assert app.invoke({"log": ["start"]}) == {"log": ["start", "a"]}


def test_an_edge_from_an_unknown_node_is_refused_in_langgraphs_words_naming_it():
    class State(TypedDict):
        hello: str

    graph = StateGraph(State).add_node("start", lambda s: s).add_edge(START, "start").add_edge("unknown", "start")
    with pytest.raises(ValueError, match=r"Found edge starting at unknown node 'unknown': edge 'unknown' -> 'start'"):
        graph.compile()


def test_two_writes_to_a_key_without_reducer_say_at_which_key():
    class State(TypedDict):
        hello: str

    graph = StateGraph(State).add_node("a", lambda s: {"hello": "a"}).add_node("b", lambda s: {"hello": "b"})
    app = graph.add_edge(START, "a").add_edge(START, "b").compile()
    with pytest.raises(InvalidUpdateError, match=r"At key 'hello': nodes 'a' and 'b' both wrote key 'hello'"):
        app.invoke({"hello": ""})


def test_a_command_update_given_as_key_value_writes_applies_them_in_order_through_the_reducer():
    class State(TypedDict):
        foo: Annotated[str, lambda a, b: ", ".join(x for x in (a, b) if x)]

    graph = StateGraph(State).add_node("one", lambda s: Command(update=[("foo", "one.0"), ("foo", "one.1")]))
    app = graph.add_edge(START, "one").compile()
    assert app.invoke({"foo": "input"}) == {"foo": "input, one.0, one.1"}
    assert list(app.stream({"foo": "input"}, stream_mode="updates")) == [{"one": [{"foo": "one.0"}, {"foo": "one.1"}]}]


def test_a_node_reading_a_private_typeddict_may_return_writes():
    class State(TypedDict):
        foo: str

    class Private(TypedDict):
        secret: str

    def reads_private(state: Private) -> Command:  # its own input schema: its return is converted
        return Command(update=[("foo", state.get("secret", "none"))])

    app = StateGraph(State).add_node("a", reads_private).add_edge(START, "a").compile()
    assert app.invoke({"foo": ""}) == {"foo": "none"}


def test_a_key_written_twice_by_one_task_is_reported_as_its_writes_in_the_tasks_stream_and_history():
    from rag.graph.checkpoint.memory import InMemorySaver

    class State(TypedDict):
        foo: Annotated[str, lambda a, b: ", ".join(x for x in (a, b) if x)]

    graph = StateGraph(State).add_node("one", lambda s: Command(update=[("foo", "one.0"), ("foo", "one.1")]))
    app = graph.add_edge(START, "one").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    results = [chunk["result"] for chunk in app.stream({"foo": "in"}, config, stream_mode="tasks") if "result" in chunk]
    assert results == [{"foo": {"$writes": ["one.0", "one.1"]}}]
    history = [task.result for snapshot in app.get_state_history(config) for task in snapshot.tasks]
    assert {"foo": {"$writes": ["one.0", "one.1"]}} in history
