"""Specs for bugs LangGraph's own tests found in rag.graph (issue 37, item 1): each test
states the behaviour LangGraph has and rag.graph now shares."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Annotated, TypedDict

from rag.graph import END, START, RemoveMessage, StateGraph, add_messages
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.checkpoint.sqlite import SqliteSaver
from rag.graph.types import Command, interrupt
from rag.messages import AIMessage, HumanMessage


class Items(TypedDict):
    items: Annotated[list, operator.add]


def _asks_twice() -> object:
    def ask(state: Items) -> dict:
        first = interrupt("first")
        second = interrupt("second")
        return {"items": [first, second]}

    graph = StateGraph(Items)
    graph.add_node("ask", ask)
    graph.add_edge(START, "ask")
    graph.add_edge("ask", END)
    return graph.compile(checkpointer=InMemorySaver())


def test_resume_with_update_applies_the_update_once_when_the_node_pauses_again():
    app = _asks_twice()
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"items": []}, config)
    app.invoke(Command(resume="A", update={"items": ["u"]}), config)
    assert app.invoke(Command(resume="B"), config) == {"items": ["u", "A", "B"]}


def test_resume_with_update_is_in_the_state_while_the_node_is_paused_again():
    app = _asks_twice()
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"items": []}, config)
    app.invoke(Command(resume="A", update={"items": ["u"]}), config)
    assert app.get_state(config).values == {"items": ["u"]}


def test_two_resumes_with_updates_apply_each_once_in_the_order_sent():
    def ask(state: Items) -> dict:
        return {"items": [interrupt("1"), interrupt("2"), interrupt("3")]}

    graph = StateGraph(Items)
    graph.add_node("ask", ask)
    graph.add_edge(START, "ask")
    app = graph.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"items": []}, config)
    app.invoke(Command(resume="A", update={"items": ["u1"]}), config)
    app.invoke(Command(resume="B", update={"items": ["u2"]}), config)
    assert app.invoke(Command(resume="C"), config) == {"items": ["u1", "u2", "A", "B", "C"]}


def test_add_messages_keeps_a_message_re_added_after_its_remove_message():
    history = add_messages([HumanMessage("a", id="1"), AIMessage("b", id="2")],
                           [RemoveMessage(id="1"), HumanMessage("again", id="1")])
    assert [(m.id, m.content) for m in history] == [("1", "again"), ("2", "b")]


def test_add_messages_removes_a_message_re_added_then_removed_again():
    history = add_messages([HumanMessage("a", id="1")],
                           [RemoveMessage(id="1"), HumanMessage("again", id="1"), RemoveMessage(id="1")])
    assert history == []


class SequenceMessages(TypedDict):
    messages: Annotated[Sequence, add_messages]
    other: str


def test_a_reducer_key_typed_as_an_abstract_sequence_starts_empty_so_the_first_write_is_reduced():
    graph = StateGraph(SequenceMessages)
    graph.add_node("n", lambda state: {"other": "x"})
    graph.add_edge(START, "n")
    out = graph.compile().invoke({"messages": "hi"})
    assert [(type(m).__name__, m.content) for m in out["messages"]] == [("HumanMessage", "hi")]


def test_sqlite_saver_list_with_limit_zero_lists_no_checkpoint():
    graph = StateGraph(Items)
    graph.add_node("n", lambda state: {"items": [1]})
    graph.add_edge(START, "n")
    with SqliteSaver.from_conn_string(":memory:") as saver:
        config = {"configurable": {"thread_id": "t"}}
        graph.compile(checkpointer=saver).invoke({"items": []}, config)
        assert list(saver.list(config, limit=0)) == []
        assert len(list(saver.list(config, limit=1))) == 1
