"""Spec: the "checkpoints", "tasks" and "debug" stream modes and invoke(stream_mode=...), as LangGraph's."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from rag.graph import START, StateGraph
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.checkpoint.sqlite import SqliteSaver
from rag.graph.types import interrupt


class Log(TypedDict):
    log: Annotated[list, operator.add]


@pytest.fixture(params=["memory", "sqlite"])
def saver(request, tmp_path):
    return InMemorySaver() if request.param == "memory" else SqliteSaver(tmp_path / "threads.sqlite")


def _two_steps(saver):
    return (StateGraph(Log).add_node("a", lambda s: {"log": ["a"]}).add_node("b", lambda s: {"log": ["b"]})
            .add_edge(START, "a").add_edge("a", "b").compile(checkpointer=saver))


def _thread():
    return {"configurable": {"thread_id": "t"}}


def test_checkpoints_mode_streams_each_saved_checkpoint_as_the_history_shows_it(saver):
    graph = _two_steps(saver)
    streamed = list(graph.stream({"log": []}, _thread(), stream_mode="checkpoints"))
    history = list(reversed(list(graph.get_state_history(_thread()))))
    assert [c["config"] for c in streamed] == [h.config for h in history]
    assert [c["parent_config"] for c in streamed] == [h.parent_config for h in history]
    assert [c["values"] for c in streamed] == [h.values for h in history]
    assert [c["next"] for c in streamed] == [list(h.next) for h in history]
    assert [c["metadata"] for c in streamed] == [h.metadata for h in history]
    assert [[t["id"] for t in c["tasks"]] for c in streamed] == [[t.id for t in h.tasks] for h in history]


def test_tasks_mode_streams_each_task_start_then_its_result():
    graph = _two_steps(InMemorySaver())
    events = list(graph.stream({"log": []}, _thread(), stream_mode="tasks"))
    assert [(e["name"], "input" in e) for e in events] == [("a", True), ("a", False), ("b", True), ("b", False)]
    assert events[0]["input"] == {"log": []} and events[2]["input"] == {"log": ["a"]}
    assert events[1] == {"id": events[0]["id"], "name": "a", "error": None, "result": {"log": ["a"]}, "interrupts": []}


def test_a_paused_task_reports_its_interrupt_in_its_task_result():
    def ask(state):
        return {"log": [interrupt("why?")]}

    graph = StateGraph(Log).add_node("ask", ask).add_edge(START, "ask").compile(checkpointer=InMemorySaver())
    result = [e for e in graph.stream({"log": []}, _thread(), stream_mode="tasks") if "result" in e][0]
    assert [pause["value"] for pause in result["interrupts"]] == ["why?"] and result["result"] == {}


def test_debug_mode_wraps_checkpoints_tasks_and_results_with_their_step_and_type():
    events = list(_two_steps(InMemorySaver()).stream({"log": []}, _thread(), stream_mode="debug"))
    assert [(e["type"], e["step"]) for e in events] == [
        ("checkpoint", -1), ("checkpoint", 0), ("task", 1), ("task_result", 1), ("checkpoint", 1),
        ("task", 2), ("task_result", 2), ("checkpoint", 2)]
    assert all(isinstance(e["timestamp"], str) and e["timestamp"].endswith("+00:00") for e in events)


def test_a_subgraph_task_in_a_checkpoint_event_names_the_namespace_its_state_is_read_from():
    inner = StateGraph(Log).add_node("n", lambda s: {"log": ["n"]}).add_edge(START, "n").compile()
    graph = StateGraph(Log).add_node("sub", inner).add_edge(START, "sub").compile(checkpointer=InMemorySaver())
    waiting = [c for c in graph.stream({"log": []}, _thread(), stream_mode="checkpoints") if c["next"] == ["sub"]][0]
    state = waiting["tasks"][0]["state"]
    assert state["configurable"]["checkpoint_ns"] == f"sub:{waiting['tasks'][0]['id']}"


def test_invoke_with_a_stream_mode_other_than_values_returns_the_list_of_chunks():
    graph = _two_steps(InMemorySaver())
    assert graph.invoke({"log": []}, _thread(), stream_mode="updates") == [{"a": {"log": ["a"]}}, {"b": {"log": ["b"]}}]
    assert graph.invoke({"log": []}, {"configurable": {"thread_id": "u"}}, stream_mode="values") == {"log": ["a", "b"]}


def test_ainvoke_with_a_stream_mode_returns_the_list_of_chunks():
    graph = _two_steps(InMemorySaver())
    chunks = asyncio.run(graph.ainvoke({"log": []}, _thread(), stream_mode=["updates"]))
    assert chunks == [("updates", {"a": {"log": ["a"]}}), ("updates", {"b": {"log": ["b"]}})]


def test_an_unknown_stream_mode_is_refused_naming_it_and_the_modes_offered():
    with pytest.raises(ValueError, match="stream_mode 'everything' is not supported.*'debug'"):
        list(_two_steps(InMemorySaver()).stream({"log": []}, _thread(), stream_mode="everything"))
