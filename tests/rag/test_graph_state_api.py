"""The state API and human in the loop: get_state, history, update_state, interrupt() and
Command, with the errors LangGraph leaves obscure."""

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from rag.errors import UsageError
from rag.graph import END, START, StateGraph
from rag.graph.checkpoint import InMemorySaver
from rag.graph.errors import CheckpointerRequiredError, EmptyInputError, ThreadNotFoundError
from rag.graph.types import Command, Interrupt, interrupt


class State(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def thread(name="t"):
    return {"configurable": {"thread_id": name}}


def approval_graph(runs, checkpointer=None):
    def draft(state):
        return {"log": ["draft"]}

    def approve(state):
        runs.append("approve")
        decision = interrupt({"draft": state["log"][-1]})
        return {"log": [f"decision: {decision}"]}

    graph = StateGraph(State)
    graph.add_node("draft", draft).add_node("approve", approve)
    graph.add_edge(START, "draft").add_edge("draft", "approve").add_edge("approve", END)
    return graph.compile(checkpointer=checkpointer if checkpointer is not None else InMemorySaver())


def test_get_state_of_a_paused_thread_shows_next_node_and_the_interrupt():
    app = approval_graph([])
    app.invoke({"n": 0}, thread())
    state = app.get_state(thread())
    assert state.next == ("approve",)
    assert state.values == {"n": 0, "log": ["draft"]}
    assert state.metadata == {"source": "loop", "step": 1, "parents": {}}
    assert state.interrupts[0].value == {"draft": "draft"} and state.tasks[0].name == "approve"
    assert state.config["configurable"]["checkpoint_id"] and state.created_at.endswith("+00:00")


def test_resuming_runs_the_interrupted_node_again_from_its_top():
    runs = []
    app = approval_graph(runs)
    app.invoke({"n": 0}, thread())
    out = app.invoke(Command(resume="approved"), thread())
    assert out["log"] == ["draft", "decision: approved"]
    assert runs == ["approve", "approve"]  # code before interrupt() runs again on resume


def test_resume_with_update_changes_the_state_the_node_sees_again():
    app = approval_graph([])
    app.invoke({"n": 0}, thread())
    out = app.invoke(Command(resume="ok", update={"n": 7}), thread())
    assert out == {"n": 7, "log": ["draft", "decision: ok"]}


def test_a_node_that_finished_beside_a_paused_one_does_not_run_again_on_resume():
    runs = []

    def fast(state):
        runs.append("fast")
        return {"log": ["fast"]}

    def ask(state):
        return {"log": [interrupt("?")]}

    graph = StateGraph(State).add_node("fast", fast).add_node("ask", ask)
    app = graph.add_edge(START, "fast").add_edge(START, "ask").compile(checkpointer=InMemorySaver())
    app.invoke({"n": 0}, thread())
    out = app.invoke(Command(resume="answer"), thread())
    assert runs == ["fast"]
    assert sorted(out["log"]) == ["answer", "fast"]


def test_two_paused_nodes_are_resumed_by_interrupt_id():
    graph = StateGraph(State)
    graph.add_node("left", lambda s: {"log": [f"left={interrupt('L')}"]})
    graph.add_node("right", lambda s: {"log": [f"right={interrupt('R')}"]})
    app = graph.add_edge(START, "left").add_edge(START, "right").compile(checkpointer=InMemorySaver())
    paused = app.invoke({"n": 0}, thread())["__interrupt__"]
    assert sorted(i.value for i in paused) == ["L", "R"]
    with pytest.raises(ValueError, match="interrupt_id"):
        app.invoke(Command(resume="same for both"), thread())
    answers = {i.id: i.value.lower() for i in paused}
    assert sorted(app.invoke(Command(resume=answers), thread())["log"]) == ["left=l", "right=r"]


def test_a_node_may_interrupt_several_times_each_resume_answers_the_next():
    def form(state):
        name = interrupt("name?")
        age = interrupt("age?")
        return {"log": [name, age]}

    app = StateGraph(State).add_node("form", form).add_edge(START, "form").compile(checkpointer=InMemorySaver())
    assert app.invoke({"n": 0}, thread())["__interrupt__"] == [Interrupt("name?", app.get_state(thread()).interrupts[0].id)]
    assert app.invoke(Command(resume="Ada"), thread())["__interrupt__"][0].value == "age?"
    assert app.invoke(Command(resume=36), thread())["log"] == ["Ada", 36]


def test_update_state_as_another_node_changes_what_runs_next():
    app = approval_graph([])
    app.invoke({"n": 0}, thread())
    app.update_state(thread(), {"log": ["skipped"]}, as_node="approve")
    state = app.get_state(thread())
    assert state.next == () and state.values["log"] == ["draft", "skipped"]
    assert state.metadata["source"] == "update"


def test_update_state_needs_as_node_when_the_last_step_ran_several_nodes():
    graph = StateGraph(State).add_node("a", lambda s: {"log": ["a"]}).add_node("b", lambda s: {"log": ["b"]})
    app = graph.add_edge(START, "a").add_edge(START, "b").compile(checkpointer=InMemorySaver())
    app.invoke({"n": 0}, thread())
    with pytest.raises(ValueError, match="as_node"):
        app.update_state(thread(), {"n": 1})
    with pytest.raises(ValueError, match="'nope' is not a node"):
        app.update_state(thread(), {"n": 1}, as_node="nope")


def test_invoke_none_resumes_a_thread_paused_by_interrupt_before():
    graph = StateGraph(State).add_node("a", lambda s: {"n": s["n"] + 1}).add_node("b", lambda s: {"log": ["b"]})
    app = graph.add_edge(START, "a").add_edge("a", "b").compile(checkpointer=InMemorySaver(), interrupt_before=["b"])
    assert app.invoke({"n": 0}, thread()) == {"n": 1, "log": []}
    assert app.invoke(None, thread()) == {"n": 1, "log": ["b"]}


def test_get_state_of_an_unknown_thread_is_empty():
    state = approval_graph([]).get_state(thread("never-run"))
    assert state.values == {} and state.next == () and state.metadata is None


def test_async_state_api_matches_the_sync_one():
    app = approval_graph([])

    async def main():
        await app.ainvoke({"n": 0}, thread())
        history = [s async for s in app.aget_state_history(thread())]
        await app.aupdate_state(thread(), {"n": 5})
        return history, await app.aget_state(thread())

    history, state = asyncio.run(main())
    assert [s.metadata["step"] for s in history] == [1, 0, -1]
    assert state.values["n"] == 5 and state.metadata["source"] == "update"


# -- errors LangGraph leaves obscure ------------------------------------------------------------
def test_resuming_a_thread_that_does_not_exist_says_so():
    with pytest.raises(ThreadNotFoundError, match="'ghost' has no checkpoint"):
        approval_graph([]).invoke(Command(resume="x"), thread("ghost"))
    with pytest.raises(KeyError):
        approval_graph([]).invoke(None, thread("ghost"))


def test_interrupt_without_a_checkpointer_says_how_to_add_one():
    def ask(state):
        return {"log": [interrupt("?")]}

    app = StateGraph(State).add_node("ask", ask).add_edge(START, "ask").compile()
    with pytest.raises(CheckpointerRequiredError, match="node 'ask' needs a checkpointer"):
        app.invoke({"n": 0})


def test_interrupt_outside_a_graph_is_refused():
    with pytest.raises(UsageError, match="inside a graph node"):
        interrupt("?")


def test_a_checkpointer_without_thread_id_in_the_config_says_what_to_pass():
    with pytest.raises(ValueError, match="thread_id"):
        approval_graph([]).invoke({"n": 0})
    with pytest.raises(ValueError, match="thread_id"):
        approval_graph([]).invoke({"n": 0}, {"configurable": {"user": "x"}})


def test_resume_command_on_a_thread_not_paused_by_interrupt_says_to_use_none():
    app = approval_graph([])
    app.invoke({"n": 0}, thread())
    app.invoke(Command(resume="yes"), thread())
    with pytest.raises(EmptyInputError, match=r"invoke\(None, config\)"):
        app.invoke(Command(resume="again"), thread())


def test_state_api_without_a_checkpointer_says_how_to_add_one():
    app = StateGraph(State).add_node("a", lambda s: None).add_edge(START, "a").compile()
    with pytest.raises(CheckpointerRequiredError, match="checkpointer"):
        app.get_state(thread())
    with pytest.raises(CheckpointerRequiredError, match="checkpointer"):
        app.invoke(None, thread())


def test_async_interrupt_and_resume_through_sqlite(tmp_path):
    from rag.graph.checkpoint import SqliteSaver

    with SqliteSaver.from_conn_string(str(tmp_path / "a.sqlite")) as saver:
        app = approval_graph([], saver)

        async def main():
            chunks = [c async for c in app.astream({"n": 0}, thread(), stream_mode="updates")]
            done = await app.ainvoke(Command(resume="fine"), thread())
            return chunks, done

        chunks, done = asyncio.run(main())
    assert chunks[0] == {"draft": {"log": ["draft"]}}
    assert chunks[1]["__interrupt__"][0].value == {"draft": "draft"}
    assert done["log"] == ["draft", "decision: fine"]


def test_a_consumer_that_stops_streaming_early_leaves_the_last_finished_step_saved():
    app = approval_graph([])
    for chunk in app.stream({"n": 0}, thread(), stream_mode="updates"):
        break  # stop after the first node's update
    state = app.get_state(thread())
    assert state.values["log"] == ["draft"] and state.next == ("approve",)
    assert app.invoke(None, thread())["__interrupt__"][0].value == {"draft": "draft"}
