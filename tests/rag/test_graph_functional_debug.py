"""The functional API's "tasks"/"debug" streams, as LangGraph's: the entrypoint's task
gets its input itself, triggered by ``__start__``; each ``@task`` call is reported as a task
of the entrypoint's step (``input``: ``(args, kwargs)``, result ``{"__return__": value}``),
before the entrypoint's own result; a resumed run reports a replayed call without running
it again; checkpoints show the return value, not the internal channels."""

from __future__ import annotations

from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.func import entrypoint, task
from rag.graph.types import Command, interrupt


@task
def double(n: int) -> int:
    return n * 2


def config() -> dict:
    return {"configurable": {"thread_id": "t"}}


def debug_events(app, value) -> list[tuple[str, str, dict]]:
    return [(c["type"], c["payload"].get("name"), c["payload"]) for c in
            app.stream(value, config(), stream_mode="debug")]


def asking_workflow():
    @entrypoint(checkpointer=InMemorySaver())
    def workflow(n: int) -> int:
        doubled = double(n).result()
        return doubled + interrupt("add how much?")

    return workflow


def test_the_entrypoint_task_gets_its_input_itself_triggered_by_start():
    @entrypoint()
    def workflow(n: int) -> int:
        return n + 1

    [(_, _, started)] = [e for e in debug_events(workflow, 3) if e[0] == "task"]
    assert (started["input"], started["triggers"]) == (3, ("__start__",))


def test_a_task_call_is_reported_as_a_task_before_the_entrypoint_result():
    @entrypoint()
    def workflow(n: int) -> int:
        return double(n).result() + 1

    kinds = [(kind, name) for kind, name, _ in debug_events(workflow, 3) if kind != "checkpoint"]
    assert kinds == [("task", "workflow"), ("task", "double"), ("task_result", "double"), ("task_result", "workflow")]
    events = {(kind, name): payload for kind, name, payload in debug_events(workflow, 3)}
    assert events["task", "double"]["input"] == ((3,), {})
    assert events["task", "double"]["triggers"] == ("__pregel_push",)
    assert events["task_result", "double"]["result"] == {"__return__": 6}


def test_the_entrypoint_result_shows_only_its_return_value():
    @entrypoint()
    def workflow(n: int) -> int:
        return n + 1

    [result] = [payload for kind, _, payload in debug_events(workflow, 3) if kind == "task_result"]
    assert result["result"] == {"__end__": 4}


def test_checkpoints_show_the_return_value_not_the_internal_channels():
    @entrypoint(checkpointer=InMemorySaver())
    def workflow(n: int) -> dict:
        return {"total": n}

    values = [payload["values"] for kind, _, payload in debug_events(workflow, 3) if kind == "checkpoint"]
    assert values == [None, {"total": 3}]


def test_a_resumed_run_reports_the_replayed_call_as_a_task_without_a_result():
    workflow = asking_workflow()
    workflow.invoke(2, config())
    kinds = [(kind, name) for kind, name, _ in debug_events(workflow, Command(resume=1)) if kind != "checkpoint"]
    assert kinds == [("task", "workflow"), ("task", "double"), ("task_result", "workflow")]


def test_a_paused_entrypoint_reports_its_interrupt_and_the_call_that_finished():
    events = debug_events(asking_workflow(), 2)
    results = {name: payload for kind, name, payload in events if kind == "task_result"}
    assert results["double"]["result"] == {"__return__": 4}
    assert [i["value"] for i in results["workflow"]["interrupts"]] == ["add how much?"]


def test_a_call_that_pauses_has_no_result_its_caller_reports_the_interrupt():
    @task
    def ask(question: str) -> str:
        return interrupt(question)

    @entrypoint(checkpointer=InMemorySaver())
    def workflow(question: str) -> str:
        return ask(question).result()

    events = debug_events(workflow, "why?")
    assert [(kind, name) for kind, name, _ in events if kind != "checkpoint"] == [
        ("task", "workflow"), ("task", "ask"), ("task_result", "workflow")]
    assert [i["value"] for i in events[-1][2]["interrupts"]] == ["why?"]


def test_a_call_that_fails_reports_its_error_in_its_result():
    @task
    def boom(question: str) -> str:
        raise ValueError(f"cannot answer {question}")

    @entrypoint()
    def workflow(question: str) -> str:
        try:
            return boom(question).result()
        except ValueError:
            return "caught"

    results = {name: payload for kind, name, payload in debug_events(workflow, "why?") if kind == "task_result"}
    assert repr(results["boom"]["error"]) == repr(ValueError("cannot answer why?"))
    assert (results["boom"]["result"], results["workflow"]["result"]) == ({}, {"__end__": "caught"})


def test_an_entrypoint_streams_several_modes_with_subgraphs_as_langgraph():
    @entrypoint()
    def workflow(n: int) -> int:
        return n * 2

    assert list(workflow.stream(3, stream_mode=["values", "updates"], subgraphs=True)) == [
        ((), "updates", {"workflow": 6}), ((), "values", 6)]
