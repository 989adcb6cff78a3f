"""The "checkpoints"/"debug" streams of a resumed run, as LangGraph's: the run first sends
again the checkpoint it continues from, its paused tasks' interrupts listed; under
``durability="exit"`` each checkpoint event names as parent the parent of the checkpoint
the run started from (the steps in between are not saved)."""

from __future__ import annotations

from typing import TypedDict

import pytest

from rag.graph import START, StateGraph
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.types import Command, interrupt


class S(TypedDict):
    a: int


def paused_graph():
    """``add`` then ``ask``, which pauses once for an answer."""
    def ask(state):
        return {"a": interrupt("how much?")}

    graph = StateGraph(S).add_node("add", lambda s: {"a": s["a"] + 1}).add_node("ask", ask)
    return graph.add_edge(START, "add").add_edge("add", "ask").compile(checkpointer=InMemorySaver())


def config() -> dict:
    return {"configurable": {"thread_id": "t"}}


def checkpoints(app, value, mode: str, durability: str = "sync") -> list[dict]:
    chunks = list(app.stream(value, config(), stream_mode=mode, durability=durability))
    return [c["payload"] for c in chunks if c["type"] == "checkpoint"] if mode == "debug" else chunks


@pytest.mark.parametrize("mode", ["debug", "checkpoints"])
def test_a_resumed_run_first_sends_the_checkpoint_it_continues_with_its_interrupts(mode):
    app = paused_graph()
    app.invoke({"a": 1}, config())
    paused = app.get_state(config())
    first, *_ = checkpoints(app, Command(resume=5), mode)
    assert first["config"]["configurable"]["checkpoint_id"] == paused.config["configurable"]["checkpoint_id"]
    assert first["metadata"]["step"] == paused.metadata["step"] and first["next"] == ["ask"]
    assert [[i["value"] for i in task["interrupts"]] for task in first["tasks"]] == [["how much?"]]


def test_a_resumed_run_sends_the_continued_checkpoint_with_its_saved_parent():
    app = paused_graph()
    app.invoke({"a": 1}, config())
    paused = app.get_state(config())
    first, last = checkpoints(app, Command(resume=5), "debug")
    assert first["parent_config"]["configurable"]["checkpoint_id"] == paused.parent_config["configurable"]["checkpoint_id"]
    assert last["parent_config"]["configurable"]["checkpoint_id"] == paused.config["configurable"]["checkpoint_id"]


def test_a_new_run_sends_no_checkpoint_it_did_not_make():
    app = paused_graph()
    steps = [payload["metadata"]["step"] for payload in checkpoints(app, {"a": 1}, "debug")]
    assert steps == [-1, 0, 1]


def test_under_exit_a_new_thread_checkpoint_events_have_no_parent():
    app = paused_graph()
    assert [p["parent_config"] for p in checkpoints(app, {"a": 1}, "debug", "exit")] == [None, None, None]


def test_under_exit_every_checkpoint_event_names_the_parent_the_run_started_from():
    app = paused_graph()
    app.invoke({"a": 1}, config())  # saved step by step: the paused checkpoint has a parent
    started_from = app.get_state(config()).parent_config["configurable"]["checkpoint_id"]
    parents = [p["parent_config"]["configurable"]["checkpoint_id"]
               for p in checkpoints(app, Command(resume=5), "debug", "exit")]
    assert parents == [started_from, started_from]
