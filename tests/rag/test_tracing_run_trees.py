"""Run trees as LangSmith defines them: trace ids, dotted order, parents, run types, tags,
metadata (a graph's thread_id), token usage, errors; @traceable on sync and async
functions and generators, nesting under whatever run is active."""

import asyncio
import re
import uuid
from typing import TypedDict

import pytest

from rag.callbacks import BaseTracer
from rag.graph import END, START, StateGraph
from rag.runnables import RunnableLambda
from rag.tracing import traceable, tracing_context

class Count(TypedDict):
    n: int


SEGMENT = re.compile(r"^\d{8}T\d{12}Z[0-9a-f-]{36}$")


class Kept(BaseTracer):
    """Keeps every finished run, and the roots."""

    def __init__(self):
        super().__init__()
        self.ended, self.roots = [], []

    def _on_run_end(self, run):
        self.ended.append(run)

    def _on_trace_end(self, run):
        self.roots.append(run)


def walk(run):
    yield run
    for child in run.children:
        yield from walk(child)


def test_every_run_of_a_trace_carries_the_top_runs_id_as_trace_id():
    tracer = Kept()
    chain = RunnableLambda(lambda x: x + 1, name="inc") | RunnableLambda(lambda x: x * 2, name="double")
    chain.invoke(1, {"callbacks": [tracer]})
    (root,) = tracer.roots
    assert {run.trace_id for run in walk(root)} == {root.id}
    assert [run.parent_run_id for run in root.children] == [root.id, root.id]


def test_dotted_order_is_langsmiths_start_time_and_id_per_ancestor_and_sorts_in_execution_order():
    tracer = Kept()
    chain = RunnableLambda(lambda x: x + 1, name="inc") | RunnableLambda(lambda x: x * 2, name="double")
    chain.invoke(1, {"callbacks": [tracer]})
    (root,) = tracer.roots
    runs = list(walk(root))
    for run in runs:
        segments = run.dotted_order.split(".")
        assert all(SEGMENT.match(segment) for segment in segments)
        assert segments[-1].endswith(str(run.id))
        assert segments[-1].startswith(run.start_time.strftime("%Y%m%dT%H%M%S%fZ"))
        assert len(segments) == run.depth + 1
    assert [run.name for run in sorted(runs, key=lambda r: r.dotted_order)] == ["RunnableSequence", "inc", "double"]


def test_a_graph_runs_thread_id_and_configurable_values_are_in_every_runs_metadata():
    graph = StateGraph(Count)
    graph.add_node("a", lambda state: {"n": state["n"] + 1})
    graph.add_edge(START, "a")
    graph.add_edge("a", END)
    tracer = Kept()
    graph.compile().invoke({"n": 1}, {"callbacks": [tracer], "configurable": {"thread_id": "t-7", "user": "ann",
                                                                             "__private": "x"},
                                      "metadata": {"release": "2"}, "tags": ["nightly"]})
    node = next(run for run in tracer.ended if run.name == "a")
    assert node.metadata["thread_id"] == "t-7" and node.metadata["user"] == "ann"
    assert node.metadata["release"] == "2"
    assert "__private" not in node.metadata
    assert "nightly" in node.tags


def test_a_failed_run_keeps_its_error_and_its_parent_fails_too():
    tracer = Kept()

    def boom(value):
        raise ValueError(f"cannot take {value}")

    chain = RunnableLambda(lambda x: x, name="ok") | RunnableLambda(boom, name="boom")
    with pytest.raises(ValueError):
        chain.invoke(3, {"callbacks": [tracer]})
    failed = {run.name: run.error for run in tracer.ended}
    assert failed["boom"] == "ValueError: cannot take 3"
    assert failed["RunnableSequence"] == "ValueError: cannot take 3"
    assert failed["ok"] is None


def test_a_traceable_function_nests_under_the_chain_step_that_calls_it():
    @traceable(run_type="retriever", tags=["lookup"], metadata={"source": "kb"})
    def lookup(query, k=2):
        return [query] * k

    tracer = Kept()
    RunnableLambda(lambda q: lookup(q), name="step").invoke("cats", {"callbacks": [tracer]})
    traced = next(run for run in tracer.ended if run.name == "lookup")
    step = next(run for run in tracer.ended if run.name == "step")
    assert traced.parent_run_id == step.id
    assert traced.run_type == "retriever"
    assert traced.inputs == {"query": "cats", "k": 2}
    assert traced.outputs == ["cats", "cats"]
    assert "lookup" in traced.tags and traced.metadata["source"] == "kb"


def test_a_traceable_model_functions_usage_metadata_is_its_token_usage():
    @traceable(run_type="llm")
    def model(prompt):
        return {"text": "hi", "usage_metadata": {"input_tokens": 7, "output_tokens": 2, "total_tokens": 9}}

    tracer = Kept()
    with tracing_context(callbacks=[tracer]):
        model("hello")
    assert tracer.ended[0].token_usage == {"input_tokens": 7, "output_tokens": 2, "total_tokens": 9}


def test_traceable_functions_nest_in_each_other_and_the_outer_one_is_the_trace():
    @traceable
    def inner(x):
        return x + 1

    @traceable(name="outer-run")
    def outer(x):
        return inner(x) * 2

    tracer = Kept()
    with tracing_context(callbacks=[tracer]):
        assert outer(1) == 4
    (root,) = tracer.roots
    assert root.name == "outer-run"
    assert [child.name for child in root.children] == ["inner"]
    assert root.children[0].trace_id == root.id


def test_an_async_traceable_function_is_traced_and_a_runnable_inside_nests_under_it():
    @traceable
    async def answer(question):
        return await RunnableLambda(lambda q: q.upper(), name="upper").ainvoke(question)

    tracer = Kept()

    async def main():
        with tracing_context(callbacks=[tracer]):
            return await answer("why")

    assert asyncio.run(main()) == "WHY"
    (root,) = tracer.roots
    assert root.name == "answer" and [child.name for child in root.children] == ["upper"]


def test_a_traceable_generator_ends_when_exhausted_with_what_it_yielded():
    @traceable
    def tokens(n):
        for i in range(n):
            yield f"t{i} "

    tracer = Kept()
    with tracing_context(callbacks=[tracer]):
        assert list(tokens(3)) == ["t0 ", "t1 ", "t2 "]
    assert tracer.roots[0].outputs == "t0 t1 t2 "


def test_a_traceable_async_generator_ends_with_what_it_yielded_and_its_error_is_kept():
    @traceable
    async def items(n):
        for i in range(n):
            yield i
        raise RuntimeError("stream broke")

    tracer = Kept()

    async def main():
        seen = []
        with tracing_context(callbacks=[tracer]):
            with pytest.raises(RuntimeError):
                async for item in items(2):
                    seen.append(item)
        return seen

    assert asyncio.run(main()) == [0, 1]
    assert tracer.roots[0].error == "RuntimeError: stream broke"


def test_a_traceable_function_with_nobody_listening_only_runs():
    @traceable
    def plain(x):
        return x * 3

    assert plain(2) == 6


def test_an_unknown_run_type_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="run_type must be one of chain, llm"):
        traceable(run_type="database")


def test_a_run_id_given_in_the_config_is_the_trace_id():
    tracer = Kept()
    chosen = uuid.uuid4()
    RunnableLambda(lambda x: x).invoke(1, {"callbacks": [tracer], "run_id": chosen})
    assert tracer.roots[0].id == chosen and tracer.roots[0].trace_id == chosen


def test_rag_tracing_traceable_is_the_decorator_whatever_was_imported_before():
    import importlib

    import rag.tracing

    for module in ("rag.tracing.decorator", "rag.tracing.tracer", "rag.tracing.store"):
        importlib.import_module(module)
    assert callable(rag.tracing.traceable) and rag.tracing.traceable.__module__ == "rag.tracing.decorator"


def test_a_traceable_generator_receives_the_values_sent_to_it():
    @traceable
    def running_total():
        total = 0
        while True:
            value = yield total
            total += value

    @traceable
    async def async_total():
        total = 0
        while True:
            value = yield total
            total += value

    for listening in ([], [Kept()]):
        with tracing_context(callbacks=listening):
            summing = running_total()
            assert next(summing) == 0
            assert [summing.send(2), summing.send(3)] == [2, 5]

            async def main():
                summing = async_total()
                assert await summing.__anext__() == 0
                return [await summing.asend(2), await summing.asend(3)]

            assert asyncio.run(main()) == [2, 5]
