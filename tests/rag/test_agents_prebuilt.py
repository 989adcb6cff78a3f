"""LangGraph-prebuilt's full agent surface on rag.agents: create_react_agent's versions, hooks,
per-call models and prompts; ToolNode's interceptors, inputs, output formats, Commands and
injected arguments (state, store, call id, runtime), driven by scripted fake models."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.agents import (InjectedState, InjectedStore, ToolCallRequest, ToolNode, ToolRuntime, create_react_agent)
from rag.errors import InvalidTypeError, ValidationError
from rag.graph import START, StateGraph
from rag.graph.message import MessagesState
from rag.graph.store.memory import InMemoryStore
from rag.graph.types import Command
from rag.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from rag.models import GenericFakeChatModel
from rag.tools import InjectedToolCallId, tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def calls(*specs: tuple[str, dict, str]) -> AIMessage:
    """An AIMessage calling tools: specs are (name, args, id)."""
    return AIMessage("", tool_calls=[{"name": n, "args": a, "id": i, "type": "tool_call"} for n, a, i in specs])


def scripted(*replies: Any) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter(replies))


class Seen(GenericFakeChatModel):
    """A scripted model that records the messages of each call."""

    def __init__(self, *replies: Any) -> None:
        super().__init__(messages=iter(replies))
        self.inputs: list[list[Any]] = []

    def _generate(self, messages: list, stop: Any = None, **kwargs: Any) -> AIMessage:
        self.inputs.append(list(messages))
        return super()._generate(messages, stop, **kwargs)


# -- create_react_agent ----------------------------------------------------------------------
def test_a_version_other_than_v1_or_v2_is_refused_naming_it():
    with pytest.raises(ValueError, match="Invalid version v3. Supported versions are 'v1' and 'v2'"):
        create_react_agent(scripted("hi"), [add], version="v3")  # type: ignore[arg-type]


def test_an_unknown_keyword_is_refused_naming_it():
    with pytest.raises(TypeError, match="unexpected keyword arguments: {'extra': 1}"):
        create_react_agent(scripted("hi"), [add], extra=1)


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_both_versions_answer_every_tool_call_in_call_order(version):
    model = scripted(calls(("add", {"a": 1, "b": 2}, "c1"), ("add", {"a": 3, "b": 4}, "c2")), "3 and 7")
    result = create_react_agent(model, [add], version=version).invoke({"messages": [("human", "sums?")]})
    assert [(m.type, m.text) for m in result["messages"]] == [
        ("human", "sums?"), ("ai", ""), ("tool", "3"), ("tool", "7"), ("ai", "3 and 7")]


def test_version_v2_runs_each_tool_call_as_its_own_task():
    model = scripted(calls(("add", {"a": 1, "b": 2}, "c1"), ("add", {"a": 3, "b": 4}, "c2")), "done")
    agent = create_react_agent(model, [add], version="v2")
    tasks = [chunk for chunk in agent.stream({"messages": [("human", "sums?")]}, stream_mode="updates")
             if "tools" in chunk]
    # One update per call, in the order the calls finished (they run in parallel, as LangGraph's).
    assert sorted([m.tool_call_id for m in chunk["tools"]["messages"]] for chunk in tasks) == [["c1"], ["c2"]]


def test_version_v1_runs_all_tool_calls_of_a_reply_in_one_step():
    model = scripted(calls(("add", {"a": 1, "b": 2}, "c1"), ("add", {"a": 3, "b": 4}, "c2")), "done")
    agent = create_react_agent(model, [add], version="v1")
    tasks = [chunk for chunk in agent.stream({"messages": [("human", "sums?")]}, stream_mode="updates")
             if "tools" in chunk]
    assert [[m.tool_call_id for m in chunk["tools"]["messages"]] for chunk in tasks] == [["c1", "c2"]]


def test_an_async_prompt_function_is_awaited():
    async def prompt(state):
        await asyncio.sleep(0)
        return [SystemMessage("Be brief."), *state["messages"]]

    model = Seen("ok")
    asyncio.run(create_react_agent(model, [add], prompt=prompt).ainvoke({"messages": [("human", "hi")]}))
    assert [m.text for m in model.inputs[0]] == ["Be brief.", "hi"]


def test_an_async_prompt_function_on_the_sync_path_says_to_use_ainvoke():
    async def prompt(state):
        return state["messages"]

    agent = create_react_agent(scripted("ok"), [add], prompt=prompt)
    with pytest.raises(Exception, match="ainvoke"):
        agent.invoke({"messages": [("human", "hi")]})


def test_a_callable_model_is_chosen_for_each_call_from_the_state_and_runtime():
    picked: list[str] = []
    terse, chatty = scripted(calls(("add", {"a": 1, "b": 1}, "c1")), "two"), scripted("unused")

    def choose(state, runtime):
        picked.append("terse" if len(state["messages"]) < 5 else "chatty")
        return (terse if picked[-1] == "terse" else chatty).bind_tools([add])

    result = create_react_agent(choose, [add]).invoke({"messages": [("human", "1+1?")]})
    assert picked == ["terse", "terse"] and result["messages"][-1].text == "two"


def test_an_async_callable_model_is_awaited():
    async def choose(state, runtime):
        return scripted("from async")

    result = asyncio.run(create_react_agent(choose, []).ainvoke({"messages": [("human", "hi")]}))
    assert result["messages"][-1].text == "from async"


def test_pre_model_hook_llm_input_messages_change_what_the_model_sees_not_the_state():
    model = Seen("ok")

    def only_the_last(state):
        return {"llm_input_messages": state["messages"][-1:]}

    agent = create_react_agent(model, [add], pre_model_hook=only_the_last)
    result = agent.invoke({"messages": [("human", "first"), ("ai", "reply"), ("human", "second")]})
    assert [m.text for m in model.inputs[0]] == ["second"]
    assert [m.text for m in result["messages"]] == ["first", "reply", "second", "ok"]
    assert "llm_input_messages" not in result


def test_post_model_hook_runs_after_each_model_call():
    class Flagged(MessagesState):
        checked: int

    def check(state):
        return {"checked": state.get("checked", 0) + 1}

    model = scripted(calls(("add", {"a": 1, "b": 2}, "c1")), "3")
    agent = create_react_agent(model, [add], post_model_hook=check, state_schema=Flagged)
    assert agent.invoke({"messages": [("human", "1+2?")], "checked": 0})["checked"] == 2


def test_a_state_schema_without_messages_is_refused_naming_the_key():
    from typing import TypedDict

    class NoMessages(TypedDict):
        count: int

    with pytest.raises(ValueError, match="Missing required key.*messages"):
        create_react_agent(scripted("hi"), [add], state_schema=NoMessages)


# -- ToolNode: inputs and outputs -------------------------------------------------------------
def test_a_list_of_tool_calls_is_answered_in_order():
    output = ToolNode([add]).invoke([{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1", "type": "tool_call"},
                                     {"name": "add", "args": {"a": 2, "b": 2}, "id": "c2", "type": "tool_call"}])
    assert [(m.tool_call_id, m.content) for m in output["messages"]] == [("c1", "3"), ("c2", "4")]


@settings(deadline=None, max_examples=25)
@given(st.lists(st.text(max_size=8), min_size=1, max_size=4) | st.dictionaries(st.text(max_size=5), st.integers(), max_size=3))
def test_tool_output_other_than_text_reaches_the_model_as_json_text(value):
    # (an empty list stays an empty list of content blocks, as in LangGraph)
    @tool
    def echo() -> Any:
        """Give the value back."""
        return value

    message = ToolNode([echo]).invoke({"messages": [calls(("echo", {}, "c1"))]})["messages"][0]
    assert message.content == json.dumps(value, ensure_ascii=False)


def test_a_tool_returning_a_command_updates_the_graph_state():
    class State(MessagesState):
        user: str

    @tool
    def remember(name: str, call_id: Annotated[str, InjectedToolCallId]) -> Command:
        """Remember the user's name."""
        return Command(update={"user": name, "messages": [ToolMessage("noted", tool_call_id=call_id)]})

    graph = StateGraph(State).add_node("tools", ToolNode([remember])).add_edge(START, "tools").compile()
    result = graph.invoke({"messages": [calls(("remember", {"name": "Ada"}, "c1"))], "user": ""})
    assert result["user"] == "Ada" and [m.text for m in result["messages"][1:]] == ["noted"]


def test_a_command_that_does_not_answer_its_call_is_refused():
    @tool
    def forgetful() -> Command:
        """Update without answering."""
        return Command(update={"messages": []})

    with pytest.raises(ValueError, match="Expected to have a matching ToolMessage"):
        ToolNode([forgetful], handle_tool_errors=False).invoke({"messages": [calls(("forgetful", {}, "c1"))]})


# -- ToolNode: injection ----------------------------------------------------------------------
def test_injected_parameters_are_hidden_from_the_model():
    @tool
    def lookup(query: str, state: Annotated[dict, InjectedState], key: Annotated[str, InjectedState("k")],
               store: Annotated[Any, InjectedStore()], call_id: Annotated[str, InjectedToolCallId],
               runtime: ToolRuntime) -> str:
        """Look something up."""
        return query

    assert list(lookup.args_schema["properties"]) == ["query"]
    assert lookup.args_schema["required"] == ["query"]


def test_injected_state_store_call_id_and_runtime_reach_the_tool_in_a_graph():
    class State(MessagesState):
        user: str

    seen: dict[str, Any] = {}

    @tool
    def lookup(query: str, user: Annotated[str, InjectedState("user")], store: Annotated[Any, InjectedStore()],
               call_id: Annotated[str, InjectedToolCallId], runtime: ToolRuntime) -> str:
        """Look something up."""
        seen.update(user=user, call_id=call_id, runtime_call_id=runtime.tool_call_id,
                    note=store.get(("notes",), user).value["text"], state_user=runtime.state["user"])
        return "found"

    store = InMemoryStore()
    store.put(("notes",), "ada", {"text": "likes tea"})
    graph = StateGraph(State).add_node("tools", ToolNode([lookup])).add_edge(START, "tools").compile(store=store)
    graph.invoke({"messages": [calls(("lookup", {"query": "tea"}, "c9"))], "user": "ada"})
    assert seen == {"user": "ada", "call_id": "c9", "runtime_call_id": "c9", "note": "likes tea", "state_user": "ada"}


def test_a_value_the_model_sends_for_an_injected_parameter_is_ignored():
    @tool
    def whoami(role: Annotated[str, InjectedState("role")]) -> str:
        """Say the caller's role."""
        return role

    call = calls(("whoami", {"role": "admin"}, "c1"))
    output = ToolNode([whoami]).invoke({"messages": [call], "role": "viewer"})
    assert output["messages"][0].content == "viewer"


def test_injected_store_without_a_store_says_to_compile_with_one():
    @tool
    def save(text: str, store: Annotated[Any, InjectedStore()]) -> str:
        """Save a note."""
        return "saved"

    with pytest.raises(ValueError, match="compile your graph with a store"):
        ToolNode([save]).invoke({"messages": [calls(("save", {"text": "x"}, "c1"))]})


# -- ToolNode: interceptors -------------------------------------------------------------------
def test_wrap_tool_call_can_retry_the_call():
    attempts: list[int] = []

    @tool
    def flaky(n: int) -> str:
        """Fails the first time."""
        attempts.append(n)
        if len(attempts) == 1:
            raise RuntimeError("try again")
        return "ok"

    def retry_once(request: ToolCallRequest, execute):
        result = execute(request)
        return execute(request) if result.status == "error" else result

    output = ToolNode([flaky], wrap_tool_call=retry_once).invoke({"messages": [calls(("flaky", {"n": 1}, "c1"))]})
    assert output["messages"][0].content == "ok" and attempts == [1, 1]


def test_wrap_tool_call_can_change_the_arguments_and_answer_unknown_tools_itself():
    def interceptor(request: ToolCallRequest, execute):
        if request.tool is None:
            return ToolMessage("no such tool here", tool_call_id=request.tool_call["id"], name="?")
        return execute(request.override(tool_call={**request.tool_call, "args": {"a": 10, "b": 5}}))

    node = ToolNode([add], wrap_tool_call=interceptor)
    output = node.invoke({"messages": [calls(("add", {"a": 1, "b": 1}, "c1"), ("nope", {}, "c2"))]})
    assert [m.content for m in output["messages"]] == ["15", "no such tool here"]


def test_awrap_tool_call_intercepts_on_the_async_path():
    seen: list[str] = []

    async def interceptor(request: ToolCallRequest, execute):
        seen.append(request.tool_call["id"])
        return await execute(request)

    node = ToolNode([add], awrap_tool_call=interceptor)
    output = asyncio.run(node.ainvoke({"messages": [calls(("add", {"a": 2, "b": 2}, "c1"))]}))
    assert seen == ["c1"] and output["messages"][0].content == "4"


def test_a_wrapper_that_is_not_callable_is_refused_naming_it():
    with pytest.raises(InvalidTypeError, match="wrap_tool_call must be a function"):
        ToolNode([add], wrap_tool_call="retry")  # type: ignore[arg-type]


def test_a_handler_annotated_with_a_non_exception_is_refused():
    def handle(error: str) -> str:
        return error

    with pytest.raises(ValueError, match="annotate it with an exception class"):
        ToolNode([add], handle_tool_errors=handle)


def test_a_tool_may_return_several_commands_answering_its_call_once():
    class State(MessagesState):
        user: str
        plan: str

    @tool
    def setup(call_id: Annotated[str, InjectedToolCallId]) -> list:
        """Set the user and the plan."""
        return [Command(update={"user": "Ada"}),
                Command(update={"plan": "tea", "messages": [ToolMessage("set", tool_call_id=call_id)]})]

    graph = StateGraph(State).add_node("tools", ToolNode([setup])).add_edge(START, "tools").compile()
    result = graph.invoke({"messages": [calls(("setup", {}, "c1"))], "user": "", "plan": ""})
    assert (result["user"], result["plan"], [m.text for m in result["messages"][1:]]) == ("Ada", "tea", ["set"])


def test_a_list_of_results_that_answers_its_call_twice_is_refused():
    @tool
    def twice(call_id: Annotated[str, InjectedToolCallId]) -> list:
        """Answer twice."""
        return [ToolMessage("a", tool_call_id=call_id), ToolMessage("b", tool_call_id=call_id)]

    with pytest.raises(ValueError, match="2 messages bound to tool_call_id 'c1'"):
        ToolNode([twice], handle_tool_errors=False).invoke({"messages": [calls(("twice", {}, "c1"))]})


# -- tools written as LangChain BaseTool subclasses ------------------------------------------
def test_a_tool_subclass_with_run_is_built_from_keywords_and_its_fields():
    from rag.tools import Tool

    class Fixed(Tool):
        name: str = "fixed"
        description: str = "Return the configured value."
        value: Any = None

        def _run(self) -> Any:
            return self.value

    node = ToolNode([Fixed(value=["a", "b"])])
    assert node.invoke({"messages": [calls(("fixed", {}, "c1"))]})["messages"][0].content == '["a", "b"]'


def test_a_tool_subclass_refuses_a_field_it_does_not_declare():
    from rag.tools import Tool

    class Fixed(Tool):
        name: str = "fixed"
        description: str = "Return the configured value."

        def _run(self) -> str:
            return "x"

    with pytest.raises(ValidationError, match=r"unknown fields \['colour'\]"):
        Fixed(colour="red")


@pytest.mark.parametrize("name", ["rag.agents.injection", "rag.tools.injected", "rag.tools._subclass"])
def test_docstring_examples_run(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0


def test_injected_fields_of_a_pydantic_args_schema_are_hidden_and_filled():
    from pydantic import BaseModel

    class Args(BaseModel):
        text: str
        call_id: Annotated[str, InjectedToolCallId]
        store: Annotated[Any, InjectedStore()]

    @tool(args_schema=Args)
    def note(text: str, call_id: str, store: Any) -> str:
        """Take a note."""
        return f"{call_id}:{text}:{type(store).__name__}"

    assert list(note.args_schema["properties"]) == ["text"]
    graph = StateGraph(MessagesState).add_node("tools", ToolNode([note])).add_edge(START, "tools") \
        .compile(store=InMemoryStore())
    result = graph.invoke({"messages": [calls(("note", {"text": "tea"}, "c7"))]})
    assert result["messages"][-1].content == "c7:tea:InMemoryStore"
