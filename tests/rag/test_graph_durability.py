"""Spec: ``durability=`` (LangGraph's run option): when a run's checkpoints reach the saver.

"sync" (our default) saves each step before the next; "exit" saves once, when the run
stops (its end, a pause, a breakpoint, an error); "async" saves as "sync" does.
"""

from __future__ import annotations

import asyncio
import operator
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Annotated, TypedDict

import pytest
from hypothesis import given, settings, strategies as st

from rag.errors import ValidationError
from rag.graph import END, START, StateGraph
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.checkpoint.sqlite import SqliteSaver
from rag.graph.types import Command, interrupt

ROOT = Path(__file__).resolve().parents[2]


class Count(TypedDict):
    n: int
    log: Annotated[list, operator.add]


@pytest.fixture(params=["memory", "sqlite"])
def saver(request, tmp_path):
    if request.param == "memory":
        return InMemorySaver()
    return SqliteSaver(tmp_path / "threads.sqlite")


def _thread(name="t"):
    return {"configurable": {"thread_id": name}}


def _counting(saver, until, seen=None):
    """``a`` counts up to ``until``, ``b`` logs; ``seen`` gets, at each ``a``, how many
    checkpoints the thread had in the saver at that moment."""

    def a(state):
        if seen is not None:
            seen.append(len(list(saver.list(_thread()))))
        return {"n": state["n"] + 1, "log": [f"a{state['n'] + 1}"]}

    graph = (StateGraph(Count).add_node("a", a).add_node("b", lambda s: {"log": ["b"]})
             .add_edge(START, "a").add_conditional_edges("a", lambda s: "b" if s["n"] < until else END, ["b", END])
             .add_edge("b", "a"))
    return graph.compile(checkpointer=saver)


def test_exit_writes_no_checkpoint_while_the_run_is_under_way(saver):
    seen = []
    _counting(saver, 4, seen).invoke({"n": 0, "log": []}, _thread(), durability="exit")
    assert seen == [0, 0, 0, 0]


def test_sync_writes_each_step_before_the_next_starts(saver):
    seen = []
    _counting(saver, 3, seen).invoke({"n": 0, "log": []}, _thread(), durability="sync")
    assert seen == [2, 4, 6]  # the input checkpoint and START's, then two per loop


def test_exit_saves_one_checkpoint_holding_the_final_state(saver):
    app = _counting(saver, 3)
    out = app.invoke({"n": 0, "log": []}, _thread(), durability="exit")
    history = list(app.get_state_history(_thread()))
    assert len(history) == 1
    assert history[0].values == out == {"n": 3, "log": ["a1", "b", "a2", "b", "a3"]}
    assert history[0].next == () and history[0].metadata["step"] == 5


def test_each_exit_run_adds_one_checkpoint_whose_parent_is_the_previous_runs(saver):
    app = _counting(saver, 2)
    app.invoke({"n": 0, "log": []}, _thread(), durability="exit")
    first = app.get_state(_thread())
    app.invoke({"n": 0, "log": []}, _thread(), durability="exit")
    history = list(app.get_state_history(_thread()))
    assert len(history) == 2
    assert history[0].parent_config["configurable"]["checkpoint_id"] == first.config["configurable"]["checkpoint_id"]
    assert history[0].values["log"] == ["a1", "b", "a2", "a1", "b", "a2"]


def test_async_durability_saves_every_step_as_sync_does(saver):
    app = _counting(saver, 3)
    app.invoke({"n": 0, "log": []}, _thread("s"), durability="sync")
    app.invoke({"n": 0, "log": []}, _thread("a"), durability="async")
    steps = [[h.metadata["step"] for h in app.get_state_history(_thread(name))] for name in ("s", "a")]
    assert steps[0] == steps[1] == [5, 4, 3, 2, 1, 0, -1]


def _asking():
    def ask(state):
        return {"log": [f"answer:{interrupt('go on?')}"]}

    graph = (StateGraph(Count).add_node("one", lambda s: {"n": 1, "log": ["one"]}).add_node("two", lambda s: {"log": ["two"]})
             .add_node("ask", ask).add_edge(START, "one").add_edge("one", "two").add_edge("two", "ask"))
    return graph


def test_exit_saves_one_checkpoint_at_an_interrupt_and_the_resume_continues_from_it(saver):
    app = _asking().compile(checkpointer=saver)
    paused = app.invoke({"n": 0, "log": []}, _thread(), durability="exit")
    assert paused["__interrupt__"][0].value == "go on?"
    history = list(app.get_state_history(_thread()))
    assert len(history) == 1
    assert history[0].next == ("ask",) and history[0].values == {"n": 1, "log": ["one", "two"]}
    assert [i.value for i in history[0].interrupts] == ["go on?"]
    assert app.invoke(Command(resume="yes"), _thread(), durability="exit") == {"n": 1, "log": ["one", "two", "answer:yes"]}
    assert len(list(app.get_state_history(_thread()))) == 2


def test_exit_saves_one_checkpoint_at_a_breakpoint(saver):
    app = _asking().compile(checkpointer=saver, interrupt_before=["two"])
    app.invoke({"n": 0, "log": []}, _thread(), durability="exit")
    history = list(app.get_state_history(_thread()))
    assert [(h.next, h.values["log"]) for h in history] == [(("two",), ["one"])]


def test_exit_saves_the_last_step_and_the_failure_when_a_node_raises(saver):
    attempts = []

    def flaky(state):
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("disk full")
        return {"log": ["flaky"]}

    app = (StateGraph(Count).add_node("one", lambda s: {"log": ["one"]}).add_node("flaky", flaky)
           .add_edge(START, "one").add_edge("one", "flaky").compile(checkpointer=saver))
    with pytest.raises(RuntimeError, match="disk full"):
        app.invoke({"n": 0, "log": []}, _thread(), durability="exit")
    state = app.get_state(_thread())
    assert len(list(app.get_state_history(_thread()))) == 1
    assert state.next == ("flaky",) and state.values["log"] == ["one"]
    assert "disk full" in state.tasks[0].error
    assert app.invoke(None, _thread(), durability="exit")["log"] == ["one", "flaky"]


def test_exit_saves_the_parallel_results_that_finished_before_a_pause(saver):
    runs = []

    def done(state):
        runs.append("done")
        return {"log": ["done"]}

    app = (StateGraph(Count).add_node("done", done).add_node("ask", lambda s: {"log": [interrupt("?")]})
           .add_edge(START, "done").add_edge(START, "ask").compile(checkpointer=saver))
    app.invoke({"n": 0, "log": []}, _thread(), durability="exit")
    assert app.invoke(Command(resume="yes"), _thread(), durability="exit")["log"] == ["yes", "done"]  # name order
    assert runs == ["done"]  # its result was saved with the pause, not run again


def test_exit_saves_where_the_consumer_stopped_reading_the_stream(saver):
    app = _counting(saver, 5)
    chunks = app.stream({"n": 0, "log": []}, _thread(), stream_mode="values", durability="exit")
    seen = [next(chunks) for _ in range(3)]
    chunks.close()
    assert seen[-1]["n"] == 1
    history = list(app.get_state_history(_thread()))
    assert len(history) == 1 and history[0].values == seen[-1]


def test_exit_saves_the_last_step_when_the_run_hits_the_recursion_limit(saver):
    from rag.graph.errors import GraphRecursionError

    app = _counting(saver, 100)
    with pytest.raises(GraphRecursionError):
        app.invoke({"n": 0, "log": []}, {**_thread(), "recursion_limit": 4}, durability="exit")
    history = list(app.get_state_history(_thread()))
    assert len(history) == 1
    assert history[0].metadata["step"] == 4 and history[0].values["n"] == 2


def test_exit_saves_where_an_async_consumer_stopped_reading(saver):
    app = _counting(saver, 5)

    async def read_three():
        chunks = app.astream({"n": 0, "log": []}, _thread(), stream_mode="values", durability="exit")
        seen = [await chunks.__anext__() for _ in range(3)]
        await chunks.aclose()
        return seen

    seen = asyncio.run(read_three())
    assert [h.values for h in app.get_state_history(_thread())] == [seen[-1]]


def test_a_subgraph_runs_with_its_parents_exit_and_saves_only_its_pause(saver):
    def ask(state):
        return {"log": [f"inner:{interrupt('inner?')}"]}

    inner = (StateGraph(Count).add_node("i1", lambda s: {"log": ["i1"]}).add_node("ask", ask)
             .add_edge(START, "i1").add_edge("i1", "ask").compile())
    app = (StateGraph(Count).add_node("sub", inner).add_node("after", lambda s: {"log": ["after"]})
           .add_edge(START, "sub").add_edge("sub", "after").compile(checkpointer=saver))
    app.invoke({"n": 0, "log": []}, _thread(), durability="exit")
    sub_ns = app.get_state(_thread()).tasks[0].state["configurable"]["checkpoint_ns"]
    sub_config = {"configurable": {"thread_id": "t", "checkpoint_ns": sub_ns}}
    assert [c.checkpoint["channel_values"]["log"] for c in saver.list(sub_config)] == [["i1"]]
    assert app.invoke(Command(resume="ok"), _thread(), durability="exit")["log"] == ["i1", "inner:ok", "after"]


def test_a_finished_stateless_subgraph_under_exit_leaves_no_checkpoint(saver):
    inner = StateGraph(Count).add_node("i1", lambda s: {"log": ["i1"]}).add_edge(START, "i1").compile()
    app = (StateGraph(Count).add_node("sub", inner).add_edge(START, "sub").compile(checkpointer=saver))
    app.invoke({"n": 0, "log": []}, _thread(), durability="exit")
    namespaces = {c.config["configurable"]["checkpoint_ns"] for c in saver.list(None)}
    assert namespaces == {""}


def test_a_checkpointer_true_subgraph_under_exit_saves_its_state_at_its_end(saver):
    inner = (StateGraph(Count).add_node("i1", lambda s: {"n": s["n"] + 1}).add_edge(START, "i1")
             .compile(checkpointer=True))
    app = StateGraph(Count).add_node("sub", inner).add_edge(START, "sub").compile(checkpointer=saver)
    app.invoke({"n": 0, "log": []}, _thread(), durability="exit")
    inner_config = {"configurable": {"thread_id": "t", "checkpoint_ns": "sub"}}
    assert [c.checkpoint["channel_values"]["n"] for c in saver.list(inner_config)] == [1]


def test_ainvoke_with_exit_saves_once(saver):
    app = _counting(saver, 3)
    out = asyncio.run(app.ainvoke({"n": 0, "log": []}, _thread(), durability="exit"))
    assert out["n"] == 3 and len(list(app.get_state_history(_thread()))) == 1


def test_an_unknown_durability_is_refused_naming_it():
    app = _counting(InMemorySaver(), 1)
    with pytest.raises(ValidationError, match=r"durability='always'.*'sync', 'async', 'exit'"):
        app.invoke({"n": 0, "log": []}, _thread(), durability="always")


@settings(deadline=None, max_examples=25)
@given(until=st.integers(1, 12), runs=st.integers(1, 3))
def test_exit_ends_each_run_in_the_state_sync_ends_it_in_with_one_checkpoint_per_run(until, runs):
    by_mode = {}
    for mode in ("sync", "exit"):
        saver = InMemorySaver()
        app = _counting(saver, until)
        outs = [app.invoke({"n": 0, "log": []}, _thread(), durability=mode) for _ in range(runs)]
        by_mode[mode] = (outs, app.get_state(_thread()).values, len(list(app.get_state_history(_thread()))))
    assert by_mode["exit"][:2] == by_mode["sync"][:2]
    assert by_mode["exit"][2] == runs


_CRASHING = textwrap.dedent('''
    import operator, os, sys
    from typing import Annotated, TypedDict
    from rag.graph import END, START, StateGraph
    from rag.graph.checkpoint.sqlite import SqliteSaver

    class Count(TypedDict):
        n: int
        log: Annotated[list, operator.add]

    def a(state):
        if state["n"] == int(sys.argv[3]):
            os._exit(3)  # the process dies mid-run: no cleanup, no exception handling
        return {"n": state["n"] + 1, "log": ["a"]}

    saver = SqliteSaver(sys.argv[1])
    app = (StateGraph(Count).add_node("a", a).add_edge(START, "a")
           .add_conditional_edges("a", lambda s: "a" if s["n"] < 10 else END, ["a", END]).compile(checkpointer=saver))
    app.invoke({"n": 0, "log": []}, {"configurable": {"thread_id": "t"}, "recursion_limit": 50}, durability=sys.argv[2])
''')


def _crash(path, durability, at):
    """Run the counting graph in a child process that dies when ``n`` reaches ``at``."""
    done = subprocess.run([sys.executable, "-c", _CRASHING, str(path), durability, str(at)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stderr


@pytest.mark.parametrize("durability, last_n", [("exit", 10), ("sync", 4)])
def test_a_crash_mid_run_leaves_the_thread_at_its_last_saved_checkpoint(tmp_path, durability, last_n):
    path = tmp_path / "threads.sqlite"
    assert _crash(path, durability, at=99) == (0, "")  # a first run to the end (n: 10)
    code, err = _crash(path, durability, at=4)  # the second run dies at its fifth step
    assert code == 3, err
    state = SqliteSaver(path).get_tuple(_thread())
    # "exit": the second run saved nothing, the first run's end stands; "sync": the
    # second run's last step before the crash.
    assert state.checkpoint["channel_values"]["n"] == last_n
