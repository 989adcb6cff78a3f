"""Resuming as LangGraph 1.2 (issue 37, item 1): which pause each ``Command(resume=...)``
answers (rag.graph._resume), and what a paused step streams."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import BaseModel

from rag.graph import START, StateGraph
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.errors import AmbiguousResumeError, EmptyInputError, UnknownInterruptError
from rag.graph.types import Command, interrupt

from tests.rag.graph_peers import LANGGRAPH, OURS


class State(TypedDict):
    log: Annotated[list, operator.add]


def asking(question: str):
    def node(state: State) -> State:
        return {"log": [f"{question}={interrupt(question)}"]}

    return node


def parallel(*questions: str, lib=OURS):
    graph = lib.StateGraph(State)
    for question in questions:
        graph.add_node(question, asking(question) if lib is OURS else _lg_asking(question))
        graph.add_edge(lib.START, question)
    return graph.compile(checkpointer=lib.InMemorySaver())


def _lg_asking(question: str):
    def node(state):
        return {"log": [f"{question}={LANGGRAPH.interrupt(question)}"]}

    return node


def config(thread: str = "t") -> dict:
    return {"configurable": {"thread_id": thread}}


def pending(app, thread: str = "t") -> dict:
    return {i.value: i.id for i in app.get_state(config(thread)).interrupts}


def test_a_resume_map_answers_several_paused_interrupts_at_once():
    app = parallel("a", "b")
    app.invoke({"log": []}, config())
    ids = pending(app)
    result = app.invoke(Command(resume={ids["a"]: 1, ids["b"]: 2}), config())
    assert sorted(result["log"]) == ["a=1", "b=2"]


def test_a_resume_map_naming_an_unknown_interrupt_id_is_refused_naming_it_and_the_pending_ids():
    app = parallel("a", "b")
    app.invoke({"log": []}, config())
    ids = pending(app)
    unknown = "0" * 32
    with pytest.raises(UnknownInterruptError, match=f"'{unknown}', which is not pending") as caught:
        app.invoke(Command(resume={ids["a"]: 1, unknown: 2}), config())
    assert caught.value.reason == "not_pending" and caught.value.interrupt_ids == (unknown,)
    assert sorted(caught.value.pending_ids) == sorted(ids.values())


def test_a_refused_resume_map_saves_nothing_so_the_interrupts_can_still_be_answered():
    app = parallel("a", "b")
    app.invoke({"log": []}, config())
    ids = pending(app)
    with pytest.raises(UnknownInterruptError):
        app.invoke(Command(resume={ids["a"]: 1, "f" * 32: 2}), config())
    assert pending(app) == ids
    assert sorted(app.invoke(Command(resume={ids["a"]: 3, ids["b"]: 4}), config())["log"]) == ["a=3", "b=4"]


def test_an_interrupt_id_already_answered_is_refused():
    app = parallel("a", "b")
    app.invoke({"log": []}, config())
    ids = pending(app)
    app.invoke(Command(resume={ids["a"]: 1}), config())
    with pytest.raises(UnknownInterruptError, match="not pending"):
        app.invoke(Command(resume={ids["a"]: 1}), config())


def test_an_empty_resume_map_is_refused_naming_the_pending_ids():
    app = parallel("a")
    app.invoke({"log": []}, config())
    with pytest.raises(UnknownInterruptError, match="names no interrupt") as caught:
        app.invoke(Command(resume={}), config())
    assert caught.value.reason == "empty_map" and caught.value.pending_ids == tuple(pending(app).values())


def test_one_value_for_several_paused_nodes_is_ambiguous_and_names_the_ids():
    app = parallel("a", "b")
    app.invoke({"log": []}, config())
    ids = pending(app)
    with pytest.raises(AmbiguousResumeError, match=ids["a"]):
        app.invoke(Command(resume="x"), config())


def test_a_resume_at_a_static_breakpoint_passes_it_and_the_next_interrupt_takes_the_value():
    graph = StateGraph(State).add_node("ask", asking("q")).add_edge(START, "ask")
    app = graph.compile(checkpointer=InMemorySaver(), interrupt_before=["ask"])
    app.invoke({"log": []}, config())
    assert app.get_state(config()).next == ("ask",)
    assert app.invoke(Command(resume="early"), config()) == {"log": ["q=early"]}


def test_a_resume_value_at_a_breakpoint_answers_only_the_step_right_after_it():
    graph = StateGraph(State).add_node("first", lambda s: {"log": ["first"]}).add_node("ask", asking("q"))
    graph.add_edge(START, "first").add_edge("first", "ask")
    app = graph.compile(checkpointer=InMemorySaver(), interrupt_before=["first"])
    app.invoke({"log": []}, config())
    result = app.invoke(Command(resume="unused"), config())
    assert [i.value for i in result["__interrupt__"]] == ["q"]


def test_a_resume_on_a_thread_that_finished_says_how_to_start_again():
    app = parallel("a")
    app.invoke({"log": []}, config())
    app.invoke(Command(resume=1), config())
    with pytest.raises(EmptyInputError, match=r"is not paused.*invoke\(input, config\)"):
        app.invoke(Command(resume=2), config())


def test_each_paused_node_streams_its_interrupts_in_a_chunk_of_its_own():
    app = parallel("a", "b")
    chunks = list(app.stream({"log": []}, config(), stream_mode="updates"))
    assert sorted(tuple(i.value for i in chunk["__interrupt__"]) for chunk in chunks) == [("a",), ("b",)]


def test_a_result_saved_with_a_pause_streams_as_cached_when_the_step_completes():
    graph = StateGraph(State).add_node("ask", asking("q")).add_node("quick", lambda s: {"log": ["quick"]})
    app = graph.add_edge(START, "ask").add_edge(START, "quick").compile(checkpointer=InMemorySaver())
    app.invoke({"log": []}, config())
    chunks = list(app.stream(Command(resume="x"), config(), stream_mode="updates"))
    assert {"quick": {"log": ["quick"]}, "__metadata__": {"cached": True}} in chunks
    assert {"ask": {"log": ["q=x"]}} in chunks


class Decision(BaseModel):
    approved: bool


def test_an_invalid_answer_does_not_cancel_an_answered_sibling_in_an_async_run():
    sent = []

    async def send(state: State) -> State:
        interrupt("send?", response_schema=Decision)
        sent.append("email")
        await asyncio.sleep(0.01)  # still running when its sibling's answer is refused
        return {"log": ["sent"]}

    async def check(state: State) -> State:
        interrupt("check?", response_schema=Decision)
        return {"log": ["checked"]}

    app = StateGraph(State).add_node("send", send).add_node("check", check) \
        .add_edge(START, "send").add_edge(START, "check").compile(checkpointer=InMemorySaver())

    async def scenario():
        await app.ainvoke({"log": []}, config())
        ids = {i.value: i.id for i in (await app.aget_state(config())).interrupts}
        with pytest.raises(ValueError, match="approved"):
            await app.ainvoke(Command(resume={ids["send?"]: {"approved": True}, ids["check?"]: {"approved": "nope"}}),
                              config())
        assert [i.value for i in (await app.aget_state(config())).interrupts] == ["check?"]
        return await app.ainvoke(Command(resume={ids["check?"]: {"approved": True}}), config())

    result = asyncio.run(scenario())
    assert sorted(result["log"]) == ["checked", "sent"] and sent == ["email"]


def _answer_in_rounds(lib, questions: list[str], rounds: list[list[int]]):
    """Pause len(questions) parallel nodes, answer them by id in ``rounds`` (indexes into
    the still-pending ones); returns each round's pending questions and the final log."""
    app = parallel(*questions, lib=lib)
    cfg = config()
    app.invoke({"log": []}, cfg)
    seen = []
    for picks in rounds:
        ids = {i.value: i.id for i in app.get_state(cfg).interrupts}
        if not ids:
            break
        waiting = sorted(ids)
        chosen = sorted({waiting[p % len(waiting)] for p in picks}) or waiting[:1]
        seen.append(waiting)
        app.invoke(lib.Command(resume={ids[q]: f"r{len(seen)}" for q in chosen}), cfg)
    return seen, sorted(app.get_state(cfg).values["log"]), app.get_state(cfg).next


@settings(deadline=None, max_examples=20)
@given(st.integers(1, 3), st.lists(st.lists(st.integers(0, 5), max_size=3), min_size=1, max_size=4))
def test_answering_parallel_interrupts_by_id_in_rounds_ends_as_langgraphs(count, rounds):
    questions = ["a", "b", "c"][:count]
    assert _answer_in_rounds(OURS, questions, rounds) == _answer_in_rounds(LANGGRAPH, questions, rounds)
