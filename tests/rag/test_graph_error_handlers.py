"""Node error handlers as LangGraph 1.2's (issue 37, item 4): ``add_node(name, fn,
error_handler=handler)`` runs ``handler`` in the failed node's place."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest
from hypothesis import given, settings, strategies as st

from rag.graph import END, START, StateGraph
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.errors import NodeError
from rag.graph.retry import RetryPolicy
from rag.graph.types import Command, interrupt
from rag.runnables import RunnableLambda

from tests.rag.graph_peers import LANGGRAPH, OURS


class State(TypedDict):
    log: Annotated[list, operator.add]


def failing(state: State) -> State:
    raise ValueError("boom")


def test_the_handlers_update_takes_the_failed_nodes_place():
    graph = StateGraph(State).add_node("a", failing, error_handler=lambda s: {"log": ["handled"]})
    assert graph.add_edge(START, "a").compile().invoke({"log": []}) == {"log": ["handled"]}


def test_a_handler_declaring_error_NodeError_is_told_the_node_and_its_exception():
    seen = []

    def handler(state: State, error: NodeError) -> State:
        seen.append(error)
        return {"log": [f"{error.node}: {error.error}"]}

    app = StateGraph(State).add_node("a", failing, error_handler=handler).add_edge(START, "a").compile()
    assert app.invoke({"log": []}) == {"log": ["a: boom"]}
    assert seen[0].node == "a" and isinstance(seen[0].error, ValueError)


def test_the_failed_nodes_own_edges_do_not_fire_after_its_handler():
    graph = StateGraph(State).add_node("a", failing, error_handler=lambda s: {"log": ["handled"]})
    graph.add_node("b", lambda s: {"log": ["b"]}).add_edge(START, "a").add_edge("a", "b")
    assert graph.compile().invoke({"log": []}) == {"log": ["handled"]}


def test_a_handler_routes_on_with_command_goto():
    graph = StateGraph(State).add_node("a", failing, error_handler=lambda s: Command(update={"log": ["h"]}, goto="b"))
    graph.add_node("b", lambda s: {"log": ["b"]}).add_edge(START, "a")
    assert graph.compile().invoke({"log": []}) == {"log": ["h", "b"]}


def test_the_handlers_update_is_streamed_under_the_handlers_name():
    app = StateGraph(State).add_node("a", failing, error_handler=lambda s: {"log": ["h"]}).add_edge(START, "a").compile()
    assert list(app.stream({"log": []}, stream_mode="updates")) == [{"__error_handler__a": {"log": ["h"]}}]


def test_the_handler_runs_once_the_retry_policy_gives_up():
    attempts = []

    def flaky(state: State) -> State:
        attempts.append(1)
        raise ValueError("again")

    graph = StateGraph(State).add_node(
        "a", flaky, retry_policy=RetryPolicy(max_attempts=3, initial_interval=0, jitter=False, retry_on=ValueError),
        error_handler=lambda s: {"log": [f"handled after {len(attempts)}"]})
    assert graph.add_edge(START, "a").compile().invoke({"log": []}) == {"log": ["handled after 3"]}


def test_an_interrupt_is_a_pause_not_a_failure_for_the_handler():
    def asks(state: State) -> State:
        return {"log": [interrupt("question?")]}

    app = StateGraph(State).add_node("a", asks, error_handler=lambda s: {"log": ["handled"]}).add_edge(START, "a") \
        .compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    assert [i.value for i in app.invoke({"log": []}, config)["__interrupt__"]] == ["question?"]
    assert app.invoke(Command(resume="answer"), config) == {"log": ["answer"]}


def test_an_error_raised_by_the_handler_fails_the_run():
    def broken(state: State, error: NodeError) -> State:
        raise KeyError(f"handler of {error.node}")

    app = StateGraph(State).add_node("a", failing, error_handler=broken).add_edge(START, "a").compile()
    with pytest.raises(KeyError, match="handler of a"):
        app.invoke({"log": []})


def test_only_the_failed_node_is_handled_its_siblings_updates_stay():
    graph = StateGraph(State).add_node("a", failing, error_handler=lambda s: {"log": ["handled"]})
    graph.add_node("b", lambda s: {"log": ["b"]}).add_edge(START, "a").add_edge(START, "b")
    assert sorted(graph.compile().invoke({"log": []})["log"]) == ["b", "handled"]


def test_an_async_handler_is_awaited_in_an_async_run():
    async def afailing(state: State) -> State:
        raise ValueError("boom")

    async def handler(state: State, error: NodeError) -> State:
        await asyncio.sleep(0)
        return {"log": [f"async {error.node}"]}

    app = StateGraph(State).add_node("a", afailing, error_handler=handler).add_edge(START, "a").compile()
    assert asyncio.run(app.ainvoke({"log": []})) == {"log": ["async a"]}


def test_a_runnable_can_be_the_handler():
    handler = RunnableLambda(lambda state: {"log": ["runnable"]})
    app = StateGraph(State).add_node("a", failing, error_handler=handler).add_edge(START, "a").compile()
    assert app.invoke({"log": []}) == {"log": ["runnable"]}


def test_a_parameter_named_error_without_the_NodeError_annotation_is_not_injected():
    def node(state: State, error: str = "own default") -> State:
        return {"log": [error]}

    app = StateGraph(State).add_node("a", node).add_edge(START, "a").compile()
    assert app.invoke({"log": []}) == {"log": ["own default"]}


def test_an_error_handler_that_is_not_callable_is_refused_naming_the_node_and_value():
    with pytest.raises(ValueError, match=r"error_handler of node 'a' must be a function or a Runnable.*got int 5"):
        StateGraph(State).add_node("a", failing, error_handler=5)


def _run(lib, failures: list[bool], handled: list[bool]):
    """Nodes n0..nk run in parallel from START; those in ``failures`` raise, those in
    ``handled`` have a handler. Returns the final log (sorted) or the error's type."""
    graph = lib.StateGraph(State)
    for index, (fails, has_handler) in enumerate(zip(failures, handled)):
        name = f"n{index}"

        def node(state, name=name, fails=fails):
            if fails:
                raise ValueError(name)
            return {"log": [name]}

        handler = (lambda state, name=name: {"log": [f"handled {name}"]}) if has_handler else None
        graph.add_node(name, node, error_handler=handler)
        graph.add_edge(lib.START, name)
        graph.add_edge(name, "after") if index == 0 else None
    graph.add_node("after", lambda state: {"log": ["after"]})
    try:
        updates = list(graph.compile().stream({"log": []}, stream_mode="updates"))
    except ValueError:
        return "ValueError"
    return sorted((name, tuple(update["log"])) for chunk in updates for name, update in chunk.items())


@settings(deadline=None, max_examples=25)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=3))
def test_parallel_failures_with_and_without_handlers_stream_as_langgraphs(nodes):
    failures, handled = [f for f, _ in nodes], [h for _, h in nodes]
    assert _run(OURS, failures, handled) == _run(LANGGRAPH, failures, handled)


def test_the_modules_docstring_example_runs():
    import doctest

    import rag.graph._error_handlers as module

    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0


def test_a_handled_failure_saved_with_a_sibling_pause_stays_the_handlers_result_after_the_resume():
    def asks(state: State) -> State:
        return {"log": [interrupt("ok?")]}

    graph = StateGraph(State).add_node("a", failing, error_handler=lambda s: {"log": ["handled"]})
    graph.add_node("after_a", lambda s: {"log": ["after_a"]}).add_node("ask", asks)
    graph.add_edge(START, "a").add_edge(START, "ask").add_edge("a", "after_a")
    app = graph.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"log": []}, config)
    chunks = list(app.stream(Command(resume="yes"), config, stream_mode="updates"))
    assert {"__error_handler__a": {"log": ["handled"]}, "__metadata__": {"cached": True}} in chunks
    assert sorted(app.get_state(config).values["log"]) == ["handled", "yes"]  # a's edge to after_a did not fire
