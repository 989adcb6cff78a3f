"""ChatOpenAI against a real (scripted) OpenAI-compatible HTTP server on 127.0.0.1."""

import asyncio
import logging
import traceback

import pytest
from chat_completions_server import Reply, ScriptedServer, completion, delta_event

from rag.errors import ValidationError
from rag.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage
from rag.models import (
    APIConnectionError,
    APIResponseValidationError,
    AuthenticationError,
    Backoff,
    ChatOpenAI,
    InternalServerError,
    RateLimitError,
)
from rag.parsers import StrOutputParser
from rag.prompts import ChatPromptTemplate

KEY = "sk-test-SECRET-0123456789"


class Clock:
    """Records the waits instead of sleeping."""

    def __init__(self):
        self.waits = []

    def sleep(self, seconds):
        self.waits.append(seconds)

    async def asleep(self, seconds):
        self.waits.append(seconds)


@pytest.fixture
def server():
    with ScriptedServer() as running:
        yield running


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def llm(server, clock):
    model = ChatOpenAI("test-model", base_url=server.base_url, api_key=KEY, max_retries=2,
                       backoff=Backoff(sleep=clock.sleep, asleep=clock.asleep, rand=lambda: 0.0))
    yield model
    model.close()


def test_invoke_returns_the_reply_with_usage_and_metadata(server, llm):
    server.script(Reply(body=completion("Paris.")))
    reply = llm.invoke("Capital of France?")
    assert isinstance(reply, AIMessage) and reply.content == "Paris."
    assert reply.usage_metadata == {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}
    assert reply.response_metadata["finish_reason"] == "stop" and reply.id == "chatcmpl-1"


def test_the_request_carries_model_messages_settings_and_the_key(server, clock):
    server.script(Reply(body=completion()))
    model = ChatOpenAI("m1", base_url=server.base_url, api_key=KEY, temperature=0.2, max_tokens=5,
                       model_kwargs={"seed": 1})
    model.invoke([SystemMessage("Be brief."), ("human", "hi")], stop=["\n"])
    body = server.requests[0]
    assert body == {"model": "m1", "messages": [{"role": "system", "content": "Be brief."},
                                                {"role": "user", "content": "hi"}],
                    "temperature": 0.2, "max_tokens": 5, "stop": ["\n"], "seed": 1}
    assert server.headers[0]["Authorization"] == f"Bearer {KEY}"


def test_no_key_sends_no_authorization_header(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.script(Reply(body=completion()))
    ChatOpenAI("m", base_url=server.base_url).invoke("hi")
    assert "Authorization" not in server.headers[0]


def test_key_and_base_url_fall_back_to_the_environment(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.script(Reply(body=completion("env")))
    assert ChatOpenAI("m").invoke("hi").content == "env"
    assert server.headers[0]["Authorization"] == "Bearer sk-from-env"


def test_streaming_yields_chunks_from_server_sent_events(server, llm):
    server.script(Reply(events=[delta_event("Hel"), delta_event("lo"), delta_event(finish="stop"), "[DONE]"]))
    chunks = list(llm.stream("hi"))
    assert [c.content for c in chunks if c.content] == ["Hel", "lo"]
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    assert server.requests[0]["stream"] is True


def test_streamed_usage_arrives_in_a_final_chunk(server, llm):
    usage = {"id": "x", "choices": [], "usage": {"prompt_tokens": 2, "completion_tokens": 1, "total_tokens": 3}}
    server.script(Reply(events=[delta_event("ok", finish="stop"), usage, "[DONE]"]))
    total = sum(llm.stream("hi"), AIMessageChunk(""))
    assert total.content == "ok" and total.usage_metadata["total_tokens"] == 3


def test_stream_usage_is_requested_only_when_asked_for_a_custom_server(server):
    server.script(Reply(events=["[DONE]"]), Reply(events=["[DONE]"]))
    list(ChatOpenAI("m", base_url=server.base_url, api_key=KEY).stream("hi"))
    list(ChatOpenAI("m", base_url=server.base_url, api_key=KEY, stream_usage=True).stream("hi"))
    assert "stream_options" not in server.requests[0]
    assert server.requests[1]["stream_options"] == {"include_usage": True}


def test_streaming_true_makes_invoke_stream_and_fire_token_callbacks(server):
    tokens = []

    class Tokens:
        def on_llm_new_token(self, token, **kwargs):
            tokens.append(token)

    server.script(Reply(events=[delta_event("a"), delta_event("b"), "[DONE]"]))
    model = ChatOpenAI("m", base_url=server.base_url, api_key=KEY, streaming=True)
    reply = model.invoke("hi", {"callbacks": [Tokens()]})
    assert reply.content == "ab" and type(reply) is AIMessage and tokens == ["a", "b"]


def test_tool_calls_are_parsed_and_bad_arguments_go_to_invalid_tool_calls(server, llm):
    calls = [{"id": "c1", "type": "function", "function": {"name": "search", "arguments": '{"q": "rag"}'}},
             {"id": "c2", "type": "function", "function": {"name": "search", "arguments": '{"q": '}}]
    server.script(Reply(body=completion("", tool_calls=calls)))
    reply = llm.invoke("find rag")
    assert reply.tool_calls == [{"name": "search", "args": {"q": "rag"}, "id": "c1", "type": "tool_call"}]
    assert [c["id"] for c in reply.invalid_tool_calls] == ["c2"]
    assert reply.invalid_tool_calls[0]["args"] == '{"q": ' and "JSON" in reply.invalid_tool_calls[0]["error"]


def test_streamed_tool_call_pieces_join_into_one_call(server, llm):
    first = [{"index": 0, "id": "c1", "type": "function", "function": {"name": "search", "arguments": '{"q"'}}]
    rest = [{"index": 0, "function": {"arguments": ': "x"}'}}]
    server.script(Reply(events=[delta_event(tool_calls=first), delta_event(tool_calls=rest),
                                delta_event(finish="tool_calls"), "[DONE]"]))
    total = sum(llm.stream("hi"), AIMessageChunk(""))
    assert total.tool_calls == [{"name": "search", "args": {"q": "x"}, "id": "c1", "type": "tool_call"}]


def test_bind_tools_sends_tools_and_tool_choice(server, llm):
    def search(query: str, k: int = 4) -> str:
        """Search the knowledge base."""
        return query

    server.script(Reply(body=completion()))
    llm.bind_tools([search], tool_choice="search").invoke("hi")
    body = server.requests[0]
    assert body["tools"] == [{"type": "function", "function": {
        "name": "search", "description": "Search the knowledge base.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}, "k": {"type": "integer"}},
                       "required": ["query"]}}}]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "search"}}


def test_tool_results_are_sent_back_as_tool_messages(server, llm):
    server.script(Reply(body=completion("done")))
    call = {"name": "search", "args": {"q": "x"}, "id": "c1"}
    llm.invoke([HumanMessage("hi"), AIMessage("", tool_calls=[call]), ToolMessage("found", tool_call_id="c1")])
    sent = server.requests[0]["messages"]
    assert sent[1] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "search", "arguments": '{"q": "x"}'}}]}
    assert sent[2] == {"role": "tool", "content": "found", "tool_call_id": "c1"}


def test_429_is_retried_after_the_servers_retry_after(server, llm, clock):
    server.script(Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "1.5"}),
                  Reply(body=completion("finally")))
    assert llm.invoke("hi").content == "finally"
    assert clock.waits == [1.5] and len(server.requests) == 2


def test_an_unreasonable_retry_after_falls_back_to_exponential_backoff(server, llm, clock):
    server.script(Reply(429, {"error": {"message": "later"}}, headers={"Retry-After": "3600"}),
                  Reply(body=completion()))
    llm.invoke("hi")
    assert clock.waits == [0.5]


def test_500s_are_retried_with_growing_waits_then_raised_with_the_servers_message(server, llm, clock):
    server.script(*[Reply(500, {"error": {"message": "model crashed"}})] * 3)
    with pytest.raises(InternalServerError, match="HTTP 500.*model crashed") as info:
        llm.invoke("hi")
    assert info.value.status_code == 500 and clock.waits == [0.5, 1.0] and len(server.requests) == 3


def test_a_429_that_persists_raises_rate_limit_error(server, clock):
    server.script(*[Reply(429, {"error": {"message": "quota"}})] * 2)
    model = ChatOpenAI("m", base_url=server.base_url, api_key=KEY, max_retries=1,
                       backoff=Backoff(sleep=clock.sleep, rand=lambda: 0.0))
    with pytest.raises(RateLimitError, match="quota"):
        model.invoke("hi")


def test_401_is_not_retried_and_names_the_status(server, llm, clock):
    server.script(Reply(401, {"error": {"message": "Incorrect API key provided"}}))
    with pytest.raises(AuthenticationError, match="HTTP 401.*Incorrect API key") as info:
        llm.invoke("hi")
    assert info.value.status_code == 401 and clock.waits == [] and len(server.requests) == 1


def test_malformed_json_raises_a_response_validation_error(server, llm):
    server.script(Reply(200, "{not json"))
    with pytest.raises(APIResponseValidationError, match="not JSON"):
        llm.invoke("hi")


def test_a_reply_without_choices_raises_a_response_validation_error(server, llm):
    server.script(Reply(200, {"id": "x"}))
    with pytest.raises(APIResponseValidationError, match="choices"):
        llm.invoke("hi")


def test_an_unreachable_server_raises_a_connection_error_after_retries(clock):
    model = ChatOpenAI("m", base_url="http://127.0.0.1:9/v1", api_key=KEY, max_retries=1,
                       backoff=Backoff(sleep=clock.sleep, rand=lambda: 0.0))
    with pytest.raises(APIConnectionError, match="127.0.0.1:9"):
        model.invoke("hi")
    assert clock.waits == [0.5]


def test_the_key_never_appears_in_errors_reprs_or_logs(server, llm, caplog):
    server.script(Reply(500, {"error": {"message": f"bad key {KEY}"}}), Reply(500, {"error": {"message": KEY}}),
                  Reply(401, {"error": {"message": f"Incorrect API key provided: {KEY}"}}))
    with caplog.at_level(logging.DEBUG):
        with pytest.raises(AuthenticationError) as info:
            llm.invoke("hi")
    shown = [str(info.value), repr(info.value), repr(llm), caplog.text, str(llm.__dict__),
             "".join(traceback.format_exception(info.value))]
    assert caplog.records and all(KEY not in text for text in shown)


def test_async_invoke_and_stream_use_the_async_client(server, llm):
    server.script(Reply(body=completion("async")), Reply(events=[delta_event("x"), delta_event("y"), "[DONE]"]))

    async def run():
        reply = await llm.ainvoke("hi")
        chunks = [c.content async for c in llm.astream("hi")]
        return reply.content, chunks

    assert asyncio.run(run()) == ("async", ["x", "y"])


def test_async_retries_wait_with_the_async_sleep(server, llm, clock):
    server.script(Reply(503, {"error": "busy"}, headers={"Retry-After": "0.25"}), Reply(body=completion("ok")))
    assert asyncio.run(llm.ainvoke("hi")).content == "ok" and clock.waits == [0.25]


def test_prompt_model_parser_streams_through_the_chain(server, llm):
    server.script(Reply(events=[delta_event("Bon"), delta_event("jour"), "[DONE]"]))
    chain = ChatPromptTemplate.from_messages([("system", "Speak {lang}."), ("human", "{q}")]) | llm | StrOutputParser()
    assert list(chain.stream({"lang": "French", "q": "hello"})) == ["Bon", "jour"]
    assert server.requests[0]["messages"][0] == {"role": "system", "content": "Speak French."}


def test_batch_sends_one_request_per_input(server, llm):
    server.script(Reply(body=completion("a")), Reply(body=completion("a")))
    assert [m.content for m in llm.batch(["x", "y"], {"max_concurrency": 2})] == ["a", "a"]
    assert len(server.requests) == 2


@pytest.mark.parametrize("kwargs, fragment", [
    ({"temperature": 3}, "temperature must be a number between 0 and 2, got 3"),
    ({"max_tokens": 0}, "max_tokens must be an int >= 1, got 0"),
    ({"max_retries": -1}, "max_retries must be an int >= 0, got -1"),
    ({"base_url": "localhost:8000"}, "base_url must start with http:// or https://, got 'localhost:8000'"),
])
def test_bad_settings_fail_at_construction_naming_the_value(kwargs, fragment):
    with pytest.raises(ValidationError) as info:
        ChatOpenAI("m", **{"base_url": "http://127.0.0.1:1/v1", **kwargs})
    assert fragment in str(info.value)


def test_a_model_name_is_required():
    with pytest.raises(ValidationError, match="model must be a model name"):
        ChatOpenAI("", base_url="http://127.0.0.1:1/v1")
