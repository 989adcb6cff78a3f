"""Time travel, as LangGraph 1.2's: continuing a thread from a past checkpoint
(``invoke(None, config_with_checkpoint_id)``) saves a "fork" checkpoint and runs the due
nodes again on a new branch; the old branch stays in the history."""

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.graph import END, START, StateGraph
from rag.graph.checkpoint import InMemorySaver, SqliteSaver
from rag.graph.types import Command, interrupt


class Trail(TypedDict):
    trail: Annotated[list, operator.add]


def thread(name="t"):
    return {"configurable": {"thread_id": name}}


@pytest.fixture(params=["memory", "sqlite"])
def saver(request, tmp_path):
    if request.param == "memory":
        yield InMemorySaver()
        return
    with SqliteSaver.from_conn_string(str(tmp_path / "tt.sqlite")) as sqlite_saver:
        yield sqlite_saver


def chain(saver, calls, ask=False):
    """a -> b -> c, each appending its name; ``ask``: b asks a question first."""

    def node(name):
        def run(state):
            calls.append(name)
            if ask and name == "b":
                return {"trail": [f"b:{interrupt('answer?')}"]}
            return {"trail": [name]}
        return run

    graph = StateGraph(Trail)
    for name in "abc":
        graph.add_node(name, node(name))
    graph.add_edge(START, "a").add_edge("a", "b").add_edge("b", "c").add_edge("c", END)
    return graph.compile(checkpointer=saver)


def checkpoint_before(app, node, config=None):
    return next(s for s in app.get_state_history(config or thread()) if s.next == (node,))


def checkpoint_id(snapshot_or_config):
    config = getattr(snapshot_or_config, "config", snapshot_or_config)
    return config["configurable"]["checkpoint_id"]


def test_replay_from_a_past_checkpoint_saves_a_fork_as_its_child_one_step_on(saver):
    app = chain(saver, [])
    app.invoke({"trail": []}, thread())
    before_b = checkpoint_before(app, "b")
    app.invoke(None, before_b.config)
    fork = next(s for s in app.get_state_history(thread()) if s.metadata["source"] == "fork")
    assert fork.parent_config["configurable"]["checkpoint_id"] == checkpoint_id(before_b)
    assert fork.metadata["step"] == before_b.metadata["step"] + 1
    assert (fork.values, fork.next) == (before_b.values, before_b.next)


def test_replay_runs_the_nodes_due_again_and_not_those_before(saver):
    calls = []
    app = chain(saver, calls)
    app.invoke({"trail": []}, thread())
    calls.clear()
    result = app.invoke(None, checkpoint_before(app, "b").config)
    assert calls == ["b", "c"]
    assert result == {"trail": ["a", "b", "c"]}


def test_replay_keeps_the_old_branch_and_makes_the_new_one_newest(saver):
    app = chain(saver, [])
    app.invoke({"trail": []}, thread())
    old = [checkpoint_id(s) for s in app.get_state_history(thread())]
    app.invoke(None, checkpoint_before(app, "b").config)
    history = list(app.get_state_history(thread()))
    assert [checkpoint_id(s) for s in history][-len(old):] == old
    assert [(s.metadata["source"], s.next) for s in history[:3]] == [("loop", ()), ("loop", ("c",)), ("fork", ("b",))]
    assert app.get_state(thread()).config == history[0].config


def test_replaying_a_paused_step_asks_its_question_again(saver):
    calls = []
    app = chain(saver, calls, ask=True)
    app.invoke({"trail": []}, thread())
    app.invoke(Command(resume="first"), thread())
    calls.clear()
    replayed = app.invoke(None, checkpoint_before(app, "b").config)
    assert [i.value for i in replayed["__interrupt__"]] == ["answer?"]
    assert calls == ["b"]


def test_a_resume_after_a_replay_continues_the_new_branch(saver):
    app = chain(saver, [], ask=True)
    app.invoke({"trail": []}, thread())
    app.invoke(Command(resume="first"), thread())
    app.invoke(None, checkpoint_before(app, "b").config)
    assert app.invoke(Command(resume="second"), thread()) == {"trail": ["a", "b:second", "c"]}
    finals = [s.values["trail"] for s in app.get_state_history(thread()) if not s.next]
    assert finals == [["a", "b:second", "c"], ["a", "b:first", "c"]]


def test_a_command_update_sent_with_a_replay_is_saved_in_the_fork(saver):
    app = chain(saver, [])
    app.invoke({"trail": []}, thread())
    result = app.invoke(Command(update={"trail": ["edited"]}), checkpoint_before(app, "b").config)
    fork = next(s for s in app.get_state_history(thread()) if s.metadata["source"] == "fork")
    assert fork.values == {"trail": ["a", "edited"]}
    assert result == {"trail": ["a", "edited", "b", "c"]}


def test_running_an_update_state_checkpoint_that_is_newest_saves_no_fork(saver):
    calls = []
    app = chain(saver, calls)
    app.invoke({"trail": []}, thread())
    updated = app.update_state(checkpoint_before(app, "c").config, {"trail": ["note"]}, as_node="b")
    calls.clear()
    assert app.invoke(None, updated) == {"trail": ["a", "b", "note", "c"]}
    assert calls == ["c"]
    assert all(s.metadata["source"] != "fork" for s in app.get_state_history(thread()))


def test_a_resume_addressed_at_the_newest_paused_checkpoint_answers_it_without_a_fork(saver):
    app = chain(saver, [], ask=True)
    paused = app.invoke({"trail": []}, thread())
    assert "__interrupt__" in paused
    newest = app.get_state(thread()).config
    assert app.invoke(Command(resume="yes"), newest) == {"trail": ["a", "b:yes", "c"]}
    assert all(s.metadata["source"] != "fork" for s in app.get_state_history(thread()))


def test_async_replay_forks_as_the_sync_one_does(saver):
    calls = []
    app = chain(saver, calls)

    async def run():
        await app.ainvoke({"trail": []}, thread())
        calls.clear()
        return await app.ainvoke(None, checkpoint_before(app, "b").config)

    assert asyncio.run(run()) == {"trail": ["a", "b", "c"]}
    assert calls == ["b", "c"]
    assert [s.metadata["source"] for s in app.get_state_history(thread())].count("fork") == 1


@settings(deadline=None, max_examples=25)
@given(steps=st.integers(min_value=1, max_value=6), data=st.data())
def test_replaying_any_past_step_of_a_deterministic_run_reaches_the_same_end_on_a_new_branch(steps, data):
    def inc(state):
        return {"trail": [len(state["trail"])]}

    graph = StateGraph(Trail).add_node("inc", inc)
    graph.add_edge(START, "inc").add_conditional_edges("inc", lambda s: "inc" if len(s["trail"]) < steps else END,
                                                       ["inc", END])
    app = graph.compile(checkpointer=InMemorySaver())
    final = app.invoke({"trail": []}, thread())
    old = list(app.get_state_history(thread()))
    runnable = [s for s in old if s.next == ("inc",)]
    start = data.draw(st.sampled_from(runnable))
    assert app.invoke(None, start.config) == final
    history = list(app.get_state_history(thread()))
    # One fork, then one checkpoint per step left to run; the old branch unchanged.
    assert len(history) == len(old) + 1 + (steps - len(start.values["trail"]))
    assert [checkpoint_id(s) for s in history[-len(old):]] == [checkpoint_id(s) for s in old]


class Parent(TypedDict):
    results: Annotated[list, operator.add]


def stateful_subgraph_parent(saver, seen):
    """parent_node -> sub_node; sub_node is a checkpointer=True subgraph that records the
    state it starts from and appends "s", so its trail grows with each parent invocation."""

    def sub_step(state):
        seen.append(list(state["trail"]))
        return {"trail": ["s"]}

    sub = StateGraph(Trail).add_node("sub_step", sub_step).add_edge(START, "sub_step").compile(checkpointer=True)
    graph = StateGraph(Parent).add_node("parent_node", lambda s: {"results": ["p"]}).add_node("sub_node", sub)
    graph.add_edge(START, "parent_node").add_edge("parent_node", "sub_node")
    return graph.compile(checkpointer=saver)


def test_a_stateful_subgraph_replays_from_the_state_it_had_at_the_parents_checkpoint(saver):
    seen = []
    app = stateful_subgraph_parent(saver, seen)
    for _ in range(3):
        app.invoke({"results": []}, thread())
    assert seen == [[], ["s"], ["s", "s"]]
    second = [s for s in app.get_state_history(thread()) if s.next == ("sub_node",)][1]  # newest first
    seen.clear()
    app.invoke(None, second.config)
    assert seen == [["s"]]


def test_after_a_replay_a_stateful_subgraph_continues_from_its_new_branch(saver):
    seen = []
    app = stateful_subgraph_parent(saver, seen)
    app.invoke({"results": []}, thread())
    app.invoke({"results": []}, thread())
    first = [s for s in app.get_state_history(thread()) if s.next == ("sub_node",)][-1]
    app.invoke(None, first.config)
    seen.clear()
    app.invoke({"results": []}, thread())
    # The replay started it empty and saved ["s"]: that branch, not the two runs before, goes on.
    assert seen == [["s"]]


def test_a_subgraph_run_twice_in_one_replay_loads_the_bound_only_the_first_time(saver):
    seen = []

    def sub_step(state):
        seen.append(list(state["trail"]))
        return {"trail": ["s"]}

    sub = StateGraph(Trail).add_node("sub_step", sub_step).add_edge(START, "sub_step").compile(checkpointer=True)

    class Looping(TypedDict):
        results: Annotated[list, operator.add]
        turns: Annotated[list, operator.add]

    graph = StateGraph(Looping).add_node("count", lambda s: {"turns": [1]}).add_node("sub_node", sub)
    graph.add_edge(START, "count").add_edge("count", "sub_node")
    graph.add_conditional_edges("sub_node", lambda s: "count" if len(s["turns"]) % 2 else END, ["count", END])
    app = graph.compile(checkpointer=saver)
    app.invoke({"results": []}, thread())  # the subgraph runs twice
    first_sub = [s for s in app.get_state_history(thread()) if s.next == ("sub_node",)][-1]
    seen.clear()
    app.invoke(None, first_sub.config)
    assert seen == [[], ["s"]]


def asking_executor_parent(saver, calls):
    """executor (a checkpointer=True subgraph: step_a -> ask_1 -> ask_2, each ask pausing)."""

    def record(name, question=None):
        def run(state):
            calls.append(name)
            return {"trail": [f"{name}:{interrupt(question)}" if question else name]}
        return run

    executor = StateGraph(Trail).add_node("step_a", record("step_a")).add_node("ask_1", record("ask_1", "Q1"))
    executor.add_node("ask_2", record("ask_2", "Q2"))
    executor.add_edge(START, "step_a").add_edge("step_a", "ask_1").add_edge("ask_1", "ask_2")
    graph = StateGraph(Trail).add_node("executor", executor.compile(checkpointer=True)).add_edge(START, "executor")
    return graph.compile(checkpointer=saver)


def test_a_subgraph_snapshots_config_names_the_parents_checkpoint_in_checkpoint_map(saver):
    app = asking_executor_parent(saver, [])
    app.invoke({"trail": []}, thread())
    parent = app.get_state(thread(), subgraphs=True)
    sub_config = parent.tasks[0].state.config["configurable"]
    assert sub_config["checkpoint_map"] == {"": checkpoint_id(parent), "executor": sub_config["checkpoint_id"]}


def test_invoking_the_root_with_a_subgraphs_past_checkpoint_continues_the_subgraph_from_there(saver):
    calls = []
    app = asking_executor_parent(saver, calls)
    app.invoke({"trail": []}, thread())
    at_first_question = app.get_state(thread(), subgraphs=True).tasks[0].state.config
    app.invoke(Command(resume="x1"), thread())
    app.invoke(Command(resume="x2"), thread())
    calls.clear()
    replayed = app.invoke(None, at_first_question)
    assert [i.value for i in replayed["__interrupt__"]] == ["Q1"]
    assert calls == ["ask_1"]  # step_a ran before that checkpoint
    app.invoke(Command(resume="y1"), thread())
    assert app.invoke(Command(resume="y2"), thread()) == {"trail": ["step_a", "ask_1:y1", "ask_2:y2"]}
    sub_history = app.get_state_history({"configurable": {"thread_id": "t", "checkpoint_ns": "executor"}})
    assert [s.metadata["source"] for s in sub_history].count("fork") == 1


def test_a_subgraph_namespaces_history_reads_the_same_sync_and_async(saver):
    seen = []
    app = stateful_subgraph_parent(saver, seen)
    app.invoke({"results": []}, thread())
    sub = {"configurable": {"thread_id": "t", "checkpoint_ns": "sub_node"}}

    async def history():
        return [s async for s in app.aget_state_history(sub)]

    sync = [(s.values, s.next) for s in app.get_state_history(sub)]
    assert sync == [({"trail": ["s"]}, ()), ({"trail": []}, ("sub_step",)), ({"trail": []}, ("__start__",))]
    assert [(s.values, s.next) for s in asyncio.run(history())] == sync
