"""Differential tests: the same graphs in rag.graph and LangGraph 1.2.22 give the same
streams, state history, interrupts and resumes (ids and timestamps aside)."""

import operator
from typing import Annotated, TypedDict

import pytest
from graph_peers import LANGGRAPH, OURS, LoopState, loop_graph, normal, snapshot_shape, steps_of
from hypothesis import given
from hypothesis import strategies as st


def both(run):
    """``run(lib)`` for each library: (ours, langgraph)."""
    return run(OURS), run(LANGGRAPH)


def thread(name="t"):
    return {"configurable": {"thread_id": name}}


@pytest.mark.parametrize("mode", ["values", "updates", ["values", "updates"]])
def test_stream_shapes_match_langgraph(mode):
    ours, theirs = both(lambda lib: list(loop_graph(lib).compile().stream({"n": 0, "log": []}, stream_mode=mode)))
    assert normal(ours) == normal(theirs)
    assert len(ours) > 3


def test_invoke_result_matches_langgraph():
    ours, theirs = both(lambda lib: loop_graph(lib).compile().invoke({"n": 0, "log": []}))
    assert ours == theirs == {"n": 3, "log": ["a", "b", "a", "b", "a"]}


def test_state_history_matches_langgraph_newest_first():
    def history(lib):
        app = loop_graph(lib).compile(checkpointer=lib.InMemorySaver())
        app.invoke({"n": 0, "log": []}, thread())
        return [snapshot_shape(s) for s in app.get_state_history(thread())]

    ours, theirs = both(history)
    assert ours == theirs
    assert [shape[2]["step"] for shape in ours] == [5, 4, 3, 2, 1, 0, -1]


def test_a_second_input_on_a_thread_continues_its_state_and_steps_like_langgraph():
    def run(lib):
        app = loop_graph(lib, limit_n=1).compile(checkpointer=lib.InMemorySaver())
        app.invoke({"n": 0, "log": []}, thread())
        out = app.invoke({"n": 0, "log": ["again"]}, thread())
        return out, [snapshot_shape(s) for s in app.get_state_history(thread())]

    ours, theirs = both(run)
    assert ours == theirs


def ask_graph(lib, calls):
    def ask(state):
        calls.append(lib.name)
        answer = lib.interrupt({"question": "approve?", "n": state["n"]})
        return {"log": [answer]}

    graph = lib.StateGraph(LoopState)
    graph.add_node("ask", ask)
    graph.add_edge(lib.START, "ask")
    graph.add_edge("ask", lib.END)
    return graph.compile(checkpointer=lib.InMemorySaver())


def test_interrupt_returns_its_value_under_dunder_interrupt_like_langgraph():
    ours, theirs = both(lambda lib: normal(ask_graph(lib, []).invoke({"n": 1, "log": []}, thread())))
    assert ours == theirs == {"n": 1, "log": [], "__interrupt__": [("interrupt", {"question": "approve?", "n": 1})]}


def test_interrupt_stream_and_paused_state_match_langgraph():
    def run(lib):
        app = ask_graph(lib, [])
        chunks = list(app.stream({"n": 1, "log": []}, thread(), stream_mode=["values", "updates"]))
        return normal(chunks), snapshot_shape(app.get_state(thread()))

    ours, theirs = both(run)
    assert ours == theirs
    assert ours[1][1] == ("ask",)


def test_resume_with_command_matches_langgraph_and_reruns_the_node_from_its_top():
    def run(lib):
        calls = []
        app = ask_graph(lib, calls)
        app.invoke({"n": 1, "log": []}, thread())
        out = app.invoke(lib.Command(resume="yes"), thread())
        return out, snapshot_shape(app.get_state(thread())), len(calls)

    ours, theirs = both(run)
    assert ours == theirs
    assert ours[0] == {"n": 1, "log": ["yes"]} and ours[2] == 2  # the node body ran twice


def test_interrupt_before_update_state_and_resume_match_langgraph():
    def run(lib):
        app = loop_graph(lib).compile(checkpointer=lib.InMemorySaver(), interrupt_before=["b"])
        first = list(app.stream({"n": 0, "log": []}, thread(), stream_mode="updates"))
        paused = snapshot_shape(app.get_state(thread()))
        app.update_state(thread(), {"log": ["edited"]})
        edited = snapshot_shape(app.get_state(thread()))
        resumed = list(app.stream(None, thread(), stream_mode=["values", "updates"]))
        return normal(first), paused, edited, normal(resumed)

    ours, theirs = both(run)
    assert ours == theirs
    assert ours[2][2] == {"source": "update", "step": 2}


def test_interrupt_after_pauses_after_the_node_like_langgraph():
    def run(lib):
        app = loop_graph(lib).compile(checkpointer=lib.InMemorySaver(), interrupt_after=["a"])
        return normal(list(app.stream({"n": 0, "log": []}, thread(), stream_mode="updates"))), \
            snapshot_shape(app.get_state(thread()))

    ours, theirs = both(run)
    assert ours == theirs


def test_time_travel_fork_from_a_past_checkpoint_matches_langgraph():
    def run(lib):
        app = loop_graph(lib).compile(checkpointer=lib.InMemorySaver())
        app.invoke({"n": 0, "log": []}, thread())
        step_zero = next(s for s in app.get_state_history(thread()) if s.metadata["step"] == 0)
        fork = app.update_state(step_zero.config, {"n": 10})
        forked = snapshot_shape(app.get_state(thread()))
        final = app.invoke(None, fork)
        return forked, final, len(list(app.get_state_history(thread())))

    ours, theirs = both(run)
    assert ours == theirs
    assert ours[1]["n"] == 11


def test_replaying_from_a_past_checkpoint_reruns_the_later_steps_like_langgraph():
    def run(lib):
        app = loop_graph(lib).compile(checkpointer=lib.InMemorySaver())
        app.invoke({"n": 0, "log": []}, thread())
        step_two = next(s for s in app.get_state_history(thread()) if s.metadata["step"] == 2)
        return app.invoke(None, step_two.config)

    ours, theirs = both(run)
    assert ours == theirs == {"n": 3, "log": ["a", "b", "a", "b", "a"]}


def test_a_runaway_loop_stops_after_recursion_limit_steps_like_langgraph():
    def run(lib):
        seen = []
        app = loop_graph(lib, limit_n=10**9).compile()
        with pytest.raises(RecursionError) as raised:
            for chunk in app.stream({"n": 0, "log": []}, {"recursion_limit": 7}, stream_mode="updates"):
                seen.append(chunk)
        assert isinstance(raised.value, lib.GraphRecursionError)
        return len(seen)

    ours, theirs = both(run)
    assert ours == theirs == 7


def test_join_edges_and_fan_out_match_langgraph():
    class Fan(TypedDict):
        log: Annotated[list, operator.add]

    def run(lib):
        graph = lib.StateGraph(Fan)
        for name in ("left", "right", "join"):
            graph.add_node(name, lambda s, name=name: {"log": [name]})
        graph.add_edge(lib.START, "left").add_edge(lib.START, "right")
        graph.add_edge(["left", "right"], "join").add_edge("join", lib.END)
        return [normal(c) for c in graph.compile().stream({"log": []}, stream_mode="values")]

    ours, theirs = both(run)
    assert ours == theirs
    assert ours[-1] == {"log": ["left", "right", "join"]}


def test_command_goto_and_update_from_a_node_match_langgraph():
    def run(lib):
        graph = lib.StateGraph(LoopState)
        graph.add_node("route", lambda s: lib.Command(update={"n": 5}, goto="b"))
        graph.add_node("b", lambda s: {"log": [f"b saw {s['n']}"]})
        graph.add_edge(lib.START, "route")
        return list(graph.compile().stream({"n": 0, "log": []}, stream_mode="updates"))

    ours, theirs = both(run)
    assert ours == theirs == [{"route": {"n": 5}}, {"b": {"log": ["b saw 5"]}}]


# -- add_messages -----------------------------------------------------------------------------
operations = st.lists(
    st.tuples(st.sampled_from(["human", "ai", "remove"]), st.integers(0, 5), st.text(max_size=5)),
    min_size=1, max_size=12,
)


def apply_operations(lib, ops):
    messages = []
    for kind, number, text in ops:
        ids = {m.id for m in messages}
        if kind == "remove":
            if str(number) not in ids:
                continue
            update = [lib.RemoveMessage(id=str(number))]
        else:
            cls = lib.HumanMessage if kind == "human" else lib.AIMessage
            update = [cls(text, id=str(number))]
        messages = lib.add_messages(messages, update)
    return [(m.type, m.content, m.id) for m in messages]


@given(operations)
def test_add_messages_appends_replaces_and_removes_by_id_like_langgraph(ops):
    assert apply_operations(OURS, ops) == apply_operations(LANGGRAPH, ops)


def test_add_messages_gives_ids_to_new_messages_and_accepts_role_pairs_like_langgraph():
    ours, theirs = both(lambda lib: lib.add_messages([("human", "hi")], [("ai", "hello"), "and you?"]))
    assert [(m.type, m.content) for m in ours] == [(m.type, m.content) for m in theirs]
    assert all(isinstance(m.id, str) and len(m.id) == 36 for m in ours)


class Jokes(TypedDict):
    subjects: list
    jokes: Annotated[list, operator.add]


def map_reduce(lib):
    graph = lib.StateGraph(Jokes)
    graph.add_node("plan", lambda s: {"subjects": s["subjects"] + ["cats"]})
    graph.add_node("joke", lambda arg: {"jokes": [f"joke about {arg['subject']}"]})
    graph.add_node("best", lambda s: {"jokes": [f"best of {len(s['jokes'])}"]})
    graph.add_edge(lib.START, "plan")
    graph.add_conditional_edges("plan", lambda s: [lib.Send("joke", {"subject": x}) for x in s["subjects"]], ["joke"])
    graph.add_edge("joke", "best")
    return graph.compile(checkpointer=lib.InMemorySaver())


def test_send_fans_out_one_task_per_item_and_joins_once_like_langgraph():
    def run(lib):
        app = map_reduce(lib)
        chunks = list(app.stream({"subjects": ["dogs", "owls"]}, thread(), stream_mode=["updates", "values"]))
        return steps_of(chunks), [snapshot_shape(s) for s in app.get_state_history(thread())]

    ours, theirs = both(run)
    assert ours == theirs
    assert ours[1][2][1] == ("joke", "joke", "joke")  # the step after plan: three Send tasks
    assert ours[0][-1][0] == [repr({"best": {"jokes": ["best of 3"]}})]


def test_a_send_task_paused_by_interrupt_resumes_on_its_own_arg_like_langgraph():
    def run(lib):
        graph = lib.StateGraph(Jokes)
        graph.add_node("ask", lambda arg: {"jokes": [f"{arg}: {lib.interrupt(arg)}"]})
        graph.add_conditional_edges(lib.START, lambda s: [lib.Send("ask", x) for x in s["subjects"]])
        app = graph.compile(checkpointer=lib.InMemorySaver())
        paused = app.invoke({"subjects": ["one", "two"]}, thread())["__interrupt__"]
        answers = {i.id: i.value.upper() for i in paused}
        return sorted(i.value for i in paused), sorted(app.invoke(lib.Command(resume=answers), thread())["jokes"])

    ours, theirs = both(run)
    assert ours == theirs == (["one", "two"], ["one: ONE", "two: TWO"])


def test_command_goto_send_from_a_node_matches_langgraph():
    def run(lib):
        graph = lib.StateGraph(Jokes)
        graph.add_node("router", lambda s: lib.Command(goto=[lib.Send("joke", {"subject": "x"})]))
        graph.add_node("joke", lambda arg: {"jokes": [arg["subject"]]})
        graph.add_edge(lib.START, "router")
        return graph.compile().invoke({"subjects": []})

    ours, theirs = both(run)
    assert ours == theirs == {"subjects": [], "jokes": ["x"]}


def progress_graph(lib):
    def work(state):
        write = lib.get_stream_writer()
        for part in ("fetch", "parse"):
            write({"step": part, "n": state["n"]})
        return {"n": state["n"] + 1}

    graph = lib.StateGraph(LoopState).add_node("work", work)
    graph.add_edge(lib.START, "work")
    return graph.compile()


@pytest.mark.parametrize("mode", ["custom", ["custom", "updates", "values"]])
def test_custom_stream_chunks_from_get_stream_writer_match_langgraph(mode):
    ours, theirs = both(lambda lib: list(progress_graph(lib).stream({"n": 1, "log": []}, stream_mode=mode)))
    assert ours == theirs
    assert {"step": "parse", "n": 1} in (ours if mode == "custom" else [c for _, c in ours])


def test_a_stream_writer_is_a_no_op_when_custom_is_not_streamed_like_langgraph():
    ours, theirs = both(lambda lib: list(progress_graph(lib).stream({"n": 1, "log": []}, stream_mode="updates")))
    assert ours == theirs == [{"work": {"n": 2}}]
