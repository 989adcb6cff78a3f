"""The functional API (rag.graph.func): @entrypoint and @task, as LangGraph 1.2's langgraph.func."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections import Counter
from typing import Any, Callable, TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.errors import UsageError, ValidationError
from rag.graph import START, StateGraph
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.checkpoint.sqlite import SqliteSaver
from rag.graph.func import entrypoint, task
from rag.graph.retry import RetryPolicy
from rag.graph.types import Command, interrupt


def thread() -> dict[str, Any]:
    return {"configurable": {"thread_id": uuid.uuid4().hex}}


# -- futures --------------------------------------------------------------------------------
def test_a_task_call_returns_a_future_whose_result_is_the_return_value() -> None:
    @task
    def double(x: int) -> int:
        return 2 * x

    @entrypoint()
    def workflow(x: int) -> int:
        future = double(x)
        assert hasattr(future, "result")
        return future.result()

    assert workflow.invoke(21) == 42


def test_tasks_started_before_waiting_run_at_the_same_time() -> None:
    both_running = threading.Barrier(2, timeout=10)  # broken (raises) unless both tasks run at once

    @task
    def meet(name: str) -> str:
        both_running.wait()
        return name

    @entrypoint()
    def workflow(_: Any) -> list[str]:
        first, second = meet("a"), meet("b")
        return [first.result(), second.result()]

    assert workflow.invoke(0) == ["a", "b"]


def test_a_task_called_outside_an_entrypoint_is_refused_naming_it() -> None:
    @task(name="summarise")
    def summarise(text: str) -> str:
        return text

    with pytest.raises(UsageError, match="task 'summarise' was called outside a running graph"):
        summarise("x")


def test_an_async_task_called_from_sync_code_is_refused_naming_it() -> None:
    @task
    async def fetch(x: int) -> int:
        return x

    @entrypoint()
    def workflow(x: int) -> int:
        return fetch(x).result()

    with pytest.raises(UsageError, match="task 'fetch' is an async function"):
        workflow.invoke(1)


def test_a_task_inside_a_state_graph_node_returns_its_value() -> None:
    class State(TypedDict):
        value: int

    @task
    def double(x: int) -> int:
        return 2 * x

    def node(state: State) -> dict:
        return {"value": double(state["value"]).result()}

    graph = StateGraph(State).add_node("node", node).add_edge(START, "node").compile()
    assert graph.invoke({"value": 4}) == {"value": 8}


def test_a_task_result_in_a_state_graph_node_is_streamed_before_the_node_update() -> None:
    class State(TypedDict):
        value: int

    @task
    def double(x: int) -> int:
        return 2 * x

    def node(state: State) -> dict:
        return {"value": double(state["value"]).result()}

    graph = StateGraph(State).add_node("node", node).add_edge(START, "node").compile()
    assert list(graph.stream({"value": 4})) == [{"double": 8}, {"node": {"value": 8}}]


def test_a_task_may_call_another_task() -> None:
    @task
    def inner(x: int) -> int:
        return x + 1

    @task
    def outer(x: int) -> int:
        return inner(x).result() * 10

    @entrypoint()
    def workflow(x: int) -> int:
        return outer(x).result()

    assert workflow.invoke(1) == 20


# -- checkpoints, interrupts and replay ------------------------------------------------------
def test_a_resumed_entrypoint_does_not_run_finished_tasks_again() -> None:
    calls: Counter[str] = Counter()

    @task
    def draft(topic: str) -> str:
        calls["draft"] += 1
        return f"essay on {topic}"

    @entrypoint(checkpointer=InMemorySaver())
    def review(topic: str) -> dict:
        essay = draft(topic).result()
        return {"essay": essay, "verdict": interrupt(essay)}

    config = thread()
    paused = review.invoke("cats", config)
    assert paused["__interrupt__"][0].value == "essay on cats"
    assert review.invoke(Command(resume="fine"), config) == {"essay": "essay on cats", "verdict": "fine"}
    assert calls["draft"] == 1


def test_an_interrupt_inside_a_task_gets_the_resume_value() -> None:
    @task
    def ask(question: str) -> str:
        return interrupt(question)

    @entrypoint(checkpointer=InMemorySaver())
    def workflow(_: Any) -> list[str]:
        return [ask("first?").result(), ask("second?").result()]

    config = thread()
    assert workflow.invoke(0, config)["__interrupt__"][0].value == "first?"
    assert workflow.invoke(Command(resume="one"), config)["__interrupt__"][0].value == "second?"
    assert workflow.invoke(Command(resume="two"), config) == ["one", "two"]


def test_tasks_paused_together_are_answered_by_interrupt_id() -> None:
    calls: Counter[str] = Counter()

    @task
    def ask(question: str) -> str:
        calls[question] += 1
        return interrupt(question)

    @entrypoint(checkpointer=InMemorySaver())
    def workflow(_: Any) -> list[str]:
        a, b = ask("A"), ask("B")
        return [a.result(), b.result()]

    config = thread()
    workflow.invoke(1, config)
    pending = {i.value: i.id for i in workflow.get_state(config).interrupts}
    assert sorted(pending) == ["A", "B"]
    workflow.invoke(Command(resume={pending["A"]: "x"}), config)
    assert [i.value for i in workflow.get_state(config).interrupts] == ["B"]
    assert workflow.invoke(Command(resume={pending["B"]: "y"}), config) == ["x", "y"]
    assert calls == {"A": 2, "B": 3}  # A finished on the second run and was replayed on the third


def test_a_resume_does_not_write_the_replayed_task_results_again() -> None:
    class CountingSaver(InMemorySaver):
        def __init__(self) -> None:
            super().__init__()
            self.written: list[str] = []

        def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
            self.written.append(task_id)
            super().put_writes(config, writes, task_id, task_path)

    @task
    def setup(x: int) -> int:
        return x

    @task
    def ask(question: str) -> str:
        return interrupt(question)

    saver = CountingSaver()

    @entrypoint(checkpointer=saver)
    def workflow(x: int) -> dict:
        return {"answer": ask(f"q{setup(x).result()}").result()}

    config = thread()
    workflow.invoke(1, config)
    assert any("setup" in task_id for task_id in saver.written)  # kept when the run paused
    saver.written.clear()
    assert workflow.invoke(Command(resume="ans"), config) == {"answer": "ans"}
    assert not any("setup" in task_id for task_id in saver.written)


def test_a_failed_run_keeps_finished_task_results_for_the_retry() -> None:
    calls: Counter[str] = Counter()
    fail = [True]

    @task
    def slow_step(x: int) -> int:
        calls["slow_step"] += 1
        return x * 3

    @task
    def flaky(x: int) -> int:
        if fail[0]:
            raise ConnectionError("network down")
        return x + 1

    @entrypoint(checkpointer=InMemorySaver())
    def workflow(x: int) -> int:
        return flaky(slow_step(x).result()).result()

    config = thread()
    with pytest.raises(ConnectionError):
        workflow.invoke(2, config)
    fail[0] = False
    assert workflow.invoke(None, config) == 7
    assert calls["slow_step"] == 1


def test_task_results_survive_reopening_a_sqlite_checkpoint_file(tmp_path) -> None:
    calls: Counter[str] = Counter()

    @task
    def expensive(x: int) -> int:
        calls["expensive"] += 1
        return x * x

    def build(saver: SqliteSaver) -> Any:
        @entrypoint(checkpointer=saver)
        def workflow(x: int) -> dict:
            square = expensive(x).result()
            return {"square": square, "note": interrupt("note?")}

        return workflow

    config = thread()
    path = tmp_path / "threads.sqlite"
    with SqliteSaver.from_conn_string(str(path)) as saver:
        build(saver).invoke(7, config)
    with SqliteSaver.from_conn_string(str(path)) as saver:
        assert build(saver).invoke(Command(resume="ok"), config) == {"square": 49, "note": "ok"}
    assert calls["expensive"] == 1


def test_a_nested_entrypoint_without_checkpointer_replays_its_tasks_with_the_parent() -> None:
    calls: Counter[str] = Counter()

    @task
    def step(query: str) -> str:
        calls["step"] += 1
        return query + " bar"

    @task
    def feedback(query: str) -> str:
        return f"{query} {interrupt('feedback?')}"

    @entrypoint()
    def child(query: str) -> str:
        return feedback(step(query).result()).result()

    @entrypoint(checkpointer=InMemorySaver())
    def parent(query: str) -> str:
        return child.invoke(query)

    config = thread()
    parent.invoke("foo", config)
    assert parent.invoke(Command(resume="baz"), config) == "foo bar baz"
    assert calls["step"] == 1


@settings(deadline=None, max_examples=25)
@given(items=st.lists(st.integers(-1000, 1000), min_size=1, max_size=6), pause_after=st.integers(0, 6))
def test_a_paused_and_resumed_run_returns_what_an_uninterrupted_run_returns(items: list[int],
                                                                            pause_after: int) -> None:
    calls: Counter[int] = Counter()

    @task
    def square(index: int, x: int) -> int:
        calls[index] += 1
        return x * x

    def body(numbers: list[int], stop: int) -> list[Any]:
        results: list[Any] = []
        for index, x in enumerate(numbers):
            if index == stop:
                results.append(interrupt("go on?"))
            results.append(square(index, x).result())
        return results

    @entrypoint(checkpointer=InMemorySaver())
    def paused(numbers: list[int]) -> list[Any]:
        return body(numbers, pause_after)

    @entrypoint(checkpointer=InMemorySaver())
    def straight(numbers: list[int]) -> list[Any]:
        return body(numbers, -1)

    config = thread()
    first = paused.invoke(items, config)
    result = paused.invoke(Command(resume="yes"), config) if "__interrupt__" in first else first
    expected = straight.invoke(items, thread())
    if pause_after < len(items):
        expected.insert(pause_after, "yes")
    assert result == expected
    assert all(count == 2 for count in calls.values())  # once in the paused run, once straight
    assert len(calls) == len(items)


# -- previous, final, config, state API ------------------------------------------------------------
def test_previous_is_the_last_return_value_of_the_thread() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def counter(step: int, *, previous: Any = None) -> int:
        return (previous or 0) + step

    config = thread()
    assert [counter.invoke(1, config), counter.invoke(2, config), counter.invoke(3, config)] == [1, 3, 6]


def test_previous_is_none_on_every_run_without_a_checkpointer() -> None:
    @entrypoint()
    def echo(value: Any, *, previous: Any = None) -> Any:
        return {"previous": previous, "value": value}

    config = thread()
    echo.invoke(1, config)
    assert echo.invoke(2, config) == {"previous": None, "value": 2}


def test_final_returns_its_value_and_saves_its_save_for_previous() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def chat(message: str, *, previous: Any = None) -> entrypoint.final[int, list[str]]:
        history = (previous or []) + [message]
        return entrypoint.final(value=len(history), save=history)

    config = thread()
    assert chat.invoke("hi", config) == 1
    assert chat.invoke("again", config) == 2
    assert chat.get_state(config).values == 2


def test_a_final_annotation_with_one_type_is_refused() -> None:
    with pytest.raises(TypeError):
        @entrypoint()
        def wrong(x: int) -> "entrypoint.final[int]":  # type: ignore[type-arg]
            return entrypoint.final(value=x, save=x)


def test_config_is_passed_to_an_entrypoint_that_declares_it() -> None:
    @entrypoint()
    def who(_: Any, *, config: dict) -> str:
        return config["configurable"]["user"]

    assert who.invoke("anyone", {"configurable": {"user": "ada"}}) == "ada"


def test_runtime_and_writer_are_passed_to_an_entrypoint_that_declares_them() -> None:
    from rag.graph.runtime import Runtime
    from rag.graph.types import StreamWriter

    @entrypoint(checkpointer=InMemorySaver())
    def report(value: int, *, runtime: Runtime, writer: StreamWriter) -> int:
        writer({"previous": runtime.previous})
        return value

    config = thread()
    report.invoke(1, config)
    assert list(report.stream(2, config, stream_mode=["custom", "updates"])) == [
        ("custom", {"previous": 1}), ("updates", {"report": 2})]


def test_update_state_sets_the_value_previous_receives() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def remember(value: int, *, previous: Any = None) -> dict:
        return {"previous": previous, "value": value}

    config = thread()
    remember.update_state(config, {"seeded": True})
    assert remember.get_state(config).values == {"seeded": True}
    assert remember.invoke(1, config) == {"previous": {"seeded": True}, "value": 1}


def test_get_state_of_a_paused_run_lists_the_pending_interrupt() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def workflow(_: Any) -> str:
        return interrupt("approve?")

    config = thread()
    workflow.invoke(0, config)
    snapshot = workflow.get_state(config)
    assert snapshot.next == ("workflow",)
    assert [i.value for i in snapshot.tasks[0].interrupts] == ["approve?"]


def test_stream_yields_each_task_result_then_the_return_value() -> None:
    @task
    def add(a: int, b: int) -> int:
        return a + b

    @entrypoint()
    def total(numbers: list[int]) -> int:
        return add(add(numbers[0], numbers[1]).result(), numbers[2]).result()

    assert list(total.stream([1, 2, 3])) == [{"add": 3}, {"add": 6}, {"total": 6}]


def test_stream_values_yields_the_return_value() -> None:
    @entrypoint()
    def shout(text: str) -> str:
        return text.upper()

    assert list(shout.stream("hi", stream_mode="values")) == ["HI"]


def test_schemas_come_from_the_annotations() -> None:
    @entrypoint()
    def lengths(words: list[str]) -> list[int]:
        return [len(w) for w in words]

    assert lengths.get_input_jsonschema() == {"title": "LangGraphInput", "type": "array", "items": {"type": "string"}}
    assert lengths.get_output_jsonschema() == {"title": "LangGraphOutput", "type": "array",
                                               "items": {"type": "integer"}}


# -- async ----------------------------------------------------------------------------------
def test_async_tasks_are_awaited_and_gathered() -> None:
    @task
    async def double(x: int) -> int:
        await asyncio.sleep(0)
        return 2 * x

    @entrypoint()
    async def workflow(numbers: list[int]) -> list[int]:
        return list(await asyncio.gather(*(double(n) for n in numbers)))

    assert asyncio.run(workflow.ainvoke([1, 2, 3])) == [2, 4, 6]


def test_a_sync_task_is_awaitable_in_an_async_entrypoint() -> None:
    @task
    def double(x: int) -> int:
        return 2 * x

    @entrypoint()
    async def workflow(x: int) -> int:
        return await double(x)

    assert asyncio.run(workflow.ainvoke(5)) == 10


def test_an_async_resume_does_not_run_finished_tasks_again() -> None:
    calls: Counter[str] = Counter()

    @task
    async def fetch(x: int) -> int:
        calls["fetch"] += 1
        return x + 1

    @entrypoint(checkpointer=InMemorySaver())
    async def workflow(x: int) -> list[Any]:
        value = await fetch(x)
        return [value, interrupt("ok?")]

    async def run() -> Any:
        config = thread()
        await workflow.ainvoke(1, config)
        return await workflow.ainvoke(Command(resume="yes"), config)

    assert asyncio.run(run()) == [2, "yes"]
    assert calls["fetch"] == 1


# -- caching ------------------------------------------------------------------------------------
def test_a_cached_task_returns_the_result_of_an_earlier_call_without_running() -> None:
    from rag.graph.cache import InMemoryCache
    from rag.graph.types import CachePolicy

    calls: Counter[int] = Counter()

    @task(cache_policy=CachePolicy())
    def square(x: int) -> int:
        calls[x] += 1
        return x * x

    @entrypoint(cache=InMemoryCache())
    def workflow(x: int) -> list[int]:
        return [square(x).result(), square(x).result()]

    assert list(workflow.stream(3)) == [{"square": 9}, {"square": 9, "__metadata__": {"cached": True}},
                                        {"workflow": [9, 9]}]
    assert workflow.invoke(3) == [9, 9]
    assert calls == {3: 1}


def test_clear_cache_makes_a_cached_task_run_again(tmp_path) -> None:
    from rag.graph.cache import SqliteCache
    from rag.graph.types import CachePolicy

    calls: Counter[int] = Counter()

    @task(cache_policy=CachePolicy())
    def square(x: int) -> int:
        calls[x] += 1
        return x * x

    cache = SqliteCache(path=str(tmp_path / "cache.sqlite"))
    workflow = entrypoint(cache=cache)(lambda x: square(x).result())
    workflow.invoke(2)
    square.clear_cache(cache)
    workflow.invoke(2)
    assert calls == {2: 2}


def test_an_entrypoint_refuses_a_cache_that_is_not_a_cache() -> None:
    with pytest.raises(ValidationError, match="needs a cache such as InMemoryCache"):
        entrypoint(cache={})


# -- retries and bad input -------------------------------------------------------------------------
def test_a_task_with_a_retry_policy_runs_again_after_a_transient_error() -> None:
    attempts: Counter[str] = Counter()

    @task(retry_policy=RetryPolicy(max_attempts=3, initial_interval=0, jitter=False))
    def flaky() -> str:
        attempts["flaky"] += 1
        if attempts["flaky"] < 3:
            raise ConnectionError("try again")
        return "ok"

    @entrypoint()
    def workflow(_: Any) -> str:
        return flaky().result()

    assert workflow.invoke(0) == "ok"
    assert attempts["flaky"] == 3


def test_a_task_error_reaches_the_entrypoint_through_the_future() -> None:
    @task
    def broken() -> None:
        raise KeyError("missing")

    @entrypoint()
    def workflow(_: Any) -> str:
        try:
            broken().result()
        except KeyError:
            return "handled"
        return "not raised"

    assert workflow.invoke(0) == "handled"


@pytest.mark.parametrize("options, message", [
    ({"timeout": 5}, "a timeout needs an async task"),
    ({"retry_policy": "three times"}, "retry_policy must be a RetryPolicy"),
    ({"cache_policy": object()}, "cache_policy must be a CachePolicy"),
])
def test_bad_task_options_are_refused_naming_the_value(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        task(**options)(lambda: None)


def test_an_entrypoint_needs_an_input_parameter() -> None:
    with pytest.raises(ValidationError, match="must take one parameter"):
        entrypoint()(lambda: None)


def test_a_generator_entrypoint_is_refused() -> None:
    def stream_words(_: Any):
        yield "a"

    with pytest.raises(NotImplementedError, match="Generators are not supported"):
        entrypoint()(stream_words)


def test_an_entrypoint_refuses_a_checkpointer_that_is_not_a_saver() -> None:
    with pytest.raises(TypeError, match="Invalid checkpointer provided"):
        entrypoint(checkpointer={"not": "a saver"})


def test_the_module_docstring_examples_run() -> None:
    import doctest

    import rag.graph.func

    result = doctest.testmod(rag.graph.func)
    assert result.failed == 0 and result.attempted > 0


# -- the same workflows on LangGraph 1.2 (a test dependency): outputs must match ---------------
def _peer_libraries() -> list[Any]:
    lg_func = pytest.importorskip("langgraph.func")
    import langgraph.checkpoint.memory as lg_memory
    import langgraph.types as lg_types

    from types import SimpleNamespace

    import rag.graph.types as our_types

    ours = SimpleNamespace(entrypoint=entrypoint, task=task, InMemorySaver=InMemorySaver, Command=Command,
                           interrupt=interrupt, Interrupt=our_types.Interrupt)
    peer = SimpleNamespace(entrypoint=lg_func.entrypoint, task=lg_func.task, InMemorySaver=lg_memory.InMemorySaver,
                           Command=lg_types.Command, interrupt=lg_types.interrupt, Interrupt=lg_types.Interrupt)
    return [ours, peer]


def _plain(value: Any, lib: Any) -> Any:
    """``value`` with each Interrupt as its value alone (ids are each library's own)."""
    if isinstance(value, lib.Interrupt):
        return ("interrupt", _plain(value.value, lib))
    if isinstance(value, dict):
        return {key: _plain(item, lib) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(item, lib) for item in value)
    return value


def _pause_and_resume(lib: Any) -> list[Any]:
    @lib.task
    def double(x: int) -> int:
        return 2 * x

    @lib.task
    def ask(question: str) -> str:
        return lib.interrupt(question)

    @lib.entrypoint(checkpointer=lib.InMemorySaver())
    def workflow(x: int, *, previous: Any = None) -> dict:
        first = double(x).result()
        answer = ask(f"keep {first}?").result()
        return {"first": first, "answer": answer, "again": double(first).result(), "previous": previous}

    config = {"configurable": {"thread_id": "1"}}
    seen: list[Any] = [list(workflow.stream(3, config, stream_mode=["updates", "values"]))]
    snapshot = workflow.get_state(config)
    seen.append((snapshot.values, snapshot.next, [len(t.interrupts) for t in snapshot.tasks],
                 snapshot.metadata["source"], snapshot.metadata["step"]))
    seen.append(list(workflow.stream(lib.Command(resume="yes"), config, stream_mode=["updates", "values"])))
    seen.append(workflow.invoke(4, config))
    seen.append(workflow.invoke(lib.Command(resume="no"), config))
    seen.append([(s.values, s.next, s.metadata["source"], s.metadata["step"])
                 for s in workflow.get_state_history(config)])
    return seen


def _final_and_update_state(lib: Any) -> list[Any]:
    @lib.entrypoint(checkpointer=lib.InMemorySaver())
    def history(message: str, *, previous: Any = None):
        kept = (previous or []) + [message]
        return lib.entrypoint.final(value=len(kept), save=kept)

    config = {"configurable": {"thread_id": "1"}}
    seen: list[Any] = [history.invoke("a", config), list(history.stream("b", config, stream_mode="values"))]
    history.update_state(config, ["reset"])
    seen.append((history.get_state(config).values, history.get_state(config).next))
    seen.append(list(history.stream("c", config)))
    return seen


def _tasks_paused_in_turn(lib: Any) -> list[Any]:
    @lib.task
    def ask(question: str) -> str:
        return lib.interrupt(question)

    @lib.entrypoint(checkpointer=lib.InMemorySaver())
    def workflow(_: Any) -> list:
        return [ask("A").result(), ask("B").result()]

    config = {"configurable": {"thread_id": "1"}}
    seen: list[Any] = [workflow.invoke(0, config)]
    seen.append([len(t.interrupts) for t in workflow.get_state(config).tasks])
    seen.append(list(workflow.stream(lib.Command(resume="a"), config)))
    seen.append(workflow.invoke(lib.Command(resume="b"), config))
    return seen


@pytest.mark.parametrize("scenario", [_pause_and_resume, _final_and_update_state, _tasks_paused_in_turn],
                         ids=lambda f: f.__name__.strip("_"))
def test_outputs_match_langgraph(scenario: Callable[[Any], list[Any]]) -> None:
    ours, peer = _peer_libraries()
    assert _plain(scenario(ours), ours) == _plain(scenario(peer), peer)
