"""A @task's result replayed from a JSON checkpoint comes back as the type its return
annotation names (a pydantic model, a dataclass), as LangGraph's pickled results do."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.func import entrypoint, task
from rag.graph.types import Command, interrupt


class Draft(BaseModel):
    text: str


@dataclass
class Count:
    n: int


def test_a_replayed_result_annotated_as_a_pydantic_model_is_that_model():
    result, calls = run_twice_annotated(Draft, lambda value: Draft(text=value))
    assert result == Draft(text="x") and calls == ["x"]


def test_a_replayed_result_annotated_as_a_dataclass_is_that_dataclass():
    result, calls = run_twice_annotated(Count, lambda value: Count(n=len(value)))
    assert result == Count(n=1) and calls == ["x"]


def test_a_replayed_dict_without_such_an_annotation_stays_a_dict():
    result, _ = run_twice_annotated(dict, lambda value: {"text": value})
    assert result == {"text": "x"}


def run_twice_annotated(kind, build):
    """A task annotated ``-> kind`` made by ``build``, called, then the run pauses and
    resumes: the second run replays the task's saved result. Returns it and the calls."""
    seen, calls = [], []

    def body(value: str):
        calls.append(value)
        return build(value)

    body.__annotations__["return"] = kind
    made = task(body)

    @entrypoint(checkpointer=InMemorySaver())
    def flow(value: str) -> str:
        result = made(value).result()
        interrupt("go on?")
        seen.append(result)
        return "done"

    config = {"configurable": {"thread_id": "t"}}
    flow.invoke("x", config)
    flow.invoke(Command(resume="yes"), config)
    return seen[0], calls
