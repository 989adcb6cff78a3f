"""create_agent(middleware=...): hooks as nodes, wrappers, state, jumps and bad input."""

import asyncio

import pytest

from rag.agents import create_agent
from rag.agents.middleware import (
    AgentMiddleware, AgentState, ModelResponse, after_model, before_model, dynamic_prompt, hook_config,
    wrap_model_call,
)
from rag.callbacks import BaseCallbackHandler
from rag.errors import InvalidTypeError, ValidationError
from rag.graph.errors import InvalidUpdateError
from rag.messages import AIMessage
from rag.models import GenericFakeChatModel
from rag.tools import tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def model(*replies):
    return GenericFakeChatModel(messages=iter(replies))


CALL = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}])
QUESTION = {"messages": [("human", "1 + 2?")]}


class Names(BaseCallbackHandler):
    def __init__(self):
        self.names = []

    def on_chain_start(self, serialized, inputs, **kwargs):
        self.names.append(kwargs.get("name") or (serialized or {}).get("name"))


def test_each_hook_is_a_node_of_the_graph_and_a_run_in_the_trace():
    @before_model
    def note(state, runtime):
        return None

    agent = create_agent(model(CALL, "3"), [add], middleware=[note])
    assert {"note.before_model", "model", "tools"} <= set(agent.get_graph().nodes)
    names = Names()
    agent.invoke(QUESTION, {"callbacks": [names]})
    assert names.names.count("note.before_model") == 2  # once per round


def test_a_hook_update_goes_through_the_reducers():
    @after_model
    def tag(state, runtime):
        return {"messages": [AIMessage("(checked)")]}

    out = create_agent(model("3"), [add], middleware=[tag]).invoke(QUESTION)
    assert [m.text for m in out["messages"]] == ["1 + 2?", "3", "(checked)"]


def test_a_dynamic_prompt_is_put_before_the_conversation():
    seen = []

    @wrap_model_call
    def spy(request, handler):
        seen.append(request.system_prompt)
        return handler(request)

    @dynamic_prompt
    def prompt(request):
        return f"{len(request.messages)} messages so far."

    create_agent(model(CALL, "3"), [add], middleware=[prompt, spy]).invoke(QUESTION)
    assert seen == ["1 messages so far.", "3 messages so far."]


def test_a_wrapper_can_change_the_request_tools():
    offered = []

    class NoTools(AgentMiddleware):
        def wrap_model_call(self, request, handler):
            response = handler(request.override(tools=[]))
            offered.append(len(request.tools))
            return response

    out = create_agent(model("No tools needed."), [add], middleware=[NoTools()]).invoke(QUESTION)
    assert offered == [1] and out["messages"][-1].text == "No tools needed."


def test_a_middleware_tool_is_offered_and_run():
    @tool
    def double(x: int) -> int:
        """Double x."""
        return 2 * x

    class Doubler(AgentMiddleware):
        tools = [double]

        def before_model(self, state, runtime):
            return None

    call = AIMessage("", tool_calls=[{"name": "double", "args": {"x": 4}, "id": "d1"}])
    out = create_agent(model(call, "8"), [], middleware=[Doubler()]).invoke(QUESTION)
    assert out["messages"][2].text == "8" and out["messages"][2].status == "success"


def test_an_async_only_hook_runs_on_the_async_path_and_refuses_the_sync_one():
    class Later(AgentMiddleware):
        async def abefore_model(self, state, runtime):
            return {"messages": [AIMessage("async note")]}

    agent = create_agent(model("3", "3"), [add], middleware=[Later()])
    out = asyncio.run(agent.ainvoke(QUESTION))
    assert [m.text for m in out["messages"]] == ["1 + 2?", "async note", "3"]
    with pytest.raises(NotImplementedError, match="abefore_model"):
        agent.invoke(QUESTION)


def test_a_sync_only_wrapper_refuses_the_async_path_with_the_fix():
    class SyncOnly(AgentMiddleware):
        def wrap_model_call(self, request, handler):
            return handler(request)

    with pytest.raises(NotImplementedError, match="awrap_model_call"):
        asyncio.run(create_agent(model("3"), [add], middleware=[SyncOnly()]).ainvoke(QUESTION))


def test_an_extended_response_command_updates_the_state():
    from rag.agents.middleware import ExtendedModelResponse
    from rag.graph import Command

    class Flag(AgentMiddleware):
        state_schema = type("FlagState", (AgentState,), {"__annotations__": {"flagged": bool}})

        def wrap_model_call(self, request, handler):
            return ExtendedModelResponse(handler(request), Command(update={"flagged": True}))

    out = create_agent(model("3"), [add], middleware=[Flag()]).invoke(QUESTION)
    assert out["flagged"] is True


# -- bad input ------------------------------------------------------------------------------
def test_a_middleware_without_any_hook_is_refused():
    class Empty(AgentMiddleware):
        pass

    with pytest.raises(ValidationError, match="'Empty' defines no hook"):
        create_agent(model("x"), [add], middleware=[Empty()])


def test_two_middleware_of_one_class_are_refused():
    class Note(AgentMiddleware):
        def before_model(self, state, runtime):
            return None

    with pytest.raises(ValidationError, match="two middleware are named 'Note'"):
        create_agent(model("x"), [add], middleware=[Note(), Note()])


def test_a_non_middleware_item_is_refused():
    with pytest.raises(InvalidTypeError, match="AgentMiddleware instances"):
        create_agent(model("x"), [add], middleware=[lambda state: None])


def test_a_jump_to_an_unknown_node_is_a_clear_error():
    class Lost(AgentMiddleware):
        @hook_config(can_jump_to=["end"])
        def before_model(self, state, runtime):
            return {"jump_to": "nowhere"}

    with pytest.raises(InvalidUpdateError, match=r"Lost.before_model returned jump_to='nowhere'.*one of \['model', 'tools', 'end'\]"):
        create_agent(model("x"), [add], middleware=[Lost()]).invoke(QUESTION)


def test_a_jump_the_hook_did_not_declare_is_a_clear_error():
    class Undeclared(AgentMiddleware):
        def after_model(self, state, runtime):
            return {"jump_to": "end"}

    with pytest.raises(InvalidUpdateError, match="declares no can_jump_to"):
        create_agent(model("x"), [add], middleware=[Undeclared()]).invoke(QUESTION)


def test_a_wrapper_returning_something_else_is_a_clear_error():
    class Odd(AgentMiddleware):
        def wrap_model_call(self, request, handler):
            return "text"

    with pytest.raises(InvalidTypeError, match="Odd.wrap_model_call must return a ModelResponse"):
        create_agent(model("x"), [add], middleware=[Odd()]).invoke(QUESTION)


def test_the_model_call_cap_still_holds_with_middleware():
    @before_model
    def note(state, runtime):
        return None

    calls = [AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": i}, "id": f"c{i}"}]) for i in range(5)]
    out = create_agent(model(*calls), [add], middleware=[note], max_model_calls=3).invoke(QUESTION)
    assert sum(1 for m in out["messages"] if m.type == "ai") == 3
    assert not out["messages"][-1].tool_calls


def test_a_model_response_with_several_messages_adds_them_all():
    class Two(AgentMiddleware):
        def wrap_model_call(self, request, handler):
            response = handler(request)
            return ModelResponse([*response.result, AIMessage("P.S.")])

    out = create_agent(model("3"), [add], middleware=[Two()]).invoke(QUESTION)
    assert [m.text for m in out["messages"]] == ["1 + 2?", "3", "P.S."]


# -- the default cap, as middleware ----------------------------------------------------------
def test_the_default_cap_is_a_visible_middleware_first_in_the_list():
    from rag.agents.middleware import ModelCallCapMiddleware

    @before_model
    def note(state, runtime):
        return None

    from rag.agents.middleware import ToolErrorMessagesMiddleware

    agent = create_agent(model("x"), [add], middleware=[note], max_model_calls=7)
    cap, errors, third = agent.middleware
    assert isinstance(cap, ModelCallCapMiddleware) and cap.max_model_calls == 7 and third is note
    assert isinstance(errors, ToolErrorMessagesMiddleware) and errors.handle_tool_errors is True
    assert "ModelCallCapMiddleware" not in " ".join(agent.get_graph().nodes)  # a wrapper: no node


def test_a_cap_of_your_own_replaces_the_default():
    from rag.agents.errors import ModelCallLimitExceededError
    from rag.agents.middleware import ModelCallCapMiddleware

    calls = [AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": i}, "id": f"c{i}"}]) for i in range(5)]
    cap = ModelCallCapMiddleware(max_model_calls=2, on_limit="error")
    agent = create_agent(model(*calls), [add], middleware=[cap])
    assert agent.middleware[0] is not cap and agent.middleware[-1] is cap and len(agent.middleware) == 2
    with pytest.raises(ModelCallLimitExceededError, match=r"\(2/2\)"):
        agent.invoke(QUESTION)


def test_a_larger_cap_of_your_own_raises_the_step_limit_with_it():
    from rag.agents.middleware import ModelCallCapMiddleware

    calls = [AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": i}, "id": f"c{i}"}]) for i in range(40)]
    out = create_agent(model(*calls, "done"), [add], middleware=[ModelCallCapMiddleware(60)]).invoke(QUESTION)
    assert out["messages"][-1].text == "done"


def raising_agent(**kwargs):
    @tool
    def divide(a: int, b: int) -> float:
        """Divide a by b."""
        return a / b

    call = AIMessage("", tool_calls=[{"name": "divide", "args": {"a": 1, "b": 0}, "id": "d1"}])
    return create_agent(model(call, "Cannot divide by zero."), [divide], **kwargs)


def test_a_raising_tool_answers_with_an_error_message_by_default_as_a_middleware():
    @before_model
    def note(state, runtime):
        return None

    out = raising_agent(middleware=[note]).invoke(QUESTION)
    assert out["messages"][2].status == "error"
    assert out["messages"][2].text == "Error: ZeroDivisionError('division by zero')\n Please fix your mistakes."


def test_tool_errors_can_be_replaced_or_turned_off():
    from rag.agents.middleware import ToolErrorMessagesMiddleware

    @before_model
    def note(state, runtime):
        return None

    out = raising_agent(middleware=[note, ToolErrorMessagesMiddleware("That failed.")]).invoke(QUESTION)
    assert out["messages"][2].text == "That failed."
    with pytest.raises(ZeroDivisionError):
        raising_agent(middleware=[note], handle_tool_errors=False).invoke(QUESTION)


def _three_messages():
    from rag.messages import HumanMessage

    return {"messages": [HumanMessage("hi", id="h0"), AIMessage("hello", id="a0"), HumanMessage("more", id="h1")]}


def test_summarization_awaits_an_async_summarizer_on_the_async_path():
    from rag.agents.middleware import SummarizationMiddleware

    async def summarize(messages):
        return f"{len(messages)} messages"

    middleware = SummarizationMiddleware(GenericFakeChatModel(messages=iter([])), trigger=("messages", 3),
                                         keep=("messages", 1), summarizer=summarize)
    update = asyncio.run(middleware.abefore_model(_three_messages(), None))
    assert update["messages"][1].text.endswith("2 messages")


def test_summarization_refuses_an_async_summarizer_on_the_sync_path():
    from rag.agents.middleware import SummarizationMiddleware

    async def summarize(messages):
        return "never"

    middleware = SummarizationMiddleware(GenericFakeChatModel(messages=iter([])), trigger=("messages", 3),
                                         keep=("messages", 1), summarizer=summarize)
    with pytest.raises(TypeError, match="coroutine function synchronously"):
        middleware.before_model(_three_messages(), None)


def test_keys_omitted_from_input_do_not_reach_the_hooks():
    from typing import Annotated

    from rag.agents.middleware import OmitFromInput, PrivateStateAttr

    class Notes(AgentState, total=False):
        draft: Annotated[str, OmitFromInput]
        secret: Annotated[str, PrivateStateAttr]

    seen = []

    class Look(AgentMiddleware):
        state_schema = Notes

        def before_model(self, state, runtime):
            seen.append(sorted(key for key in ("draft", "secret") if key in state))
            return {"draft": "written", "secret": "kept"}

    out = create_agent(model("done"), [], middleware=[Look()]).invoke(
        {**QUESTION, "draft": "from the caller", "secret": "from the caller"})
    assert seen == [[]]
    assert out["draft"] == "written" and "secret" not in out
