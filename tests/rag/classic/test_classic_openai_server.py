"""Classic agents through ChatOpenAI against a scripted OpenAI-compatible server on
127.0.0.1: what AgentExecutor sends over the wire each step."""

import pytest
from chat_completions_server import Reply, ScriptedServer, completion, delta_event

from rag.classic.agents import AgentExecutor, create_react_agent, create_tool_calling_agent
from rag.models import ChatOpenAI
from rag.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate
from rag.tools import tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def shout(text: str) -> str:
    """Say it loudly."""
    return text.upper()


@pytest.fixture
def server():
    with ScriptedServer() as running:
        yield running


@pytest.fixture
def model(server):
    llm = ChatOpenAI("test-model", base_url=server.base_url, api_key="sk-test", max_retries=0)
    yield llm
    llm.close()


def wire_call(call_id, name, arguments):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


PROMPT = ChatPromptTemplate.from_messages([("system", "Use tools."), ("human", "{input}"),
                                           MessagesPlaceholder("agent_scratchpad")])


def test_the_tool_calling_agent_sends_tools_then_the_results_with_their_call_ids(server, model):
    server.script(Reply(body=completion("", tool_calls=[wire_call("call_1", "add", '{"a": 2, "b": 3}'),
                                                        wire_call("call_2", "add", '{"a": 1, "b": 1}')])),
                  Reply(body=completion("5 and 2.")))
    executor = AgentExecutor(agent=create_tool_calling_agent(model, [add], PROMPT), tools=[add], stream_runnable=False,
                             return_intermediate_steps=True)
    out = executor.invoke({"input": "2+3, 1+1?"})
    first, second = server.requests
    assert [t["function"]["name"] for t in first["tools"]] == ["add"]
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "tool", "tool"]
    assert [(m["tool_call_id"], m["content"]) for m in second["messages"][3:]] == [("call_1", "5"), ("call_2", "2")]
    assert out["output"] == "5 and 2." and [o for _, o in out["intermediate_steps"]] == [5, 2]


def test_a_streamed_tool_call_drives_the_executor(server, model):
    pieces = [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "add", "arguments": '{"a": 4,'}},
              {"index": 0, "function": {"arguments": ' "b": 4}'}}]
    first = [delta_event(tool_calls=[pieces[0]]), delta_event(tool_calls=[pieces[1]]), delta_event(finish="tool_calls")]
    second = [{**event, "id": "chatcmpl-3"} for event in (delta_event("It is "), delta_event("8."),
                                                          delta_event(finish="stop"))]
    server.script(Reply(events=[*first, "[DONE]"]), Reply(events=[*second, "[DONE]"]))
    executor = AgentExecutor(agent=create_tool_calling_agent(model, [add], PROMPT), tools=[add])
    chunks = list(executor.stream({"input": "4+4?"}))
    assert [sorted(c) for c in chunks] == [["actions", "messages"], ["messages", "steps"], ["messages", "output"]]
    assert chunks[-1]["output"] == "It is 8."
    assert server.requests[1]["messages"][-1]["tool_call_id"] == "call_1"


def test_the_react_agent_sends_its_stop_word_and_scratchpad(server, model):
    server.script(Reply(body=completion("Thought: loud\nAction: shout\nAction Input: hi")),
                  Reply(body=completion("Final Answer: HI")))
    prompt = PromptTemplate.from_template("{tools}\n{tool_names}\nQ: {input}\n{agent_scratchpad}")
    executor = AgentExecutor(agent=create_react_agent(model, [shout], prompt), tools=[shout], stream_runnable=False)
    assert executor.invoke({"input": "shout hi"})["output"] == "HI"
    first, second = server.requests
    assert first["stop"] == ["\nObservation"]
    assert second["messages"][0]["content"].endswith("Action Input: hi\nObservation: HI\nThought: ")
