"""``update_state(as_node="__input__")`` and updates given as a ``Command``, as LangGraph
1.2's (issue 37, item 5): a run's history written step by step from outside it."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest
from hypothesis import given, settings, strategies as st

from rag.graph import START, StateGraph
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.errors import InvalidUpdateError
from rag.graph.types import Command, Send, StateUpdate


class State(TypedDict):
    foo: str
    tasks: Annotated[list, operator.add]


def graph():
    builder = StateGraph(State).add_node("agent", lambda s: {"foo": s["foo"] + "|agent"})
    builder.add_node("tool", lambda s: {"foo": s["foo"] + "|tool"})
    return builder.add_edge(START, "agent").add_edge("agent", "tool").compile(checkpointer=InMemorySaver())


def config(thread: str = "t") -> dict:
    return {"configurable": {"thread_id": thread}}


def history(app, thread: str) -> list[tuple]:
    return [(s.values, s.next, s.metadata["step"]) for s in app.get_state_history(config(thread))]


def test_an_update_as_input_records_the_input_unapplied_with_start_due():
    app = graph()
    app.update_state(config(), {"foo": "hi"}, as_node="__input__")
    state = app.get_state(config())
    assert (state.values, state.next, state.metadata["source"], state.metadata["step"]) == (
        {"tasks": []}, ("__start__",), "input", -1)


def test_resuming_after_an_update_as_input_runs_the_graph_on_that_input():
    app = graph()
    app.update_state(config(), {"foo": "hi"}, as_node="__input__")
    assert app.invoke(None, config()) == {"foo": "hi|agent|tool", "tasks": []}


def test_replaying_a_runs_first_checkpoint_runs_it_again_on_its_input():
    app = graph()
    app.invoke({"foo": "hi"}, config())
    first = list(app.get_state_history(config()))[-1]
    assert first.next == ("__start__",)
    assert app.invoke(None, first.config) == {"foo": "hi|agent|tool", "tasks": []}


@settings(deadline=None, max_examples=15)
@given(st.lists(st.text(alphabet="abc", min_size=1, max_size=3), min_size=1, max_size=3))
def test_bulk_updates_replaying_each_runs_steps_write_the_runs_history(inputs):
    app = graph()
    steps = []
    for text in inputs:
        app.invoke({"foo": text}, config("run"))
        steps += [[StateUpdate({"foo": text}, "__input__")], [StateUpdate({"foo": text}, "__start__")],
                  [StateUpdate({"foo": text + "|agent"}, "agent")], [StateUpdate({"foo": text + "|agent|tool"}, "tool")]]
    app.bulk_update_state(config("written"), steps)
    assert history(app, "written") == history(app, "run")


def test_an_update_given_as_a_command_makes_its_sends_due():
    builder = StateGraph(State).add_node("map", lambda s: None).add_node("task", lambda s: {"tasks": [s["i"]]})
    app = builder.add_edge(START, "map").compile(checkpointer=InMemorySaver())
    app.update_state(config(), Command(update={"foo": "mapped"}, goto=[Send("task", {"i": 1}), Send("task", {"i": 2})]),
                     as_node="map")
    state = app.get_state(config())
    assert state.values["foo"] == "mapped" and state.next == ("task", "task")
    assert app.invoke(None, config())["tasks"] == [1, 2]


def test_an_update_as_input_must_be_alone_in_its_superstep():
    with pytest.raises(InvalidUpdateError, match="'__input__' must be the only update"):
        graph().bulk_update_state(config(), [[StateUpdate({"foo": "a"}, "__input__"), StateUpdate({"foo": "b"}, "agent")]])


def test_an_update_as_input_with_a_key_outside_the_state_is_refused_naming_it():
    with pytest.raises(InvalidUpdateError, match=r"\['bar'\] that are not in the state"):
        graph().update_state(config(), {"bar": 1}, as_node="__input__")
