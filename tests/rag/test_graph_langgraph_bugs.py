"""Specs for bugs LangGraph's own tests found in rag.graph (issue 37, item 1): each test
states the behaviour LangGraph has and rag.graph now shares."""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Sequence
from typing import Annotated, TypedDict

import pytest

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


def _three_parallel_two_pause() -> object:
    def a(state: Items) -> dict:
        return {"items": ["a:" + interrupt("qa")]}

    def b(state: Items) -> dict:
        return {"items": ["b:" + interrupt("qb")]}

    graph = StateGraph(Items)
    graph.add_node("a", a)
    graph.add_node("b", b)
    graph.add_node("c", lambda state: {"items": ["c"]})
    for name in ("a", "b", "c"):
        graph.add_edge(START, name)
    return graph.compile(checkpointer=InMemorySaver())


def test_a_paused_step_returns_the_updates_of_the_nodes_that_finished_in_it():
    app = _three_parallel_two_pause()
    config = {"configurable": {"thread_id": "t"}}
    out = app.invoke({"items": []}, config)
    assert out["items"] == ["c"]
    assert app.get_state(config).values == {"items": ["c"]}


def test_after_answering_one_of_two_interrupts_next_lists_only_the_node_still_paused():
    app = _three_parallel_two_pause()
    config = {"configurable": {"thread_id": "t"}}
    first = app.invoke({"items": []}, config)["__interrupt__"]
    answer_a = next(i for i in first if i.value == "qa")
    out = app.invoke(Command(resume={answer_a.id: "A"}), config)
    assert out["items"] == ["a:A", "c"]
    assert app.get_state(config).next == ("b",)
    answer_b = out["__interrupt__"][0]
    assert app.invoke(Command(resume={answer_b.id: "B"}), config) == {"items": ["a:A", "b:B", "c"]}


def test_update_state_while_paused_before_a_join_target_keeps_that_node_due():
    graph = StateGraph(Items)
    for name in ("x", "y", "j"):
        graph.add_node(name, lambda state, name=name: {"items": [name]})
    graph.add_edge(START, "x")
    graph.add_edge(START, "y")
    graph.add_edge(["x", "y"], "j")
    app = graph.compile(checkpointer=InMemorySaver(), interrupt_before=["j"])
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"items": []}, config)
    app.update_state(config, {"items": ["edited"]}, as_node="y")
    assert app.get_state(config).next == ("j",)
    assert app.invoke(None, config) == {"items": ["x", "y", "edited", "j"]}


class Route(TypedDict):
    items: Annotated[list, operator.add]


def _routed_by(path: object) -> object:
    graph = StateGraph(Route)
    graph.add_node("start", lambda state: {"items": ["start"]})
    graph.add_node("left", lambda state: {"items": ["left"]})
    graph.add_node("right", lambda state: {"items": ["right"]})
    graph.add_edge(START, "start")
    graph.add_conditional_edges("start", path, ["left", "right"])
    return graph.compile()


async def _go_right(state: Route) -> str:
    return "right"


def test_an_async_conditional_edge_function_is_awaited_in_async_runs():
    out = asyncio.run(_routed_by(_go_right).ainvoke({"items": []}))
    assert out == {"items": ["start", "right"]}


def test_an_async_conditional_edge_function_is_run_to_its_end_in_sync_runs():
    assert _routed_by(_go_right).invoke({"items": []}) == {"items": ["start", "right"]}


class AsyncCallable:
    async def __call__(self, state: Route) -> dict:
        await asyncio.sleep(0)
        return {"items": ["called"]}


def test_an_object_with_an_async_call_is_awaited_as_a_node():
    graph = StateGraph(Route)
    graph.add_node("n", AsyncCallable())
    graph.add_edge(START, "n")
    app = graph.compile()
    assert asyncio.run(app.ainvoke({"items": []})) == {"items": ["called"]}
    assert app.invoke({"items": []}) == {"items": ["called"]}


def test_in_async_runs_a_node_raising_cancels_its_running_siblings():
    finished: list[str] = []
    started = asyncio.Event()

    async def slow(state: Route) -> dict:
        started.set()
        await asyncio.sleep(30)  # cancelled long before: the test never waits for it
        finished.append("slow")
        return {"items": ["slow"]}

    async def failing(state: Route) -> dict:
        await started.wait()
        raise ValueError("boom")

    graph = StateGraph(Route)
    graph.add_node("slow", slow)
    graph.add_node("failing", failing)
    graph.add_edge(START, "slow")
    graph.add_edge(START, "failing")
    app = graph.compile()

    async def run() -> None:
        with pytest.raises(ValueError, match="boom"):
            await app.ainvoke({"items": []})

    asyncio.run(run())
    assert finished == []


def test_one_resume_value_for_several_pending_interrupts_is_refused_as_langgraph_refuses_it():
    app = _three_parallel_two_pause()
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"items": []}, config)
    with pytest.raises(RuntimeError, match="multiple pending interrupts"):
        app.invoke(Command(resume="ambiguous"), config)
    with pytest.raises(ValueError, match="interrupt_id"):  # the toolkit's tree: a ValidationError too
        app.invoke(Command(resume="ambiguous"), config)


def test_compiling_with_something_that_is_not_a_saver_is_a_type_error_naming_it():
    graph = StateGraph(Items)
    graph.add_node("n", lambda state: None)
    graph.add_edge(START, "n")
    with pytest.raises(TypeError, match="Invalid checkpointer provided.*got object"):
        graph.compile(checkpointer=object())


def test_add_sequence_of_no_nodes_is_refused():
    with pytest.raises(ValueError, match="at least one node"):
        StateGraph(Items).add_sequence([])


def test_removing_an_unknown_message_says_so_in_langgraphs_words():
    with pytest.raises(ValueError, match="Attempting to delete a message with an ID that doesn't exist"):
        add_messages([HumanMessage("a", id="1")], [RemoveMessage(id="2")])


def test_allowlisted_configurable_keys_reach_the_messages_stream_metadata_and_secrets_do_not():
    from rag.graph import MessagesState

    graph = StateGraph(MessagesState)
    graph.add_node("n", lambda state: {"messages": [AIMessage("hi")]})
    graph.add_edge(START, "n")
    config = {"configurable": {"thread_id": "th", "run_id": "r", "assistant_id": "a", "api_key": "secret"}}
    [(_, metadata)] = list(graph.compile().stream({"messages": []}, config, stream_mode="messages"))
    assert (metadata["thread_id"], metadata["run_id"], metadata["assistant_id"]) == ("th", "r", "a")
    assert "api_key" not in metadata


def _a_then_b() -> object:
    graph = StateGraph(Items)
    graph.add_node("a", lambda state: {"items": ["a"]})
    graph.add_node("b", lambda state: {"items": ["b"]})
    graph.add_edge(START, "a")
    graph.add_edge("a", "b")
    return graph.compile(checkpointer=InMemorySaver())


def test_bulk_update_state_saves_one_checkpoint_per_superstep():
    from rag.graph.types import StateUpdate

    app = _a_then_b()
    config = {"configurable": {"thread_id": "t"}}
    app.bulk_update_state(config, [[StateUpdate({"items": ["x"]}, "a")],
                                   [StateUpdate({"items": ["y"]}, "a"), StateUpdate({"items": ["z"]}, "b")]])
    assert app.get_state(config).values == {"items": ["x", "y", "z"]}
    assert len(list(app.checkpointer.list(config))) == 2


def test_bulk_update_state_refuses_no_supersteps_and_copy_mixed_with_other_updates():
    from rag.graph.errors import InvalidUpdateError
    from rag.graph.types import StateUpdate

    app = _a_then_b()
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(ValueError, match="No supersteps provided"):
        app.bulk_update_state(config, [])
    with pytest.raises(ValueError, match="No updates provided"):
        app.bulk_update_state(config, [[], []])
    with pytest.raises(InvalidUpdateError, match="only update of its superstep"):
        app.bulk_update_state(config, [[StateUpdate(None, "__end__"), StateUpdate(None, "__copy__")]])


def test_update_state_as_copy_saves_a_sibling_fork_with_the_same_state_and_next():
    app = _a_then_b()
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"items": []}, config)
    before_b = next(s for s in app.get_state_history(config) if s.next == ("b",))
    copy = app.get_state(app.update_state(before_b.config, None, as_node="__copy__"))
    assert (copy.values, copy.next, copy.metadata["source"]) == (before_b.values, ("b",), "fork")
    assert copy.parent_config == before_b.parent_config
    assert copy.config["configurable"]["checkpoint_id"] != before_b.config["configurable"]["checkpoint_id"]


class Answer(TypedDict):
    answer: object


def _asks_with_schema(schema: object) -> object:
    def node(state: Answer) -> dict:
        decision = interrupt("approve?", response_schema=schema)
        return {"answer": decision.model_dump() if hasattr(decision, "model_dump") else decision}

    graph = StateGraph(Answer)
    graph.add_node("node", node)
    graph.add_edge(START, "node")
    return graph.compile(checkpointer=InMemorySaver())


def _decision_model() -> type:
    from pydantic import BaseModel

    class Decision(BaseModel):
        approved: bool

    return Decision


def test_an_interrupt_shows_its_response_schema_as_json_schema_and_validates_the_answer():
    app = _asks_with_schema(_decision_model())
    config = {"configurable": {"thread_id": "t"}}
    [pause] = app.invoke({"answer": None}, config)["__interrupt__"]
    assert pause.response_schema["properties"]["approved"]["type"] == "boolean"
    assert app.get_state(config).interrupts[0].response_schema == pause.response_schema  # saved and loaded
    assert app.invoke(Command(resume={"approved": "yes"}), config) == {"answer": {"approved": True}}


def test_an_answer_that_does_not_fit_the_response_schema_raises_and_the_pause_can_be_answered_again():
    from pydantic import ValidationError

    from rag.graph.errors import is_invalid_resume

    app = _asks_with_schema(_decision_model())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"answer": None}, config)
    with pytest.raises(ValidationError, match="approved") as raised:
        app.invoke(Command(resume={"approved": "not a bool"}), config)
    assert is_invalid_resume(raised.value)
    assert not is_invalid_resume(ValueError("other"))
    assert app.invoke(Command(resume={"approved": False}), config) == {"answer": {"approved": False}}


def test_a_json_schema_dict_response_schema_is_shown_as_is_and_not_checked():
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    app = _asks_with_schema(schema)
    config = {"configurable": {"thread_id": "t"}}
    [pause] = app.invoke({"answer": None}, config)["__interrupt__"]
    assert pause.response_schema == schema
    assert app.invoke(Command(resume="anything"), config) == {"answer": "anything"}


def test_get_state_by_checkpoint_id_shows_a_paused_step_as_saved_without_its_finished_nodes_writes():
    app = _three_parallel_two_pause()
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"items": []}, config)
    newest = app.get_state(config)
    assert (newest.values, newest.next) == ({"items": ["c"]}, ("a", "b"))
    as_saved = app.get_state(newest.config)
    assert (as_saved.values, as_saved.next) == ({"items": []}, ("a", "b", "c"))
    assert [s.next for s in app.get_state_history(config)][0] == ("a", "b", "c")


def _flaky(failures: int, error: Exception, calls: list[int]) -> object:
    def node(state: Items) -> dict:
        calls.append(1)
        if len(calls) <= failures:
            raise error
        return {"items": ["ok"]}

    return node


def _retrying_graph(node: object, policy: object) -> object:
    graph = StateGraph(Items)
    graph.add_node("n", node, retry_policy=policy)
    graph.add_edge(START, "n")
    return graph.compile()


def test_a_node_with_a_retry_policy_runs_again_after_a_transient_error():
    from rag.graph.types import RetryPolicy

    calls: list[int] = []
    app = _retrying_graph(_flaky(2, ConnectionError("down"), calls), RetryPolicy(initial_interval=0, jitter=False))
    assert app.invoke({"items": []}) == {"items": ["ok"]}
    assert len(calls) == 3
    assert asyncio.run(_retrying_graph(_flaky(1, ConnectionError("down"), []),
                                       RetryPolicy(initial_interval=0)).ainvoke({"items": []})) == {"items": ["ok"]}


def test_a_retry_policy_gives_up_after_max_attempts_and_never_retries_a_programming_error():
    from rag.graph.types import RetryPolicy

    calls: list[int] = []
    app = _retrying_graph(_flaky(5, ConnectionError("down"), calls), RetryPolicy(max_attempts=2, initial_interval=0))
    with pytest.raises(ConnectionError):
        app.invoke({"items": []})
    assert len(calls) == 2
    calls.clear()
    app = _retrying_graph(_flaky(5, ValueError("bad"), calls), RetryPolicy(initial_interval=0))
    with pytest.raises(ValueError):
        app.invoke({"items": []})
    assert len(calls) == 1


def test_a_retry_policy_with_a_negative_interval_is_refused_naming_the_value():
    from rag.graph.types import RetryPolicy

    with pytest.raises(ValueError, match="initial_interval.*-1"):
        RetryPolicy(initial_interval=-1)


def test_a_node_that_raised_shows_its_error_in_get_state_tasks_and_runs_again_on_resume():
    from rag.graph.checkpoint.sqlite import SqliteSaver

    calls: list[int] = []
    graph = StateGraph(Items)
    graph.add_node("fine", lambda state: {"items": ["fine"]})
    graph.add_node("flaky", _flaky(1, ConnectionError("I'm not good"), calls))
    graph.add_edge(START, "fine")
    graph.add_edge(START, "flaky")
    for saver in (InMemorySaver(), SqliteSaver.from_conn_string(":memory:")):
        calls.clear()
        app = graph.compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "t"}}
        with pytest.raises(ConnectionError):
            app.invoke({"items": []}, config)
        tasks = {task.name: task for task in app.get_state(config).tasks}
        assert tasks["flaky"].error == 'ConnectionError("I\'m not good")'
        assert tasks["fine"].error is None and tasks["fine"].result == {"items": ["fine"]}
        assert app.invoke(None, config) == {"items": ["fine", "ok"]}
