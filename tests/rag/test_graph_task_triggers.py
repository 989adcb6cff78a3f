"""A task's ``triggers``, as LangGraph reports them in the "tasks"/"debug" streams and a
node's ``langgraph_triggers``: the node's ``branch:to:<node>`` channel and, for each waiting
edge (join) into it, ``join:<sources joined by +>:<node>``, sorted; deferred or not."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from rag.graph import START, StateGraph
from rag.graph._edges import node_triggers


class S(TypedDict):
    seen: Annotated[list, operator.add]


def join_graph(*, defer: bool, seen_triggers: list | None = None):
    """a and b both run after START; ``qa`` waits for both (a join)."""
    def qa(state, config):
        if seen_triggers is not None:
            seen_triggers.append(config["metadata"]["langgraph_triggers"])
        return {"seen": ["qa"]}

    graph = StateGraph(S).add_node("a", lambda s: {"seen": ["a"]}).add_node("b", lambda s: {"seen": ["b"]})
    graph.add_node("qa", qa, defer=defer)
    graph.add_edge(START, "a").add_edge(START, "b").add_edge(["a", "b"], "qa")
    return graph.compile()


def task_triggers(app) -> dict:
    return {chunk["payload"]["name"]: chunk["payload"]["triggers"]
            for chunk in app.stream({"seen": []}, stream_mode="debug") if chunk["type"] == "task"}


@pytest.mark.parametrize("defer", [False, True], ids=["plain", "deferred"])
def test_a_join_target_task_lists_its_branch_and_join_channels(defer):
    assert task_triggers(join_graph(defer=defer))["qa"] == ("branch:to:qa", "join:a+b:qa")


def test_a_node_reached_by_plain_edges_lists_only_its_branch_channel():
    assert task_triggers(join_graph(defer=False))["a"] == ("branch:to:a",)


def test_the_node_sees_the_same_triggers_in_its_run_metadata():
    seen: list = []
    join_graph(defer=False, seen_triggers=seen).invoke({"seen": []})
    assert seen == [("branch:to:qa", "join:a+b:qa")]


def test_triggers_are_sorted_whatever_the_order_joins_were_added():
    assert node_triggers(["z"], [(("y", "x"), "z"), (("b",), "z")]) == {
        "z": ("branch:to:z", "join:b:z", "join:y+x:z")}
