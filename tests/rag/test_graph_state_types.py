"""Every state type LangGraph accepts runs on rag.graph (issue 37, item 2): pydantic models,
dataclasses, annotated classes, root states (a list, a str, a dict), input/output schemas,
private state declared by a node's input annotation, and their JSON schemas."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Optional, TypedDict

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.graph import END, START, StateGraph
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.checkpoint.sqlite import SqliteSaver
from rag.graph.types import Command, interrupt


class Reading(pydantic.BaseModel):
    count: int
    note: str = "none"


class Inner(pydantic.BaseModel):
    label: str


class WithInner(pydantic.BaseModel):
    inner: Optional[Inner] = None
    answer: str = ""


@dataclass
class Basket:
    items: Annotated[list, operator.add] = field(default_factory=list)
    owner: str = "nobody"


class Plain:
    total: int
    name: str


def one_node(schema, node, **kwargs):
    graph = StateGraph(schema, **kwargs)
    graph.add_node("node", node).add_edge(START, "node")
    return graph


def test_a_pydantic_state_node_receives_a_model_instance_and_the_graph_returns_a_dict():
    seen = []

    def node(state: Reading):
        seen.append(state)
        return {"count": state.count + 1}

    assert one_node(Reading, node).compile().invoke({"count": 1}) == {"count": 2}
    assert seen == [Reading(count=1, note="none")]


def test_a_pydantic_state_refuses_a_bad_input_naming_the_field():
    app = one_node(Reading, lambda s: {}).compile()
    with pytest.raises(pydantic.ValidationError, match="count"):
        app.invoke({"count": "not a number"})


def test_a_pydantic_model_instance_is_accepted_as_the_input():
    app = one_node(Reading, lambda s: {"count": s.count * 10}).compile()
    assert app.invoke(Reading(count=3, note="given")) == {"count": 30, "note": "given"}


class Tagged(pydantic.BaseModel):
    count: int
    note: str = "none"
    tag: Optional[str] = None


def test_a_returned_model_instance_writes_its_fields_except_those_left_at_a_none_default():
    # LangGraph's rule: a field is written unless it is None with a None default (not set).
    app = one_node(Tagged, lambda s: Tagged(count=7)).compile()
    assert app.invoke({"count": 1, "note": "kept", "tag": "kept too"}) == {"count": 7, "note": "none", "tag": "kept too"}


def test_a_dataclass_state_node_receives_an_instance_with_its_defaults():
    seen = []

    def node(state: Basket):
        seen.append(state)
        return {"items": ["apple"]}

    assert one_node(Basket, node).compile().invoke({"items": ["pear"]}) == {"items": ["pear", "apple"]}
    assert seen == [Basket(items=["pear"], owner="nobody")]


def test_a_plain_annotated_class_state_node_reads_attributes():
    app = one_node(Plain, lambda s: {"total": s.total + len(s.name)}).compile()
    assert app.invoke({"total": 1, "name": "abc"}) == {"total": 4, "name": "abc"}


def test_a_root_list_state_with_a_reducer_combines_what_nodes_return():
    graph = StateGraph(Annotated[list, operator.add])
    graph.add_node("a", lambda items: [len(items)]).add_node("b", lambda items: [sum(items)])
    graph.add_edge(START, "a").add_edge("a", "b")
    assert graph.compile().invoke([5]) == [5, 1, 6]


def test_a_root_state_without_reducer_is_replaced_by_each_node():
    app = one_node(list[str], lambda words: [w.upper() for w in words]).compile()
    assert app.invoke(["a", "b"]) == ["A", "B"]


def test_a_dict_root_state_is_one_value_replaced_whole():
    app = one_node(dict, lambda value: {"seen": sorted(value)}).compile()
    assert app.invoke({"b": 1, "a": 2}) == {"seen": ["a", "b"]}


def test_a_root_state_streams_its_values_as_they_are():
    app = one_node(Annotated[list, operator.add], lambda items: ["x"]).compile()
    assert list(app.stream(["start"], stream_mode="values")) == [["start"], ["start", "x"]]


@settings(deadline=None, max_examples=30)
@given(st.lists(st.integers(min_value=-1000, max_value=1000), max_size=20))
def test_a_root_reducer_state_ends_as_the_input_followed_by_each_nodes_value(values):
    graph = StateGraph(Annotated[list, operator.add])
    graph.add_node("total", lambda items: [sum(items)]).add_node("size", lambda items: [len(items)])
    graph.add_edge(START, "total").add_edge("total", "size")
    assert graph.compile().invoke(values) == [*values, sum(values), len(values) + 1]


class Overall(TypedDict):
    question: str
    answer: str
    scratch: str


class Question(TypedDict):
    question: str


class Answer(TypedDict):
    answer: str


def test_input_and_output_schemas_select_the_keys_in_and_out():
    def think(state: Overall):
        return {"scratch": f"about {state['question']}", "answer": state["question"].upper()}

    app = one_node(Overall, think, input_schema=Question, output_schema=Answer).compile()
    assert app.invoke({"question": "why"}) == {"answer": "WHY"}


def test_an_input_key_outside_the_input_schema_is_ignored():
    seen = []

    def node(state: Overall):
        seen.append(dict(state))
        return {"answer": "ok"}

    app = one_node(Overall, node, input_schema=Question).compile()
    app.invoke({"question": "q", "scratch": "ignored"})
    assert seen == [{"question": "q"}]


class Private(TypedDict):
    secret: str


class Public(TypedDict):
    shown: str


def test_a_node_annotated_with_another_schema_reads_only_those_keys_and_they_stay_private():
    seen = []

    def write(state: Public):
        return {"secret": "hidden " + state["shown"]}

    def read(state: Private):
        seen.append(dict(state))
        return {"shown": state["secret"]}

    graph = StateGraph(Public).add_node("write", write).add_node("read", read)
    graph.add_edge(START, "write").add_edge("write", "read").add_edge("read", END)
    assert graph.compile().invoke({"shown": "x"}) == {"shown": "hidden x"}
    assert seen == [{"secret": "hidden x"}]


def test_a_conditional_edge_of_a_pydantic_state_reads_a_model_instance():
    graph = StateGraph(Reading)
    graph.add_node("up", lambda s: {"count": s.count + 1})
    graph.add_edge(START, "up")
    graph.add_conditional_edges("up", lambda s: "up" if s.count < 3 else END)
    assert graph.compile().invoke({"count": 0}) == {"count": 3}


def test_a_pydantic_state_resumes_from_a_json_checkpoint_with_its_nested_model_rebuilt(tmp_path):
    seen = []

    def ask(state: WithInner):
        answer = interrupt("label?")
        return {"inner": Inner(label=answer)}

    def check(state: WithInner):
        seen.append(state.inner)
        return {"answer": state.inner.label.upper()}

    graph = StateGraph(WithInner).add_node("ask", ask).add_node("check", check)
    graph.add_edge(START, "ask").add_edge("ask", "check")
    thread = {"configurable": {"thread_id": "t"}}
    with SqliteSaver.from_conn_string(str(tmp_path / "state.sqlite")) as saver:
        app = graph.compile(checkpointer=saver)
        app.invoke({}, thread)
        assert app.invoke(Command(resume="red"), thread)["answer"] == "RED"
    with SqliteSaver.from_conn_string(str(tmp_path / "state.sqlite")) as saver:
        assert graph.compile(checkpointer=saver).get_state(thread).values["inner"] == {"label": "red"}
    assert seen == [Inner(label="red")]


def test_the_input_jsonschema_of_a_pydantic_state_is_the_models_own():
    app = one_node(Reading, lambda s: {}).compile()
    assert app.get_input_jsonschema() == Reading.model_json_schema()
    assert app.get_output_jsonschema()["required"] == ["count"]


def test_the_jsonschemas_follow_the_input_and_output_schemas():
    app = one_node(Overall, lambda s: {}, input_schema=Question, output_schema=Answer).compile()
    assert list(app.get_input_jsonschema()["properties"]) == ["question"]
    assert app.get_output_jsonschema()["title"] == "Answer"


def test_a_root_states_input_jsonschema_is_its_type():
    schema = one_node(Annotated[list[int], operator.add], lambda s: []).compile().get_input_jsonschema()
    assert schema == {"title": "LangGraphInput", "type": "array", "items": {"type": "integer"}}


def test_a_value_that_is_not_a_type_is_refused_as_a_state_schema_naming_it():
    with pytest.raises(ValueError, match="a state schema must be a type .*got 'not a schema'"):
        StateGraph("not a schema")


def test_a_root_states_updates_are_streamed_as_the_values_nodes_returned():
    graph = StateGraph(Annotated[str, operator.add])
    graph.add_node("a", lambda text: [Command(update="a1"), Command(update="a2")]).add_node("b", lambda text: "b")
    app = graph.add_edge(START, "a").add_edge("a", "b").compile()
    assert list(app.stream("", stream_mode="updates")) == [{"a": ["a1", "a2"]}, {"b": "b"}]
    assert app.invoke("") == "a1a2b"


def test_update_state_on_a_root_state_takes_the_value_itself():
    app = one_node(Annotated[list, operator.add], lambda items: ["node"]).compile(checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t"}}
    app.invoke(["start"], thread)
    app.update_state(thread, ["edited"])
    assert app.get_state(thread).values == ["start", "node", "edited"]


@dataclass
class Form:
    name: str
    nickname: Optional[str]
    age: int = 0


def test_a_dataclass_states_jsonschema_requires_the_fields_without_default_that_cannot_be_none():
    schema = one_node(Form, lambda s: {}).compile().get_input_jsonschema()
    assert schema["title"] == "LangGraphInput" and schema["required"] == ["name"]
    assert set(schema["properties"]) == {"name", "nickname", "age"}


def test_a_paused_root_state_graph_returns_only_its_interrupts():
    app = one_node(list[str], lambda words: [interrupt("more?")]).compile(checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t"}}
    paused = app.invoke(["a"], thread)
    assert list(paused) == ["__interrupt__"] and paused["__interrupt__"][0].value == "more?"
    assert app.invoke(Command(resume="yes"), thread) == ["yes"]
