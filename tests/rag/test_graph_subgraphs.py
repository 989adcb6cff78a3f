"""Spec: subgraphs (a compiled graph as a node, or a graph invoked inside a node), as LangGraph's."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from rag.graph import END, START, StateGraph
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.checkpoint.sqlite import SqliteSaver
from rag.graph.types import Command, interrupt


class Log(TypedDict):
    log: Annotated[list, operator.add]


class Parent(TypedDict):
    log: Annotated[list, operator.add]
    extra: str


@pytest.fixture(params=["memory", "sqlite"])
def saver(request, tmp_path):
    if request.param == "memory":
        return InMemorySaver()
    return SqliteSaver(tmp_path / "threads.sqlite")


def _asking(checkpointer=None):
    def ask(state):
        return {"log": [f"answer:{interrupt('question?')}"]}

    return (StateGraph(Log).add_node("one", lambda s: {"log": ["one"]}).add_node("ask", ask)
            .add_edge(START, "one").add_edge("one", "ask").compile(checkpointer=checkpointer))


def _thread(name="t"):
    return {"configurable": {"thread_id": name}}


def test_a_pause_inside_a_subgraph_node_pauses_the_parent_and_a_resume_continues_where_it_paused(saver):
    runs = []
    inner = _asking()
    parent = (StateGraph(Log).add_node("sub", inner).add_node("after", lambda s: runs.append(1) or {"log": ["after"]})
              .add_edge(START, "sub").add_edge("sub", "after").compile(checkpointer=saver))
    paused = parent.invoke({"log": []}, _thread())
    assert paused["__interrupt__"][0].value == "question?" and not runs
    assert parent.invoke(Command(resume="yes"), _thread()) == {"log": ["one", "answer:yes", "after"]}


def test_a_graph_invoked_inside_a_node_without_a_config_inherits_the_parents_thread(saver):
    inner = _asking()

    def call(state):
        return {"log": inner.invoke({"log": ["in"]})["log"][-1:]}

    parent = StateGraph(Log).add_node("call", call).add_edge(START, "call").compile(checkpointer=saver)
    assert "__interrupt__" in parent.invoke({"log": []}, _thread())
    assert parent.invoke(Command(resume="ok"), _thread()) == {"log": ["answer:ok"]}


def test_a_stateless_subgraph_starts_afresh_on_each_parent_invocation(saver):
    seen = []
    inner = StateGraph(Log).add_node("n", lambda s: seen.append(list(s["log"])) or {"log": ["n"]}) \
        .add_edge(START, "n").compile()
    parent = StateGraph(Log).add_node("call", lambda s: {"log": inner.invoke({"log": ["x"]})["log"][-1:]}) \
        .add_edge(START, "call").compile(checkpointer=saver)
    parent.invoke({"log": []}, _thread())
    parent.invoke({"log": []}, _thread())
    assert seen == [["x"], ["x"]]


def test_a_checkpointer_true_subgraph_keeps_its_state_across_parent_invocations(saver):
    seen = []
    inner = StateGraph(Log).add_node("n", lambda s: seen.append(list(s["log"])) or {"log": ["n"]}) \
        .add_edge(START, "n").compile(checkpointer=True)
    parent = StateGraph(Log).add_node("call", lambda s: {"log": inner.invoke({"log": ["x"]})["log"][-1:]}) \
        .add_edge(START, "call").compile(checkpointer=saver)
    parent.invoke({"log": []}, _thread())
    parent.invoke({"log": []}, _thread())
    assert seen == [["x"], ["x", "n", "x"]]


def test_a_checkpointer_false_subgraph_cannot_pause():
    inner = _asking(checkpointer=False)
    parent = StateGraph(Log).add_node("sub", inner).add_edge(START, "sub").compile(checkpointer=InMemorySaver())
    with pytest.raises(Exception, match="checkpointer"):
        parent.invoke({"log": []}, _thread())


def test_checkpointer_true_on_a_root_graph_is_refused_when_it_runs():
    graph = StateGraph(Log).add_node("n", lambda s: {}).add_edge(START, "n").compile(checkpointer=True)
    with pytest.raises(ValueError, match="checkpointer=True"):
        graph.invoke({"log": []})


def test_a_subgraph_node_with_a_saver_of_its_own_under_a_checkpointed_parent_is_refused_naming_it():
    inner = StateGraph(Log).add_node("n", lambda s: {}).add_edge(START, "n").compile(checkpointer=InMemorySaver())
    parent = StateGraph(Log).add_node("inner_graph", inner).add_edge(START, "inner_graph") \
        .compile(checkpointer=InMemorySaver())
    with pytest.raises(ValueError, match="subgraph 'inner_graph' was compiled with a checkpointer of its own"):
        parent.invoke({"log": []}, _thread())


def test_a_subgraph_node_takes_its_own_keys_of_the_parent_state_and_returns_only_the_parents():
    inner = StateGraph(Log).add_node("n", lambda s: {"log": [len(s)]}).add_edge(START, "n").compile()
    parent = StateGraph(Parent).add_node("sub", inner).add_edge(START, "sub").compile()
    assert parent.invoke({"log": [], "extra": "kept"}) == {"log": [1], "extra": "kept"}


def test_get_state_with_subgraphs_shows_the_paused_subgraphs_snapshot_in_its_task(saver):
    parent = StateGraph(Log).add_node("sub", _asking()).add_edge(START, "sub").compile(checkpointer=saver)
    parent.invoke({"log": []}, _thread())
    plain = parent.get_state(_thread())
    assert plain.tasks[0].state["configurable"]["checkpoint_ns"].startswith("sub:")
    nested = parent.get_state(_thread(), subgraphs=True).tasks[0].state
    assert nested.values == {"log": ["one"]} and nested.next == ("ask",)
    assert parent.get_state(plain.tasks[0].state).values == {"log": ["one"]}


def test_stream_with_subgraphs_tags_each_chunk_with_its_namespace(saver):
    inner = StateGraph(Log).add_node("n", lambda s: {"log": ["n"]}).add_edge(START, "n").compile()
    parent = StateGraph(Log).add_node("sub", inner).add_edge(START, "sub").compile(checkpointer=saver)
    chunks = list(parent.stream({"log": []}, _thread(), subgraphs=True))
    assert [ns[0].split(":")[0] if ns else "" for ns, _ in chunks] == ["sub", ""]
    assert chunks[0][1] == {"n": {"log": ["n"]}} and chunks[1] == ((), {"sub": {"log": ["n"]}})


def test_stream_with_subgraphs_and_several_modes_yields_namespace_mode_chunk_triples():
    inner = StateGraph(Log).add_node("n", lambda s: {"log": ["n"]}).add_edge(START, "n").compile()
    parent = StateGraph(Log).add_node("sub", inner).add_edge(START, "sub").compile()
    chunks = list(parent.stream({"log": []}, subgraphs=True, stream_mode=["updates"]))
    assert [(len(ns), mode) for ns, mode, _ in chunks] == [(1, "updates"), (0, "updates")]


def test_a_command_to_the_parent_goes_to_the_parents_node_with_its_update():
    def jump(state):
        return Command(graph=Command.PARENT, goto="other", update={"log": ["jump"]})

    inner = StateGraph(Log).add_node("jump", jump).add_edge(START, "jump").compile()
    parent = (StateGraph(Log).add_node("sub", inner).add_node("other", lambda s: {"log": ["other"]})
              .add_edge(START, "sub").compile())
    assert parent.invoke({"log": []}) == {"log": ["jump", "other"]}


def test_a_command_to_the_parent_from_a_root_graph_is_refused():
    graph = StateGraph(Log).add_node("n", lambda s: Command(graph=Command.PARENT, goto=END)).add_edge(START, "n").compile()
    with pytest.raises(ValueError, match="not run as a subgraph"):
        graph.invoke({"log": []})


def test_get_subgraphs_lists_the_nodes_that_are_graphs_with_namespaces_when_recursing():
    leaf = StateGraph(Log).add_node("n", lambda s: {}).add_edge(START, "n").compile()
    middle = StateGraph(Log).add_node("leaf", leaf).add_edge(START, "leaf").compile()
    root = StateGraph(Log).add_node("middle", middle).add_node("plain", lambda s: {}).add_edge(START, "middle").compile()
    assert [name for name, _ in root.get_subgraphs()] == ["middle"]
    assert [name for name, _ in root.get_subgraphs(recurse=True)] == ["middle", "middle|leaf"]
    assert [graph for _, graph in root.get_subgraphs(namespace="middle|leaf", recurse=True)] == [leaf]


def test_update_state_of_a_namespace_naming_no_subgraph_is_refused():
    parent = StateGraph(Log).add_node("n", lambda s: {}).add_edge(START, "n").compile(checkpointer=InMemorySaver())
    parent.invoke({"log": []}, _thread())
    config = {"configurable": {"thread_id": "t", "checkpoint_ns": "tools:abc"}}
    with pytest.raises(ValueError, match="Subgraph tools not found"):
        parent.update_state(config, {"log": ["x"]})


def test_an_async_run_pauses_and_resumes_inside_a_subgraph():
    parent = StateGraph(Log).add_node("sub", _asking()).add_edge(START, "sub").compile(checkpointer=InMemorySaver())

    async def run():
        await parent.ainvoke({"log": []}, _thread())
        return await parent.ainvoke(Command(resume="async"), _thread())

    assert asyncio.run(run()) == {"log": ["one", "answer:async"]}


def test_a_breakpoint_inside_a_subgraph_pauses_the_parent_and_invoke_none_continues_it(saver):
    inner = (StateGraph(Log).add_node("one", lambda s: {"log": ["one"]}).add_node("two", lambda s: {"log": ["two"]})
             .add_edge(START, "one").add_edge("one", "two").compile(interrupt_before=["two"]))
    parent = (StateGraph(Log).add_node("sub", inner).add_node("after", lambda s: {"log": ["after"]})
              .add_edge(START, "sub").add_edge("sub", "after").compile(checkpointer=saver))
    assert parent.invoke({"log": []}, _thread()) == {"log": []}
    assert parent.get_state(_thread()).next == ("sub",)
    assert parent.invoke(None, _thread()) == {"log": ["one", "two", "after"]}


def test_parallel_pauses_inside_a_subgraph_are_answered_one_at_a_time_by_interrupt_id(saver):
    runs = {"a": 0, "b": 0}

    def asking(name):
        def node(state):
            runs[name] += 1
            return {"log": [f"{name}:{interrupt(name.upper())}"]}
        return node

    inner = (StateGraph(Log).add_node("a", asking("a")).add_node("b", asking("b"))
             .add_edge(START, "a").add_edge(START, "b").compile())
    parent = StateGraph(Log).add_node("sub", inner).add_edge(START, "sub").compile(checkpointer=saver)
    parent.invoke({"log": []}, _thread())
    by_value = {pause.value: pause.id for pause in parent.get_state(_thread()).interrupts}
    parent.invoke(Command(resume={by_value["A"]: "yes"}), _thread())
    assert [pause.value for pause in parent.get_state(_thread()).interrupts] == ["B"]
    result = parent.invoke(Command(resume={by_value["B"]: "ok"}), _thread())
    assert sorted(result["log"]) == ["a:yes", "b:ok"] and runs == {"a": 2, "b": 3}


def test_a_past_checkpoint_read_by_id_lists_every_interrupt_its_step_raised(saver):
    def asking(name):
        return lambda state: {"log": [f"{name}:{interrupt(name.upper())}"]}

    graph = (StateGraph(Log).add_node("a", asking("a")).add_node("b", asking("b"))
             .add_edge(START, "a").add_edge(START, "b").compile(checkpointer=saver))
    graph.invoke({"log": []}, _thread())
    by_value = {pause.value: pause.id for pause in graph.get_state(_thread()).interrupts}
    graph.invoke(Command(resume={by_value["A"]: "yes"}), _thread())
    newest = graph.get_state(_thread())
    assert [pause.value for pause in newest.interrupts] == ["B"]
    assert sorted(pause.value for pause in graph.get_state(newest.config).interrupts) == ["A", "B"]


def test_async_history_gives_a_subgraph_tasks_state_config_as_the_sync_history_does(saver):
    inner = StateGraph(Log).add_node("in", lambda s: {"log": ["in"]}).add_edge(START, "in").compile()
    parent = StateGraph(Log).add_node("sub", inner).add_edge(START, "sub").compile(checkpointer=saver)
    parent.invoke({"log": []}, _thread())

    async def history():
        return [h async for h in parent.aget_state_history(_thread())]

    sync_states = [[t.state for t in h.tasks] for h in parent.get_state_history(_thread())]
    assert [[t.state for t in h.tasks] for h in asyncio.run(history())] == sync_states
    assert any(state is not None and state["configurable"]["checkpoint_ns"].startswith("sub:")
               for states in sync_states for state in states)
