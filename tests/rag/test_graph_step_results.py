"""A finished step's task results are kept with the checkpoint it ran from, saved together
with the step's next checkpoint (``saver.put_step``), as LangGraph's history shows them."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from rag.graph import END, START, StateGraph
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.checkpoint.sqlite import SqliteSaver


class Loop(TypedDict):
    n: int
    seen: Annotated[list, operator.add]


def loop_graph(steps: int):
    graph = StateGraph(Loop).add_node("count", lambda s: {"n": s["n"] + 1, "seen": [s["n"]]})
    graph.add_edge(START, "count").add_conditional_edges("count", lambda s: "count" if s["n"] < steps else END)
    return graph


def config(thread: str = "t") -> dict:
    return {"configurable": {"thread_id": thread}}


@pytest.mark.parametrize("make_saver", [InMemorySaver, lambda: SqliteSaver.from_conn_string(":memory:")],
                         ids=["memory", "sqlite"])
def test_every_finished_step_shows_what_its_node_returned(make_saver):
    app = loop_graph(3).compile(checkpointer=make_saver())
    app.invoke({"n": 0, "seen": []}, config())
    results = [[task.result for task in snapshot.tasks] for snapshot in app.get_state_history(config())]
    assert results == [[], [{"n": 3, "seen": [2]}], [{"n": 2, "seen": [1]}], [{"n": 1, "seen": [0]}],
                       [{"n": 0, "seen": []}]]


def test_a_sqlite_thread_commits_once_per_step_results_included(tmp_path):
    saver = SqliteSaver.from_conn_string(str(tmp_path / "steps.sqlite"))
    commits = []
    saver.conn.set_trace_callback(lambda sql: commits.append(sql) if sql.lstrip().upper().startswith("COMMIT") else None)
    loop_graph(5).compile(checkpointer=saver).invoke({"n": 0, "seen": []}, config())
    # the "input" checkpoint, START's step, then one per node step
    assert len(commits) == 1 + 1 + 5
    saver.close()


def test_a_saver_subclass_overriding_put_sees_every_checkpoint():
    class Counting(InMemorySaver):
        def __init__(self) -> None:
            super().__init__()
            self.puts = 0

        def put(self, config, checkpoint, metadata, new_versions=None):
            self.puts += 1
            return super().put(config, checkpoint, metadata, new_versions)

    saver = Counting()
    app = loop_graph(4).compile(checkpointer=saver)
    app.invoke({"n": 0, "seen": []}, config())
    assert saver.puts == len(list(app.get_state_history(config()))) == 6
    assert [t.result for t in list(app.get_state_history(config()))[1].tasks] == [{"n": 4, "seen": [3]}]


def test_keep_last_drops_the_results_of_the_checkpoints_it_drops():
    saver = InMemorySaver(keep_last=2)
    loop_graph(5).compile(checkpointer=saver).invoke({"n": 0, "seen": []}, config())
    kept = {checkpoint_id for (_, _, checkpoint_id) in saver._writes}  # no writes outlive their checkpoint
    newest = {item.config["configurable"]["checkpoint_id"] for item in saver.list(config())}
    assert kept <= newest
