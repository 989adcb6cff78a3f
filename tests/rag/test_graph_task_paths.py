"""A task's path, as LangGraph records it: ``("__pregel_pull", name)`` for a node its edges
started, ``("__pregel_push", i, False)`` for a ``Send`` (``i`` its place among its step's
Sends), the same in the node's run metadata and in the saved history, before and after a
resume."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from hypothesis import given, settings
from hypothesis import strategies as st

from rag.graph import END, START, StateGraph
from rag.graph._effects import task_path
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.types import Send, interrupt


class Fan(TypedDict):
    items: list
    seen: Annotated[list, operator.add]


def fan_out_graph(pause_on: object = None):
    """``split`` sends each item to ``work`` and also goes to ``tally`` by name."""
    def work(item):
        if item == pause_on:
            interrupt("ask")
        return {"seen": [item]}

    graph = StateGraph(Fan)
    graph.add_node("split", lambda state: {})
    graph.add_node("work", work)
    graph.add_node("tally", lambda state: {"seen": ["tally"]})
    graph.add_edge(START, "split")
    graph.add_conditional_edges("split", lambda state: [Send("work", i) for i in state["items"]] + ["tally"])
    graph.add_edge("work", END)
    graph.add_edge("tally", END)
    return graph


def config() -> dict:
    return {"configurable": {"thread_id": "t"}}


def fan_out_step_paths(app) -> list:
    history = list(app.get_state_history(config()))
    fan_out_step = next(s for s in history if s.metadata["step"] == 1)
    return [(task.name, task.path) for task in fan_out_step.tasks]


def test_history_shows_a_send_task_path_as_push_with_its_index_among_the_sends():
    app = fan_out_graph().compile(checkpointer=InMemorySaver())
    app.invoke({"items": ["a", "b"], "seen": []}, config())
    assert fan_out_step_paths(app) == [("work", ("__pregel_push", 0, False)), ("work", ("__pregel_push", 1, False)),
                                       ("tally", ("__pregel_pull", "tally"))]


def test_a_resumed_run_keeps_the_send_task_paths_in_its_history():
    app = fan_out_graph(pause_on="b").compile(checkpointer=InMemorySaver())
    app.invoke({"items": ["a", "b"], "seen": []}, config())
    paused = fan_out_step_paths(app)
    app.invoke(None, config())
    assert fan_out_step_paths(app) == paused
    assert [path for _, path in paused][:2] == [("__pregel_push", 0, False), ("__pregel_push", 1, False)]


def test_a_send_task_runs_with_the_same_path_its_history_shows():
    seen_paths = []

    def work(item, config):
        seen_paths.append(config["metadata"]["langgraph_path"])
        return {"seen": [item]}

    graph = StateGraph(Fan).add_node("split", lambda state: {}).add_node("work", work)
    graph.add_edge(START, "split").add_conditional_edges("split", lambda s: [Send("work", i) for i in s["items"]])
    app = graph.compile(checkpointer=InMemorySaver())
    app.invoke({"items": ["a"], "seen": []}, config())
    assert seen_paths == [path for _, path in fan_out_step_paths(app)] == [("__pregel_push", 0, False)]


@settings(deadline=None, max_examples=50)
@given(st.lists(st.one_of(st.sampled_from(["a", "b"]), st.integers(0, 3).map(lambda i: Send("n", i))), max_size=8))
def test_send_paths_number_the_sends_in_order_and_pull_paths_name_the_node(entries):
    paths = [task_path(entries, index) for index in range(len(entries))]
    assert [p[1] for p in paths if p[0] == "__pregel_push"] == list(range(sum(isinstance(e, Send) for e in entries)))
    assert [p for p in paths if p[0] == "__pregel_pull"] == [("__pregel_pull", e) for e in entries
                                                              if not isinstance(e, Send)]
