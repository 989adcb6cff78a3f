"""Node options as LangGraph's (issue 37, item 4): ``Command[Literal[...]]`` return
annotations, ``add_node(destinations=, defer=, metadata=)``, a failed node's error in
``get_state().tasks``, ``step_timeout``, ``Overwrite`` and lists of Commands."""

from __future__ import annotations

import asyncio
import operator
import threading
from typing import Annotated, Literal, TypedDict

import pytest

from rag.graph import END, START, StateGraph
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.errors import InvalidUpdateError
from rag.graph.types import Command, Overwrite, Send
from rag.runnables.graph import Edge


class State(TypedDict):
    log: Annotated[list, operator.add]


def test_a_command_literal_return_annotation_is_accepted_and_drawn_as_the_nodes_ways_out():
    def route(state: State) -> Command[Literal["left", "right"]]:
        return Command(goto="left", update={"log": ["route"]})

    graph = StateGraph(State).add_node("route", route)
    graph.add_node("left", lambda s: {"log": ["left"]}).add_node("right", lambda s: {"log": ["right"]})
    app = graph.add_edge(START, "route").compile()
    assert app.invoke({"log": []}) == {"log": ["route", "left"]}
    edges = app.get_graph().edges
    assert Edge("route", "left", None, True) in edges and Edge("route", "right", None, True) in edges


def test_destinations_given_as_a_dict_label_the_drawn_edges():
    graph = StateGraph(State)
    graph.add_node("pick", lambda s: Command(goto="b"), destinations={"a": "first", "b": "second"})
    graph.add_node("a", lambda s: {"log": ["a"]}).add_node("b", lambda s: {"log": ["b"]})
    app = graph.add_edge(START, "pick").compile()
    assert app.invoke({"log": []}) == {"log": ["b"]}
    drawing = app.get_graph()
    assert Edge("pick", "a", "first", True) in drawing.edges
    assert Edge("a", END, None, False) in drawing.edges  # a node with no way out ends the run
    assert "pick -. &nbsp;second&nbsp; .-> b;" in drawing.draw_mermaid()


def test_destinations_that_are_not_node_names_are_refused_naming_the_node():
    with pytest.raises(ValueError, match="destinations of node 'pick'"):
        StateGraph(State).add_node("pick", lambda s: None, destinations="a")


def test_node_metadata_is_kept_on_the_drawn_node():
    app = StateGraph(State).add_node("n", lambda s: None, metadata={"team": "search"}).add_edge(START, "n").compile()
    assert app.get_graph().nodes["n"].metadata == {"team": "search"}


def test_metadata_that_is_not_a_dict_is_refused_naming_the_node():
    with pytest.raises(ValueError, match="metadata of node 'n' must be a dict, got list"):
        StateGraph(State).add_node("n", lambda s: None, metadata=["x"])


def test_a_deferred_node_runs_once_after_the_longer_branch_of_a_fan_out():
    graph = StateGraph(State)
    graph.add_node("short", lambda s: {"log": ["short"]})
    graph.add_node("long1", lambda s: {"log": ["long1"]}).add_node("long2", lambda s: {"log": ["long2"]})
    graph.add_node("summary", lambda s: {"log": [f"summary after {len(s['log'])}"]}, defer=True)
    graph.add_edge(START, "short").add_edge(START, "long1").add_edge("long1", "long2")
    graph.add_edge("short", "summary").add_edge("long2", "summary")
    assert graph.compile().invoke({"log": []})["log"] == ["long1", "short", "long2", "summary after 3"]


def test_without_defer_the_same_node_runs_once_per_branch_that_reaches_it():
    graph = StateGraph(State)
    graph.add_node("short", lambda s: {"log": ["short"]})
    graph.add_node("long1", lambda s: {"log": ["long1"]}).add_node("long2", lambda s: {"log": ["long2"]})
    graph.add_node("summary", lambda s: {"log": ["summary"]})
    graph.add_edge(START, "short").add_edge(START, "long1").add_edge("long1", "long2")
    graph.add_edge("short", "summary").add_edge("long2", "summary")
    assert graph.compile().invoke({"log": []})["log"].count("summary") == 2


def test_a_deferred_node_waits_across_a_pause_and_runs_after_the_resume():
    graph = StateGraph(State)
    graph.add_node("short", lambda s: {"log": ["short"]})
    graph.add_node("long1", lambda s: {"log": ["long1"]}).add_node("long2", lambda s: {"log": ["long2"]})
    graph.add_node("summary", lambda s: {"log": ["summary"]}, defer=True)
    graph.add_edge(START, "short").add_edge(START, "long1").add_edge("long1", "long2")
    graph.add_edge("short", "summary").add_edge("long2", "summary")
    app = graph.compile(checkpointer=InMemorySaver(), interrupt_before=["long2"])
    thread = {"configurable": {"thread_id": "t"}}
    assert app.invoke({"log": []}, thread)["log"] == ["long1", "short"]
    assert app.invoke(None, thread)["log"] == ["long1", "short", "long2", "summary"]


def test_a_failed_nodes_error_is_recorded_in_the_tasks_of_the_state():
    def broken(state: State):
        raise RuntimeError("disk on fire")

    app = StateGraph(State).add_node("broken", broken).add_edge(START, "broken").compile(checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t"}}
    with pytest.raises(RuntimeError, match="disk on fire"):
        app.invoke({"log": []}, thread)
    tasks = app.get_state(thread).tasks
    assert [task.name for task in tasks] == ["broken"] and "disk on fire" in tasks[0].error


def test_a_step_running_past_step_timeout_raises_timeout_error_in_sync_runs():
    release = threading.Event()

    def slow(state: State):
        release.wait(5)  # released below: the test never waits for it
        return {"log": ["late"]}

    app = StateGraph(State).add_node("slow", slow).add_edge(START, "slow").compile()
    app.step_timeout = 0.05
    try:
        with pytest.raises(TimeoutError, match=r"step_timeout=0.05 s; nodes still running: \['slow'\]"):
            app.invoke({"log": []})
    finally:
        release.set()


def test_a_step_running_past_step_timeout_cancels_its_async_nodes():
    cancelled = []

    async def slow(state: State):
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append("slow")
            raise

    async def quick(state: State):
        return {"log": ["quick"]}

    graph = StateGraph(State).add_node("slow", slow).add_node("quick", quick)
    app = graph.add_edge(START, "slow").add_edge(START, "quick").compile()
    app.step_timeout = 0.05
    with pytest.raises(TimeoutError, match=r"\['slow'\]"):
        asyncio.run(app.ainvoke({"log": []}))
    assert cancelled == ["slow"]


def test_a_graph_without_step_timeout_waits_for_its_nodes():
    app = StateGraph(State).add_node("n", lambda s: {"log": ["done"]}).add_edge(START, "n").compile()
    assert app.step_timeout is None and app.invoke({"log": []}) == {"log": ["done"]}


def test_overwrite_replaces_a_reducer_keys_value():
    graph = StateGraph(State).add_node("a", lambda s: {"log": ["a"]}).add_node("b", lambda s: {"log": Overwrite(["b"])})
    app = graph.add_edge(START, "a").add_edge("a", "b").compile(checkpointer=InMemorySaver())
    assert app.invoke({"log": ["start"]}, {"configurable": {"thread_id": "t"}}) == {"log": ["b"]}


def test_overwrite_in_its_json_form_does_the_same():
    app = StateGraph(State).add_node("b", lambda s: {"log": {"__overwrite__": ["b"]}}).add_edge(START, "b").compile()
    assert app.invoke({"log": ["start"]}) == {"log": ["b"]}


def test_two_overwrites_of_one_key_in_a_step_are_refused_naming_the_key():
    graph = StateGraph(State)
    graph.add_node("b", lambda s: {"log": Overwrite(["b"])}).add_node("c", lambda s: {"log": Overwrite(["c"])})
    app = graph.add_edge(START, "b").add_edge(START, "c").compile()
    with pytest.raises(InvalidUpdateError, match="only one Overwrite value per super-step: key 'log'"):
        app.invoke({"log": []})


class Text(TypedDict):
    text: Annotated[str, operator.add]


def test_a_list_of_commands_writing_one_key_combines_through_its_reducer():
    def twice(state: Text):
        return [Command(update={"text": "a1"}), Command(update={"text": "a2"})]

    app = StateGraph(Text).add_node("twice", twice).add_edge(START, "twice").compile()
    assert app.invoke({"text": ">"}) == {"text": ">a1a2"}


def test_a_command_sent_to_a_node_is_saved_in_a_json_checkpoint():
    def fan(state: State):
        return [Send("worker", Command(update={"log": ["sent"]}))]

    def worker(command):
        return {"log": [f"got {command.update['log'][0]}"]}

    graph = StateGraph(State).add_node("worker", worker).add_conditional_edges(START, fan)
    app = graph.compile(checkpointer=InMemorySaver(), interrupt_before=["worker"])
    thread = {"configurable": {"thread_id": "t"}}
    app.invoke({"log": []}, thread)
    assert app.invoke(None, thread) == {"log": ["got sent"]}


def test_a_list_of_commands_is_streamed_as_that_list_of_updates():
    def twice(state: Text):
        return [Command(update={"text": "a1"}), Command(update={"text": "a2"})]

    app = StateGraph(Text).add_node("twice", twice).add_edge(START, "twice").compile()
    assert list(app.stream({"text": ""}, stream_mode="updates")) == [{"twice": [{"text": "a1"}, {"text": "a2"}]}]
