"""Spec: what a parent's stream shows of pauses inside its subgraphs, and the node-finished
hook through the levels, as LangGraph 1.2's."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from rag.graph import START, StateGraph
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.constants import CONFIG_KEY_NODE_FINISHED
from rag.graph.types import interrupt


class Key(TypedDict):
    my_key: str


def _nested(inner_breakpoint=True):
    """parent_1 -> child (child_1: a grandchild graph a breakpoint stops before grandchild_2) -> parent_2."""
    grandchild = (StateGraph(Key).add_node("grandchild_1", lambda s: {"my_key": s["my_key"] + " here"})
                  .add_node("grandchild_2", lambda s: {"my_key": s["my_key"] + " and there"})
                  .add_edge(START, "grandchild_1").add_edge("grandchild_1", "grandchild_2"))
    grandchild = grandchild.compile(interrupt_before=["grandchild_2"] if inner_breakpoint else None)
    child = StateGraph(Key).add_node("child_1", grandchild).add_edge(START, "child_1").compile()
    parent = (StateGraph(Key).add_node("parent_1", lambda s: {"my_key": "hi " + s["my_key"]}).add_node("child", child)
              .add_node("parent_2", lambda s: {"my_key": s["my_key"] + " and back"})
              .add_edge(START, "parent_1").add_edge("parent_1", "child").add_edge("child", "parent_2"))
    return parent.compile(checkpointer=InMemorySaver())


def _thread(name="t", **extra):
    return {"configurable": {"thread_id": name, **extra}}


def test_a_breakpoint_inside_a_subgraph_adds_no_values_chunk_to_the_parents_stream():
    app = _nested()
    assert [*app.stream({"my_key": "v"}, _thread(), stream_mode="values")] == [{"my_key": "v"}, {"my_key": "hi v"}]


def test_a_breakpoint_inside_a_subgraph_shows_as_an_empty_interrupt_in_updates():
    app = _nested()
    assert [*app.stream({"my_key": "v"}, _thread())] == [{"parent_1": {"my_key": "hi v"}}, {"__interrupt__": ()}]


def test_an_interrupt_inside_a_subgraph_is_shown_with_the_state_in_values():
    inner = (StateGraph(Key).add_node("ask", lambda s: {"my_key": interrupt("which?")}).add_edge(START, "ask")
             .compile())
    app = StateGraph(Key).add_node("sub", inner).add_edge(START, "sub").compile(checkpointer=InMemorySaver())
    chunks = [*app.stream({"my_key": "v"}, _thread(), stream_mode="values")]
    assert chunks[0] == {"my_key": "v"}
    assert chunks[1]["my_key"] == "v" and [i.value for i in chunks[1]["__interrupt__"]] == ["which?"]
    assert len(chunks) == 2


@pytest.mark.parametrize("runner", ["invoke", "ainvoke"])
def test_the_node_finished_hook_hears_every_level_in_the_order_nodes_finish(runner):
    import asyncio

    app = _nested()
    heard = []
    config = _thread(**{CONFIG_KEY_NODE_FINISHED: heard.append})
    run = (lambda value: app.invoke(value, config)) if runner == "invoke" else \
        (lambda value: asyncio.run(app.ainvoke(value, config)))
    run({"my_key": "v"})
    assert heard == ["parent_1", "grandchild_1"]  # the breakpoint stops the grandchild; nothing above finished
    run(None)
    assert heard == ["parent_1", "grandchild_1", "grandchild_2", "child_1", "child", "parent_2"]


class Text(TypedDict):
    my_key: Annotated[str, operator.add]


def _parallel():
    """``inner`` (a breakpoint before its second node) beside ``outer_1``, both joined by ``outer_2``."""
    inner = (StateGraph(Text).add_node("inner_1", lambda s: {"my_key": "got here"})
             .add_node("inner_2", lambda s: {"my_key": " and there"})
             .add_edge(START, "inner_1").add_edge("inner_1", "inner_2").compile(interrupt_before=["inner_2"]))
    graph = (StateGraph(Text).add_node("inner", inner).add_node("outer_1", lambda s: {"my_key": " and parallel"})
             .add_node("outer_2", lambda s: {"my_key": " and back"})
             .add_edge(START, "inner").add_edge(START, "outer_1").add_edge(["inner", "outer_1"], "outer_2"))
    return graph.compile(checkpointer=InMemorySaver())


def test_a_pause_shows_in_values_the_updates_of_the_nodes_that_finished_in_its_step():
    chunks = [*_parallel().stream({"my_key": ""}, _thread(), stream_mode="values")]
    assert chunks == [{"my_key": ""}, {"my_key": " and parallel"}]


def test_with_subgraphs_a_breakpoint_inside_a_subgraph_is_streamed_once_by_the_root():
    chunks = [*_parallel().stream({"my_key": ""}, _thread(), subgraphs=True)]
    assert [(len(ns), chunk) for ns, chunk in chunks if "__interrupt__" in chunk] == [(0, {"__interrupt__": ()})]
