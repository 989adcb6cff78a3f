"""Agents through ChatOpenAI against a real (scripted) OpenAI-compatible server on
127.0.0.1 that answers with tool calls: what goes over the wire each turn."""

import asyncio
import json

import pytest
from chat_completions_server import Reply, ScriptedServer, completion, delta_event

from rag.agents import create_agent
from rag.graph.checkpoint.memory import InMemorySaver
from rag.messages import ToolMessage
from rag.models import ChatOpenAI
from rag.tools import tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def wire_call(call_id, name, arguments):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


@pytest.fixture
def server():
    with ScriptedServer() as running:
        yield running


@pytest.fixture
def model(server):
    llm = ChatOpenAI("test-model", base_url=server.base_url, api_key="sk-test", max_retries=0)
    yield llm
    llm.close()


def test_the_server_gets_the_tools_then_the_tool_results_with_their_call_ids(server, model):
    server.script(Reply(body=completion("", tool_calls=[wire_call("call_1", "add", '{"a": 2, "b": 3}'),
                                                        wire_call("call_2", "add", '{"a": 1, "b": 1}')])),
                  Reply(body=completion("5 and 2.")))
    result = create_agent(model, [add], system_prompt="Use tools.").invoke({"messages": [("human", "2+3, 1+1?")]})
    first, second = server.requests
    assert [t["function"]["name"] for t in first["tools"]] == ["add"]
    assert first["messages"][0] == {"role": "system", "content": "Use tools."}
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "tool", "tool"]
    assert [(m["tool_call_id"], m["content"]) for m in second["messages"][3:]] == [("call_1", "5"), ("call_2", "2")]
    assert [c["id"] for c in second["messages"][2]["tool_calls"]] == ["call_1", "call_2"]
    assert result["messages"][-1].content == "5 and 2."


def test_a_server_that_repeats_its_response_id_does_not_overwrite_the_earlier_turn(server, model):
    server.script(Reply(body=completion("", tool_calls=[wire_call("call_1", "add", '{"a": 2, "b": 3}')])),
                  Reply(body=completion("5.")))
    messages = create_agent(model, [add]).invoke({"messages": [("human", "2+3?")]})["messages"]
    assert [m.type for m in messages] == ["human", "ai", "tool", "ai"]
    assert [m.id for m in messages if m.type == "ai"] == ["chatcmpl-1", "chatcmpl-1-2"]
    assert messages[1].tool_calls[0]["id"] == "call_1"


def test_arguments_that_are_not_json_are_answered_so_the_next_request_is_valid(server, model):
    server.script(Reply(body=completion("", tool_calls=[wire_call("call_1", "add", '{"a": 2, "b": ')])),
                  Reply(body=completion("Let me retry.")))
    result = create_agent(model, [add]).invoke({"messages": [("human", "2+3?")]})
    answer = server.requests[1]["messages"]
    assert answer[1]["tool_calls"][0]["id"] == "call_1"
    assert answer[2]["role"] == "tool" and answer[2]["tool_call_id"] == "call_1"
    assert "could not be parsed" in answer[2]["content"]
    assert isinstance(result["messages"][2], ToolMessage) and result["messages"][2].status == "error"


def test_a_streamed_tool_call_drives_the_agent(server, model):
    pieces = [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "add", "arguments": '{"a": 4,'}},
              {"index": 0, "function": {"arguments": ' "b": 4}'}}]
    first = [delta_event(tool_calls=[pieces[0]]), delta_event(tool_calls=[pieces[1]]), delta_event(finish="tool_calls")]
    second = [{**event, "id": "chatcmpl-3"} for event in
              (delta_event("It is "), delta_event("8."), delta_event(finish="stop"))]
    server.script(Reply(events=[*first, "[DONE]"]), Reply(events=[*second, "[DONE]"]))
    agent = create_agent(model, [add])
    tokens = [chunk.content for chunk, meta in agent.stream({"messages": [("human", "4+4?")]}, stream_mode="messages")
              if meta["langgraph_node"] == "model"]
    assert "".join(tokens) == "It is 8."
    tool_answer = server.requests[1]["messages"][2]
    assert (tool_answer["role"], tool_answer["tool_call_id"], tool_answer["content"]) == ("tool", "call_1", "8")


def test_the_async_agent_keeps_a_thread_across_requests(server, model):
    server.script(Reply(body=completion("", tool_calls=[wire_call("call_1", "add", '{"a": 1, "b": 2}')])),
                  Reply(body=completion("3.")), Reply(body=completion("Yes, 3.")))
    agent = create_agent(model, [add], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}

    async def converse():
        await agent.ainvoke({"messages": [("human", "1+2?")]}, config)
        return await agent.ainvoke({"messages": [("human", "Sure?")]}, config)

    result = asyncio.run(converse())
    assert [m["role"] for m in server.requests[2]["messages"]] == ["user", "assistant", "tool", "assistant", "user"]
    assert json.loads(server.requests[2]["messages"][1]["tool_calls"][0]["function"]["arguments"]) == {"a": 1, "b": 2}
    assert result["messages"][-1].content == "Yes, 3."


def test_an_agent_served_with_add_routes_answers_over_http_with_tool_messages():
    from starlette.applications import Starlette

    from rag.messages import AIMessage
    from rag.models import FakeListChatModel
    from rag.serve import RemoteRunnable, add_routes, serve_in_thread

    model = FakeListChatModel(responses=[
        AIMessage("", tool_calls=[{"name": "add", "args": {"a": 20, "b": 22}, "id": "call_1"}]), "42."])
    app = Starlette()
    add_routes(app, create_agent(model, [add]), path="/agent")
    with serve_in_thread(app) as url:
        out = RemoteRunnable(f"{url}/agent", timeout=30).invoke({"messages": [("human", "20+22?")]})
    assert [m.type for m in out["messages"]] == ["human", "ai", "tool", "ai"]
    assert (out["messages"][2].tool_call_id, out["messages"][2].content) == ("call_1", "42")
    assert out["messages"][1].tool_calls[0]["args"] == {"a": 20, "b": 22}
