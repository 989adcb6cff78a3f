"""rag.graph.runtime and keyword injection: what a node (or a conditional edge) receives
besides the state, as LangGraph 1.2 gives it (issue 38, item 3)."""

from __future__ import annotations

import asyncio
import dataclasses
import doctest
import warnings
from dataclasses import dataclass
from typing import Optional, TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import rag.graph.runtime
from rag.errors import InvalidTypeError, UsageError
from rag.graph import END, START, StateGraph
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.errors import GraphDrained
from rag.graph.runtime import ExecutionInfo, RunControl, Runtime, get_runtime
from rag.graph.store.base import BaseStore
from rag.graph.store.memory import InMemoryStore
from rag.graph.types import StreamWriter


@dataclass
class Ctx:
    user: str
    tone: str = "plain"


class UserModel(BaseModel):
    user: str


class State(TypedDict, total=False):
    out: str


def _one_node(node, **builder) -> StateGraph:
    return StateGraph(State, **builder).add_node("node", node).add_edge(START, "node")


# -- context --------------------------------------------------------------------------------
def test_a_node_declaring_runtime_reads_the_context_passed_to_invoke():
    def node(state: State, runtime: Runtime[Ctx]) -> dict:
        return {"out": f"hello {runtime.context.user}"}

    app = _one_node(node, context_schema=Ctx).compile()
    assert app.invoke({}, context=Ctx(user="ada")) == {"out": "hello ada"}


def test_a_dict_context_becomes_the_dataclass_context_schema():
    seen = []

    def node(state: State, runtime: Runtime[Ctx]) -> dict:
        seen.append(runtime.context)
        return {}

    _one_node(node, context_schema=Ctx).compile().invoke({}, context={"user": "ada"})
    assert seen == [Ctx(user="ada", tone="plain")]


def test_a_dict_context_becomes_the_pydantic_context_schema():
    seen = []

    def node(state: State, runtime: Runtime[UserModel]) -> dict:
        seen.append(runtime.context)
        return {}

    _one_node(node, context_schema=UserModel).compile().invoke({}, context={"user": "bo"})
    assert seen == [UserModel(user="bo")]


def test_a_dict_context_that_does_not_fit_the_schema_names_the_schema():
    app = _one_node(lambda state: {}, context_schema=Ctx).compile()
    with pytest.raises(TypeError, match="does not fit context_schema Ctx"):
        app.invoke({}, context={"nobody": 1})


def test_without_a_context_the_runtime_context_is_none():
    seen = []

    def node(state: State, runtime: Runtime) -> dict:
        seen.append(runtime.context)
        return {}

    _one_node(node).compile().invoke({})
    assert seen == [None]


def test_stream_and_astream_take_the_context_too():
    def node(state: State, runtime: Runtime[Ctx]) -> dict:
        return {"out": runtime.context.user}

    app = _one_node(node, context_schema=Ctx).compile()

    async def collect() -> list:
        return [chunk async for chunk in app.astream({}, context=Ctx("cy"))]

    assert list(app.stream({}, context=Ctx("bo"))) == [{"node": {"out": "bo"}}]
    assert asyncio.run(collect()) == [{"node": {"out": "cy"}}]


def test_an_async_node_gets_the_runtime():
    async def node(state: State, runtime: Runtime[Ctx]) -> dict:
        await asyncio.sleep(0)
        return {"out": runtime.context.user}

    app = _one_node(node, context_schema=Ctx).compile()
    assert asyncio.run(app.ainvoke({}, context=Ctx("dee"))) == {"out": "dee"}


def test_a_conditional_edge_function_gets_the_runtime():
    def route(state: State, runtime: Runtime[Ctx]) -> str:
        return "formal" if runtime.context.tone == "formal" else END

    app = (StateGraph(State, context_schema=Ctx)
           .add_node("start", lambda state: {"out": "hi"})
           .add_node("formal", lambda state: {"out": "good day"})
           .add_edge(START, "start").add_conditional_edges("start", route, ["formal", END]).compile())
    assert app.invoke({}, context=Ctx("a", tone="formal")) == {"out": "good day"}
    assert app.invoke({}, context=Ctx("a")) == {"out": "hi"}


def test_a_conditional_edge_function_gets_the_config_when_it_declares_it():
    def route(state: State, config) -> str:
        return "b" if config["configurable"]["go"] else END

    app = (StateGraph(State).add_node("a", lambda s: {"out": "a"}).add_node("b", lambda s: {"out": "b"})
           .add_edge(START, "a").add_conditional_edges("a", route, ["b", END]).compile())
    assert app.invoke({}, {"configurable": {"go": True}}) == {"out": "b"}


def test_a_subgraph_run_inside_a_node_inherits_the_parents_context():
    def inner(state: State, runtime: Runtime[Ctx]) -> dict:
        return {"out": f"inner sees {runtime.context.user}"}

    child = _one_node(inner, context_schema=Ctx).compile()
    parent = StateGraph(State, context_schema=Ctx).add_node("child", child).add_edge(START, "child").compile()
    assert parent.invoke({}, context=Ctx("eve")) == {"out": "inner sees eve"}


# -- get_runtime ------------------------------------------------------------------------------
def test_get_runtime_inside_a_node_is_the_runtime_the_node_was_given():
    same = []

    def node(state: State, runtime: Runtime[Ctx]) -> dict:
        same.append(get_runtime(Ctx) is runtime)
        return {}

    _one_node(node, context_schema=Ctx).compile().invoke({}, context=Ctx("f"))
    assert same == [True]


def test_get_runtime_reads_the_context_in_a_node_that_declares_nothing():
    def node(state: State) -> dict:
        return {"out": get_runtime().context.user}

    assert _one_node(node).compile().invoke({}, context=Ctx("gus")) == {"out": "gus"}


def test_get_runtime_outside_a_running_graph_is_refused():
    with pytest.raises(UsageError, match="get_runtime"):
        get_runtime()


def test_the_runtime_says_which_task_and_thread_run():
    infos = []

    def node(state: State, runtime: Runtime) -> dict:
        infos.append(runtime.execution_info)
        return {}

    app = _one_node(node).compile(checkpointer=InMemorySaver())
    app.invoke({}, {"configurable": {"thread_id": "t-1"}})
    (info,) = infos
    assert isinstance(info, ExecutionInfo)
    assert info.thread_id == "t-1" and info.task_id.endswith(":node") and info.checkpoint_id
    assert info.task_id.startswith(info.checkpoint_id)


# -- writer and store ---------------------------------------------------------------------------
def test_a_writer_parameter_sends_to_the_custom_stream():
    def node(state: State, writer: StreamWriter) -> dict:
        writer({"progress": 50})
        return {"out": "done"}

    chunks = list(_one_node(node).compile().stream({}, stream_mode=["custom", "updates"]))
    assert chunks == [("custom", {"progress": 50}), ("updates", {"node": {"out": "done"}})]


def test_an_unannotated_writer_parameter_is_injected_and_is_a_no_op_without_the_custom_stream():
    def node(state, writer):
        writer("dropped")
        return {"out": "ok"}

    assert _one_node(node).compile().invoke({}) == {"out": "ok"}


def test_a_store_parameter_is_the_compiled_graphs_store():
    store = InMemoryStore()
    store.put(("users",), "ada", {"name": "Ada"})

    def node(state: State, store: BaseStore) -> dict:
        return {"out": store.get(("users",), "ada").value["name"]}

    assert _one_node(node).compile(store=store).invoke({}) == {"out": "Ada"}


def test_an_optional_store_parameter_is_none_when_the_graph_has_no_store():
    seen = []

    def node(state: State, store: Optional[BaseStore]) -> dict:
        seen.append(store)
        return {}

    _one_node(node).compile().invoke({})
    assert seen == [None]


def test_a_parameter_named_store_with_another_annotation_is_left_alone():
    def node(state: State, store: int = 7) -> dict:
        return {"out": str(store)}

    assert _one_node(node).compile(store=InMemoryStore()).invoke({}) == {"out": "7"}


# -- the builder ------------------------------------------------------------------------------
def test_config_schema_is_a_deprecated_name_for_context_schema():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = StateGraph(State, config_schema=Ctx)
    assert graph.context_schema is Ctx
    assert any(issubclass(w.category, DeprecationWarning) and "context_schema" in str(w.message) for w in caught)


def test_the_compiled_graph_describes_its_context_schema():
    app = _one_node(lambda s: {}, context_schema=Ctx).compile()
    schema = app.get_context_jsonschema()
    assert schema["title"] == "Ctx" and schema["required"] == ["user"]
    assert _one_node(lambda s: {}).compile().get_context_jsonschema() is None


# -- the Runtime value ---------------------------------------------------------------------------
def test_a_runtime_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Runtime(context=1).context = 2  # type: ignore[misc]


def test_a_subscripted_runtime_can_be_built():
    # LangGraph's slotted Runtime raises TypeError here on Python 3.11.
    assert Runtime[Ctx](context=Ctx("h")).context == Ctx("h")


def test_override_replaces_only_the_named_fields():
    writer = print
    runtime = Runtime(context="c", stream_writer=writer).override(previous=3)
    assert (runtime.context, runtime.stream_writer, runtime.previous) == ("c", writer, 3)
    with pytest.raises(TypeError):
        runtime.override(nonsense=1)


_maybe = st.one_of(st.none(), st.integers(min_value=1, max_value=5))


@settings(deadline=None, max_examples=60)
@given(first=st.tuples(_maybe, _maybe, _maybe), second=st.tuples(_maybe, _maybe, _maybe))
def test_merge_takes_what_the_other_runtime_sets_and_keeps_the_rest(first, second):
    a = Runtime(context=first[0], store=first[1], previous=first[2])
    b = Runtime(context=second[0], store=second[1], previous=second[2])
    merged = a.merge(b)
    assert merged.context == (b.context or a.context)
    assert merged.store == (b.store or a.store)
    assert merged.previous == (a.previous if b.previous is None else b.previous)


def test_patch_execution_info_needs_an_execution_info():
    with pytest.raises(RuntimeError, match="execution_info"):
        Runtime().patch_execution_info(node_attempt=2)
    info = ExecutionInfo(checkpoint_id="c", checkpoint_ns="", task_id="t")
    assert Runtime(execution_info=info).patch_execution_info(node_attempt=2).execution_info.node_attempt == 2


def test_the_runtime_module_examples_run():
    result = doctest.testmod(rag.graph.runtime)
    assert result.failed == 0 and result.attempted > 0


# -- RunControl: stopping between steps ------------------------------------------------------
def _two_steps(log: list) -> StateGraph:
    def first(state: State, runtime: Runtime) -> dict:
        log.append("first")
        runtime.control.request_drain("deploy")
        return {"out": "first"}

    def second(state: State) -> dict:
        log.append("second")
        return {"out": "second"}

    return (StateGraph(State).add_node("first", first).add_node("second", second)
            .add_edge(START, "first").add_edge("first", "second"))


def test_a_drain_stops_the_run_after_the_step_under_way_and_it_resumes_from_there():
    log: list = []
    app = _two_steps(log).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "drained"}}
    with pytest.raises(GraphDrained, match="deploy") as caught:
        app.invoke({}, config, control=RunControl())
    assert caught.value.reason == "deploy" and log == ["first"]
    assert app.get_state(config).next == ("second",)
    assert app.invoke(None, config) == {"out": "second"} and log == ["first", "second"]


def test_a_drain_requested_before_the_run_runs_no_node():
    log: list = []
    control = RunControl()
    control.request_drain()
    with pytest.raises(GraphDrained, match="shutdown"):
        _two_steps(log).compile().invoke({}, control=control)
    assert log == []


def test_a_node_sees_the_control_the_caller_passed():
    control, seen = RunControl(), []

    def node(state: State, runtime: Runtime) -> dict:
        seen.append(runtime.control)
        return {}

    _one_node(node).compile().invoke({}, control=control)
    assert seen == [control]


def test_a_control_that_is_not_a_run_control_is_refused():
    with pytest.raises(InvalidTypeError, match="RunControl, got str"):
        _one_node(lambda s: {}).compile().invoke({}, control="stop")


def test_a_retried_node_sees_which_attempt_it_is():
    from rag.graph.retry import RetryPolicy

    attempts: list = []

    def flaky(state: State, runtime: Runtime) -> dict:
        info = runtime.execution_info
        attempts.append((info.node_attempt, info.node_first_attempt_time, get_runtime().execution_info.node_attempt))
        if len(attempts) < 3:
            raise ConnectionError("try again")
        return {"out": "ok"}

    app = (StateGraph(State).add_node("flaky", flaky, retry_policy=RetryPolicy(initial_interval=0, jitter=False))
           .add_edge(START, "flaky").compile())
    assert app.invoke({}) == {"out": "ok"}
    assert [(n, same) for n, _, same in attempts] == [(1, 1), (2, 2), (3, 3)]
    assert len({first for _, first, _ in attempts}) == 1 and attempts[0][1] is not None
