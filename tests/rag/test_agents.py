"""create_agent / create_react_agent / ToolNode: the agent loop, its message shapes and its
safer defaults, driven by scripted fake models."""

import asyncio
import threading

import pytest

from rag.agents import (
    ModelCallLimitExceededError,
    ToolInvocationError,
    ToolNode,
    create_agent,
    create_react_agent,
    tools_condition,
)
from rag.errors import ValidationError
from rag.graph.checkpoint.memory import InMemorySaver
from rag.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from rag.models import GenericFakeChatModel
from rag.tools import Tool, tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b


def calls(*specs):
    """An AIMessage calling tools: specs are (name, args, id)."""
    return AIMessage("", tool_calls=[{"name": n, "args": a, "id": i} for n, a, i in specs])


class Recording(GenericFakeChatModel):
    """A scripted model that remembers what each call saw: the messages and the tools offered."""

    def __init__(self, *, messages):
        super().__init__(messages=messages)
        self.seen = []

    def _generate(self, messages, stop=None, **kwargs):
        self.seen.append({"messages": list(messages), "tools": [t["function"]["name"] for t in kwargs.get("tools", [])]})
        return super()._generate(messages, stop, **kwargs)


def shape(messages):
    return [(m.type, m.text, [(c["name"], c["args"], c["id"]) for c in getattr(m, "tool_calls", [])],
             getattr(m, "tool_call_id", None), getattr(m, "status", None)) for m in messages]


# -- the loop ------------------------------------------------------------------------------
def test_agent_runs_tools_and_returns_the_whole_conversation():
    model = GenericFakeChatModel(messages=iter([calls(("add", {"a": 2, "b": 3}, "c1")), "It is 5."]))
    result = create_agent(model, [add]).invoke({"messages": [("human", "2 + 3?")]})
    assert shape(result["messages"]) == [
        ("human", "2 + 3?", [], None, None),
        ("ai", "", [("add", {"a": 2, "b": 3}, "c1")], None, None),
        ("tool", "5", [], "c1", "success"),
        ("ai", "It is 5.", [], None, None),
    ]
    assert set(result) == {"messages"}


def test_system_prompt_comes_first_on_every_model_call_but_is_not_stored():
    model = Recording(messages=iter([calls(("add", {"a": 1, "b": 1}, "c1")), "2"]))
    result = create_agent(model, [add], system_prompt="Use the tools.").invoke({"messages": [("human", "1+1")]})
    assert [type(s["messages"][0]) for s in model.seen] == [SystemMessage, SystemMessage]
    assert model.seen[0]["messages"][0].content == "Use the tools."
    assert not any(isinstance(m, SystemMessage) for m in result["messages"])


def test_the_model_is_offered_the_tools_by_name():
    model = Recording(messages=iter(["no tools needed"]))
    create_agent(model, [add, divide]).invoke({"messages": [("human", "hi")]})
    assert model.seen[0]["tools"] == ["add", "divide"]


def test_parallel_tool_calls_run_at_the_same_time():
    # Each call waits at a barrier for the other: run one after the other, the first would
    # time out (BrokenBarrierError) and come back as an error ToolMessage.
    barrier = threading.Barrier(2, timeout=20)

    @tool
    def meet(who: str) -> str:
        """Wait for the other caller."""
        barrier.wait()
        return f"met {who}"

    model = GenericFakeChatModel(messages=iter([calls(("meet", {"who": "a"}, "c1"), ("meet", {"who": "b"}, "c2")), "ok"]))
    result = create_agent(model, [meet]).invoke({"messages": [("human", "go")]})
    tool_messages = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert [(m.tool_call_id, m.content, m.status) for m in tool_messages] == [
        ("c1", "met a", "success"), ("c2", "met b", "success")]


def test_parallel_tool_calls_run_at_the_same_time_on_the_async_path():
    both_started = asyncio.Event()
    started = []

    @tool
    async def meet(who: str) -> str:
        """Wait for the other caller."""
        started.append(who)
        if len(started) == 2:
            both_started.set()
        await asyncio.wait_for(both_started.wait(), 20)
        return f"met {who}"

    model = GenericFakeChatModel(messages=iter([calls(("meet", {"who": "a"}, "c1"), ("meet", {"who": "b"}, "c2")), "ok"]))
    result = asyncio.run(create_agent(model, [meet]).ainvoke({"messages": [("human", "go")]}))
    assert [m.content for m in result["messages"] if isinstance(m, ToolMessage)] == ["met a", "met b"]


def test_max_concurrency_one_runs_tool_calls_in_order():
    order = []

    @tool
    def note(x: str) -> str:
        """Note x."""
        order.append(x)
        return x

    model = GenericFakeChatModel(messages=iter([calls(*[("note", {"x": str(i)}, f"c{i}") for i in range(5)]), "ok"]))
    create_agent(model, [note]).invoke({"messages": [("human", "go")]}, {"max_concurrency": 1})
    assert order == ["0", "1", "2", "3", "4"]


def test_a_checkpointer_keeps_the_conversation_per_thread_id():
    model = Recording(messages=iter(["Hello Ada.", "Your name is Ada.", "I do not know your name."]))
    agent = create_agent(model, [add], checkpointer=InMemorySaver())
    ada = {"configurable": {"thread_id": "ada"}}
    agent.invoke({"messages": [("human", "I am Ada.")]}, ada)
    second = agent.invoke({"messages": [("human", "Who am I?")]}, ada)
    agent.invoke({"messages": [("human", "Who am I?")]}, {"configurable": {"thread_id": "other"}})
    assert [m.text for m in second["messages"]] == ["I am Ada.", "Hello Ada.", "Who am I?", "Your name is Ada."]
    assert [m.text for m in model.seen[2]["messages"]] == ["Who am I?"]
    assert agent.get_state(ada).values["messages"][-1].text == "Your name is Ada."


def test_stream_updates_name_the_model_and_tools_nodes():
    model = GenericFakeChatModel(messages=iter([calls(("add", {"a": 1, "b": 2}, "c1")), "3"]))
    chunks = list(create_agent(model, [add]).stream({"messages": [("human", "1+2")]}, stream_mode="updates"))
    assert [list(c) for c in chunks] == [["model"], ["tools"], ["model"]]
    assert chunks[1]["tools"]["messages"][0].content == "3"


def test_create_react_agent_names_its_model_node_agent_and_takes_a_prompt():
    model = Recording(messages=iter([calls(("add", {"a": 1, "b": 2}, "c1")), "3"]))
    agent = create_react_agent(model, [add], prompt="Be terse.")
    chunks = list(agent.stream({"messages": [("human", "1+2")]}, stream_mode="updates"))
    assert [list(c) for c in chunks] == [["agent"], ["tools"], ["agent"]]
    assert model.seen[0]["messages"][0].content == "Be terse."


def test_create_react_agent_prompt_may_be_a_function_of_the_state():
    model = Recording(messages=iter(["ok"]))
    agent = create_react_agent(model, [add], prompt=lambda state: [SystemMessage("n=" + str(len(state["messages"]))),
                                                                  *state["messages"]])
    agent.invoke({"messages": [("human", "hi")]})
    assert model.seen[0]["messages"][0].content == "n=1"


def test_a_return_direct_tool_ends_the_run_with_its_result():
    lookup = Tool("lookup", lambda tool_input: f"found {tool_input}", "Look it up.", return_direct=True)
    model = Recording(messages=iter([AIMessage("", tool_calls=[{"name": "lookup", "args": {"tool_input": "x"},
                                                                "id": "c1"}])]))
    result = create_agent(model, [lookup]).invoke({"messages": [("human", "find x")]})
    assert result["messages"][-1].content == "found x" and len(model.seen) == 1


def test_an_agent_without_tools_answers_once():
    model = Recording(messages=iter(["Just an answer."]))
    result = create_agent(model).invoke({"messages": [("human", "hi")]})
    assert [m.text for m in result["messages"]] == ["hi", "Just an answer."]
    assert model.seen[0]["tools"] == []


# -- the model-call cap ------------------------------------------------------------------
def looping(n):
    return iter([calls(("add", {"a": i, "b": 1}, f"c{i}")) for i in range(n)])


def test_the_cap_defaults_to_25_model_calls_and_the_last_one_is_offered_no_tools():
    model = Recording(messages=iter([*looping(24), "Final: I could not finish."]))
    result = create_agent(model, [add]).invoke({"messages": [("human", "loop")]})
    assert len(model.seen) == 25
    assert model.seen[-1]["tools"] == [] and all(s["tools"] == ["add"] for s in model.seen[:-1])
    assert "limit of 25 model calls" in model.seen[-1]["messages"][-1].content
    assert result["messages"][-1].content == "Final: I could not finish."


def test_a_final_call_that_still_asks_for_tools_has_them_dropped():
    model = Recording(messages=looping(3))
    result = create_agent(model, [add], max_model_calls=3).invoke({"messages": [("human", "loop")]})
    last = result["messages"][-1]
    assert isinstance(last, AIMessage) and last.tool_calls == []
    assert last.response_metadata["dropped_tool_calls"] == ["add"]
    assert "3 model calls" in last.content


def test_on_model_call_limit_error_raises_a_typed_error_instead_of_a_call_past_the_cap():
    model = Recording(messages=looping(10))
    agent = create_agent(model, [add], max_model_calls=4, on_model_call_limit="error", checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(ModelCallLimitExceededError, match=r"4/4") as caught:
        agent.invoke({"messages": [("human", "loop")]}, config)
    assert (caught.value.limit, caught.value.calls, len(model.seen)) == (4, 4, 4)
    assert isinstance(caught.value, RuntimeError)
    kept = agent.get_state(config).values["messages"]
    assert isinstance(kept[-1], ToolMessage) and kept[-1].tool_call_id == "c3"


def test_the_cap_counts_the_calls_of_the_current_request_only():
    model = Recording(messages=iter([*looping(2), "a", *looping(2), "b"]))
    agent = create_agent(model, [add], max_model_calls=3, on_model_call_limit="error", checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    agent.invoke({"messages": [("human", "one")]}, config)
    assert agent.invoke({"messages": [("human", "two")]}, config)["messages"][-1].content == "b"


@pytest.mark.parametrize("bad", [0, -1, True, 2.5])
def test_max_model_calls_must_be_a_positive_int(bad):
    with pytest.raises(ValidationError, match="max_model_calls"):
        create_agent(GenericFakeChatModel(messages=iter([])), [add], max_model_calls=bad)


def test_on_model_call_limit_must_be_one_of_the_two_choices():
    with pytest.raises(ValidationError, match="final_answer"):
        create_agent(GenericFakeChatModel(messages=iter([])), [add], on_model_call_limit="end")


# -- tool errors become messages the model can react to ------------------------------------
def test_a_tool_that_raises_becomes_an_error_tool_message_and_the_model_goes_on():
    model = Recording(messages=iter([calls(("divide", {"a": 1, "b": 0}, "c1")), "Cannot divide by zero."]))
    result = create_agent(model, [divide]).invoke({"messages": [("human", "1/0")]})
    error = result["messages"][2]
    assert (error.status, error.tool_call_id, error.name) == ("error", "c1", "divide")
    assert "ZeroDivisionError" in error.content
    assert model.seen[1]["messages"][-1] is error or model.seen[1]["messages"][-1].content == error.content


def test_handle_tool_errors_false_lets_the_exception_out():
    model = GenericFakeChatModel(messages=iter([calls(("divide", {"a": 1, "b": 0}, "c1")), "never"]))
    with pytest.raises(ZeroDivisionError):
        create_agent(model, [divide], handle_tool_errors=False).invoke({"messages": [("human", "1/0")]})


def test_handle_tool_errors_may_be_a_message_or_a_function():
    call = calls(("divide", {"a": 1, "b": 0}, "c1"))
    assert ToolNode([divide], handle_tool_errors="nope").invoke([call])[0].content == "nope"
    text = ToolNode([divide], handle_tool_errors=lambda e: f"got {type(e).__name__}").invoke([call])[0].content
    assert text == "got ZeroDivisionError"


def test_handle_tool_errors_with_exception_classes_handles_only_those():
    call = calls(("divide", {"a": 1, "b": 0}, "c1"))
    assert ToolNode([divide], handle_tool_errors=(ZeroDivisionError,)).invoke([call])[0].status == "error"
    with pytest.raises(ZeroDivisionError):
        ToolNode([divide], handle_tool_errors=KeyError).invoke([call])


def test_an_unknown_tool_name_is_answered_with_the_tools_there_are():
    message = ToolNode([add, divide]).invoke([calls(("multiply", {"a": 1}, "c1"))])[0]
    assert message.status == "error"
    assert message.content == "Error: multiply is not a valid tool, try one of [add, divide]."


def test_arguments_that_do_not_fit_the_schema_are_answered_naming_each_problem():
    message = ToolNode([add]).invoke([calls(("add", {"a": "one", "c": 2}, "c1"))])[0]
    assert message.status == "error" and message.tool_call_id == "c1"
    assert "missing required argument 'b'" in message.content
    assert "unexpected argument 'c'" in message.content
    assert "argument 'a' must be integer" in message.content


def test_unfitting_arguments_raise_tool_invocation_error_when_errors_are_not_handled():
    with pytest.raises(ToolInvocationError, match="missing required argument 'b'"):
        ToolNode([add], handle_tool_errors=False).invoke([calls(("add", {"a": 1}, "c1"))])


def test_a_tool_call_whose_arguments_are_not_json_is_answered_too():
    broken = AIMessage("", invalid_tool_calls=[{"name": "add", "args": "{'a': 1", "id": "c9", "error": "bad JSON"}])
    assert tools_condition([broken]) == "tools"
    message = ToolNode([add]).invoke([broken])[0]
    assert (message.status, message.tool_call_id) == ("error", "c9")
    assert "could not be parsed" in message.content and "{'a': 1" in message.content


def test_tool_node_keeps_the_order_of_the_calls_whatever_finishes_first():
    gate = threading.Event()

    @tool
    def slow(x: str) -> str:
        """Wait for the fast one."""
        gate.wait(20)
        return "slow"

    @tool
    def fast(x: str) -> str:
        """Finish first."""
        gate.set()
        return "fast"

    out = ToolNode([slow, fast]).invoke({"messages": [calls(("slow", {"x": ""}, "c1"), ("fast", {"x": ""}, "c2"))]})
    assert [m.content for m in out["messages"]] == ["slow", "fast"]


def test_tools_condition_routes_on_the_last_message():
    assert tools_condition({"messages": [HumanMessage("hi"), calls(("add", {}, "c1"))]}) == "tools"
    assert tools_condition({"messages": [HumanMessage("hi"), AIMessage("done")]}) == "__end__"


# -- bad input -------------------------------------------------------------------------------
def test_two_tools_with_one_name_are_refused_naming_it():
    other = Tool("add", lambda tool_input: tool_input, "Another add.")
    with pytest.raises(ValidationError, match="two tools are named 'add'"):
        create_agent(GenericFakeChatModel(messages=iter([])), [add, other])


def test_a_tool_without_a_description_is_refused_naming_it():
    blank = Tool("blank", lambda tool_input: tool_input, "")
    with pytest.raises(ValidationError, match="tool 'blank' has no description"):
        ToolNode([blank])


def test_a_function_without_a_docstring_is_refused_as_a_tool():
    def undocumented(x: int) -> int:
        return x

    with pytest.raises(ValidationError, match="no docstring"):
        create_agent(GenericFakeChatModel(messages=iter([])), [undocumented])


def test_a_model_name_string_is_refused_with_what_to_pass_instead():
    with pytest.raises(TypeError, match="ChatOpenAI"):
        create_agent("openai:gpt-4o", [add])


def test_a_middleware_item_that_is_not_a_middleware_is_refused_rather_than_ignored():
    from rag.errors import InvalidTypeError

    with pytest.raises(InvalidTypeError, match="middleware items must be AgentMiddleware"):
        create_agent(GenericFakeChatModel(messages=iter([])), [add], middleware=[object()])


@pytest.mark.parametrize("name", ["rag.agents", "rag.agents.tool_node", "rag.agents.factory", "rag.agents.sources",
                                  "rag.models.fake_generic", "rag.models.fake"])
def test_docstring_examples_run(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0


def test_interrupt_before_tools_lets_a_person_approve_the_calls_then_resume():
    model = Recording(messages=iter([calls(("add", {"a": 2, "b": 2}, "c1")), "4"]))
    agent = create_agent(model, [add], checkpointer=InMemorySaver(), interrupt_before=["tools"])
    config = {"configurable": {"thread_id": "t"}}
    paused = agent.invoke({"messages": [("human", "2+2")]}, config)
    assert paused["messages"][-1].tool_calls[0]["args"] == {"a": 2, "b": 2}
    assert agent.get_state(config).next == ("tools",)
    assert agent.invoke(None, config)["messages"][-1].content == "4"


def test_create_react_agent_accepts_a_model_with_tools_already_bound():
    model = Recording(messages=iter([calls(("add", {"a": 1, "b": 1}, "c1")), "2"]))
    result = create_react_agent(model.bind_tools([add]), [add]).invoke({"messages": [("human", "1+1")]})
    assert result["messages"][-1].content == "2" and model.seen[0]["tools"] == ["add"]


def test_provider_tool_dicts_are_offered_to_the_model_but_not_run_here():
    web_search = {"type": "function", "function": {"name": "web_search", "description": "Search the web.",
                                                   "parameters": {"type": "object", "properties": {}}}}
    model = Recording(messages=iter([calls(("web_search", {}, "c1")), "ok"]))
    result = create_agent(model, [add, web_search]).invoke({"messages": [("human", "hi")]})
    assert model.seen[0]["tools"] == ["add", "web_search"]
    assert result["messages"][2].status == "error" and "web_search is not a valid tool" in result["messages"][2].content


def test_a_prompt_template_as_prompt_fills_from_the_state():
    from rag.prompts import ChatPromptTemplate, MessagesPlaceholder

    prompt = ChatPromptTemplate.from_messages([("system", "You help with arithmetic."), MessagesPlaceholder("messages")])
    model = Recording(messages=iter(["ok"]))
    create_react_agent(model, [add], prompt=prompt).invoke({"messages": [("human", "hi")]})
    assert [(m.type, m.text) for m in model.seen[0]["messages"]] == [("system", "You help with arithmetic."),
                                                                      ("human", "hi")]


def test_streaming_messages_gives_the_scripted_tokens_and_the_tool_results():
    model = GenericFakeChatModel(messages=iter([calls(("add", {"a": 1, "b": 2}, "c1")), "The sum is 3."]))
    events = list(create_agent(model, [add]).stream({"messages": [("human", "1+2")]}, stream_mode="messages"))
    by_node = [(meta["langgraph_node"], chunk.type, chunk.text) for chunk, meta in events]
    assert ("tools", "tool", "3") in by_node
    assert "".join(text for node, kind, text in by_node if node == "model") == "The sum is 3."
    streamed_call = [chunk for chunk, meta in events if getattr(chunk, "tool_call_chunks", None)]
    assert streamed_call and streamed_call[0].tool_call_chunks[0]["name"] == "add"


def test_a_handler_function_annotated_with_exception_classes_handles_only_those():
    def only_zero_division(error: ZeroDivisionError) -> str:
        return "cannot divide by zero"

    call = calls(("divide", {"a": 1, "b": 0}, "c1"))
    assert ToolNode([divide], handle_tool_errors=only_zero_division).invoke([call])[0].content == "cannot divide by zero"

    def only_key_errors(error: KeyError) -> str:
        return "missing key"

    with pytest.raises(ZeroDivisionError):
        ToolNode([divide], handle_tool_errors=only_key_errors).invoke([call])


def test_a_tool_that_calls_interrupt_pauses_the_agent_until_a_person_answers():
    from rag.graph.types import Command, interrupt

    @tool
    def send_email(to: str) -> str:
        """Send an email after a person approves it."""
        verdict = interrupt({"send email to": to})
        return f"sent to {to}" if verdict == "yes" else "not sent"

    model = GenericFakeChatModel(messages=iter([calls(("send_email", {"to": "ada@example.com"}, "c1")), "Done."]))
    agent = create_agent(model, [send_email], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    paused = agent.invoke({"messages": [("human", "Email Ada.")]}, config)
    assert paused["__interrupt__"][0].value == {"send email to": "ada@example.com"}
    result = agent.invoke(Command(resume="yes"), config)
    assert [m.text for m in result["messages"][2:]] == ["sent to ada@example.com", "Done."]


def test_interrupt_works_from_a_tool_running_beside_others_in_one_step():
    from rag.graph.types import Command, interrupt

    @tool
    def approve(item: str) -> str:
        """Ask a person to approve an item."""
        return f"{item}: {interrupt(item)}"

    model = GenericFakeChatModel(messages=iter([
        calls(("add", {"a": 1, "b": 1}, "c1"), ("approve", {"item": "refund"}, "c2")), "Done."]))
    agent = create_agent(model, [add, approve], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    assert agent.invoke({"messages": [("human", "go")]}, config)["__interrupt__"][0].value == "refund"
    result = agent.invoke(Command(resume="approved"), config)
    assert [m.text for m in result["messages"][2:]] == ["2", "refund: approved", "Done."]
