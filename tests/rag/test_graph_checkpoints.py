"""Checkpointers: SQLite files that outlive the process, threads and async code sharing one
saver, retention, JSON (never pickle) and clear refusals of state that cannot be saved."""

import asyncio
import json
import operator
import sqlite3
import subprocess
import sys
import textwrap
import threading
from typing import Annotated, Any, TypedDict

import pytest

from rag.graph import END, START, MessagesState, StateGraph
from rag.graph.checkpoint import InMemorySaver, MemorySaver, SerializationError, SqliteSaver
from rag.graph.types import Command, interrupt
from rag.messages import AIMessage, HumanMessage, ToolMessage


class Counter(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def counting_graph():
    graph = StateGraph(Counter)
    graph.add_node("inc", lambda s: {"n": s["n"] + 1, "log": [s["n"]]})
    graph.add_edge(START, "inc").add_conditional_edges("inc", lambda s: "inc" if s["n"] < 5 else END, ["inc", END])
    return graph


def thread(name):
    return {"configurable": {"thread_id": name}}


def test_memory_saver_is_in_memory_saver():
    assert MemorySaver is InMemorySaver


GRAPH_MODULE = textwrap.dedent('''
    import operator
    from typing import Annotated, TypedDict
    from rag.graph import StateGraph, START, END
    from rag.graph.types import interrupt

    class State(TypedDict):
        log: Annotated[list, operator.add]

    def ask(state):
        answer = interrupt("ship it?")
        return {"log": [f"answer: {answer}"]}

    def build(saver):
        graph = StateGraph(State)
        graph.add_node("prepare", lambda s: {"log": ["prepared"]})
        graph.add_node("ask", ask)
        graph.add_edge(START, "prepare").add_edge("prepare", "ask").add_edge("ask", END)
        return graph.compile(checkpointer=saver)
''')

RESUME_SCRIPT = textwrap.dedent('''
    import json, sys
    sys.path.insert(0, sys.argv[2])
    from paused_graph import build
    from rag.graph.checkpoint.sqlite import SqliteSaver
    from rag.graph.types import Command
    with SqliteSaver.from_conn_string(sys.argv[1]) as saver:
        out = build(saver).invoke(Command(resume="yes"), {"configurable": {"thread_id": "release"}})
    print(json.dumps(out))
''')


def test_a_thread_paused_in_one_process_resumes_in_another(tmp_path):
    (tmp_path / "paused_graph.py").write_text(GRAPH_MODULE)
    sys.path.insert(0, str(tmp_path))
    try:
        from paused_graph import build
    finally:
        sys.path.remove(str(tmp_path))
    path = tmp_path / "threads.sqlite"
    with SqliteSaver.from_conn_string(str(path)) as saver:
        paused = build(saver).invoke({"log": []}, thread("release"))
    assert paused["__interrupt__"][0].value == "ship it?"
    done = subprocess.run([sys.executable, "-c", RESUME_SCRIPT, str(path), str(tmp_path)],
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == {"log": ["prepared", "answer: yes"]}
    with SqliteSaver.from_conn_string(str(path)) as saver:
        assert build(saver).get_state(thread("release")).next == ()


def test_sqlite_saver_uses_wal_and_stores_json_not_pickle(tmp_path):
    path = tmp_path / "chat.sqlite"
    graph = StateGraph(MessagesState).add_node("reply", lambda s: {"messages": [AIMessage("hello", id="a1")]})
    graph.add_edge(START, "reply")
    with SqliteSaver.from_conn_string(str(path)) as saver:
        app = graph.compile(checkpointer=saver)
        app.invoke({"messages": [HumanMessage("hi", id="h1")]}, thread("c"))
        assert saver.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        blob = saver.conn.execute("SELECT checkpoint FROM checkpoints ORDER BY seq DESC LIMIT 1").fetchone()[0]
    stored = json.loads(blob)
    assert [m["content"] for m in stored["channel_values"]["messages"]] == ["hi", "hello"]
    with SqliteSaver.from_conn_string(str(path)) as saver:
        values = graph.compile(checkpointer=saver).get_state(thread("c")).values
    assert values["messages"] == [HumanMessage("hi", id="h1"), AIMessage("hello", id="a1")]


def test_messages_with_tool_calls_round_trip_through_sqlite(tmp_path):
    call = AIMessage("", tool_calls=[{"name": "search", "args": {"q": "rag"}, "id": "call_1"}], id="a1",
                     usage_metadata={"input_tokens": 3, "output_tokens": 1, "total_tokens": 4})
    answer = ToolMessage("found", tool_call_id="call_1", id="t1", artifact={"hits": [1, 2]})
    graph = StateGraph(MessagesState).add_node("agent", lambda s: {"messages": [call, answer]})
    with SqliteSaver.from_conn_string(str(tmp_path / "t.sqlite")) as saver:
        app = graph.add_edge(START, "agent").compile(checkpointer=saver)
        app.invoke({"messages": [HumanMessage("q", id="h1")]}, thread("t"))
        loaded = SqliteSaver(saver.conn).get_tuple(thread("t")).checkpoint["channel_values"]["messages"]
    assert loaded[1:] == [call, answer]


def test_keep_last_keeps_only_the_newest_checkpoints_of_each_thread(tmp_path):
    with SqliteSaver.from_conn_string(str(tmp_path / "k.sqlite"), keep_last=3) as saver:
        app = counting_graph().compile(checkpointer=saver)
        app.invoke({"n": 0}, thread("a"))
        app.invoke({"n": 3}, thread("b"))
        steps_a = [s.metadata["step"] for s in app.get_state_history(thread("a"))]
        steps_b = [s.metadata["step"] for s in app.get_state_history(thread("b"))]
    assert steps_a == [5, 4, 3]
    assert len(steps_b) == 3 and steps_b[0] == max(steps_b)


def test_in_memory_keep_last_matches_sqlite(tmp_path):
    app = counting_graph().compile(checkpointer=InMemorySaver(keep_last=2))
    app.invoke({"n": 0}, thread("a"))
    assert [s.metadata["step"] for s in app.get_state_history(thread("a"))] == [5, 4]


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_keep_last_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match="keep_last"):
        InMemorySaver(keep_last=bad)


def test_one_compiled_graph_serves_many_threads_at_once(tmp_path):
    with SqliteSaver.from_conn_string(str(tmp_path / "many.sqlite")) as saver:
        app = counting_graph().compile(checkpointer=saver)
        results: dict[str, Any] = {}

        def run(name):
            results[name] = app.invoke({"n": 0}, thread(name))

        workers = [threading.Thread(target=run, args=(f"t{i}",)) for i in range(8)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        histories = {name: len(list(app.get_state_history(thread(name)))) for name in results}
    assert all(r == {"n": 5, "log": [0, 1, 2, 3, 4]} for r in results.values()) and len(results) == 8
    assert set(histories.values()) == {7}  # input, start, five steps: nothing lost or mixed


def test_the_same_sqlite_saver_works_from_async_code(tmp_path):
    with SqliteSaver.from_conn_string(str(tmp_path / "async.sqlite")) as saver:
        app = counting_graph().compile(checkpointer=saver)

        async def main():
            outs = await asyncio.gather(*(app.ainvoke({"n": i}, thread(f"a{i}")) for i in range(4)))
            states = [await app.aget_state(thread(f"a{i}")) for i in range(4)]
            return outs, states

        outs, states = asyncio.run(main())
    assert [o["n"] for o in outs] == [5, 5, 5, 5]
    assert [s.metadata["step"] for s in states] == [5, 4, 3, 2]


class Holder(TypedDict):
    thing: Any
    n: int


def test_state_that_cannot_be_saved_raises_naming_the_key_and_type_and_keeps_the_last_checkpoint(tmp_path):
    graph = StateGraph(Holder)
    graph.add_node("ok", lambda s: {"n": 1}).add_node("bad", lambda s: {"thing": [threading.Lock()]})
    graph.add_edge(START, "ok").add_edge("ok", "bad")
    with SqliteSaver.from_conn_string(str(tmp_path / "bad.sqlite")) as saver:
        app = graph.compile(checkpointer=saver)
        with pytest.raises(SerializationError) as raised:
            app.invoke({"n": 0}, thread("x"))
        state = app.get_state(thread("x"))
    assert raised.value.key == "thing" and "lock" in str(raised.value) and "'thing'" in str(raised.value)
    assert state.values == {"n": 1} and state.next == ("bad",)


def test_in_memory_history_is_not_changed_by_a_node_mutating_the_state():
    def sneaky(state):
        state["log"].append("mutated in place")
        return {"n": 1}

    app = StateGraph(Counter).add_node("sneaky", sneaky).add_edge(START, "sneaky").compile(checkpointer=InMemorySaver())
    app.invoke({"n": 0, "log": ["kept"]}, thread("m"))
    first = [s.values for s in app.get_state_history(thread("m"))][-2]
    assert first == {"n": 0, "log": ["kept"]}


def test_list_filters_on_metadata_limits_and_bounds(tmp_path):
    saver = InMemorySaver()
    app = counting_graph().compile(checkpointer=saver)
    app.invoke({"n": 0}, thread("f"))
    newest = list(saver.list(thread("f"), limit=2))
    assert [t.metadata["step"] for t in newest] == [5, 4]
    assert [t.metadata["step"] for t in saver.list(thread("f"), before=newest[1].config, limit=2)] == [3, 2]
    assert [t.metadata["source"] for t in saver.list(thread("f"), filter={"step": -1})] == ["input"]


def test_delete_thread_forgets_it_in_both_savers(tmp_path):
    with SqliteSaver.from_conn_string(str(tmp_path / "d.sqlite")) as sqlite_saver:
        for saver in (InMemorySaver(), sqlite_saver):
            app = counting_graph().compile(checkpointer=saver)
            app.invoke({"n": 4}, thread("gone"))
            app.invoke({"n": 4}, thread("kept"))
            saver.delete_thread("gone")
            assert app.get_state(thread("gone")).values == {}
            assert app.get_state(thread("kept")).values["n"] == 5


def test_a_paused_steps_writes_stay_with_its_checkpoint_after_the_resume(tmp_path):
    def ask(state):
        return {"log": [interrupt("go?")]}

    graph = StateGraph(Counter)
    graph.add_node("fast", lambda s: {"n": 1}).add_node("ask", ask)
    graph.add_edge(START, "fast").add_edge(START, "ask")
    with SqliteSaver.from_conn_string(str(tmp_path / "w.sqlite")) as saver:
        app = graph.compile(checkpointer=saver)
        app.invoke({"n": 0}, thread("w"))
        paused_id = app.get_state(thread("w")).config["configurable"]["checkpoint_id"]
        app.invoke(Command(resume="yes"), thread("w"))
        kept = saver.conn.execute("SELECT DISTINCT channel FROM writes WHERE checkpoint_id=? ORDER BY channel",
                                  (paused_id,)).fetchall()
        paused = next(s for s in app.get_state_history(thread("w"))
                      if s.config["configurable"]["checkpoint_id"] == paused_id)
    # As LangGraph's: the history of the paused step shows what its nodes returned (the one
    # that paused too, once resumed) and asked.
    assert kept == [("__interrupt__",), ("__result__",), ("__resume__",)]
    assert {t.name: t.result for t in paused.tasks} == {"fast": {"n": 1}, "ask": {"log": ["yes"]}}
    assert [i.value for t in paused.tasks for i in t.interrupts] == ["go?"]


def test_a_database_of_another_format_version_is_refused(tmp_path):
    path = tmp_path / "old.sqlite"
    SqliteSaver.from_conn_string(str(path)).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE rag_graph_format SET version = 99")
    with pytest.raises(OSError, match="format 99"):
        SqliteSaver.from_conn_string(str(path))


def test_a_connection_opened_as_in_langgraphs_docs_works(tmp_path):
    conn = sqlite3.connect(tmp_path / "docs.sqlite", check_same_thread=False)
    app = counting_graph().compile(checkpointer=SqliteSaver(conn))
    assert app.invoke({"n": 3}, thread("d"))["n"] == 5
    assert asyncio.run(app.ainvoke({"n": 4}, thread("e")))["n"] == 5


class Items(TypedDict):
    items: list
    done: Annotated[list, operator.add]


def test_send_tasks_paused_in_a_sqlite_file_resume_after_reopening_it(tmp_path):
    from rag.graph.types import Send

    def build(saver):
        graph = StateGraph(Items)
        graph.add_node("check", lambda item: {"done": [f"{item}={interrupt(item)}"]})
        graph.add_conditional_edges(START, lambda s: [Send("check", x) for x in s["items"]])
        return graph.compile(checkpointer=saver)

    path = str(tmp_path / "send.sqlite")
    with SqliteSaver.from_conn_string(path) as saver:
        paused = build(saver).invoke({"items": ["a", "b"]}, thread("s"))["__interrupt__"]
    with SqliteSaver.from_conn_string(path) as saver:
        app = build(saver)
        assert app.get_state(thread("s")).next == ("check", "check")
        out = app.invoke(Command(resume={i.id: i.value * 2 for i in paused}), thread("s"))
    assert sorted(out["done"]) == ["a=aa", "b=bb"]
