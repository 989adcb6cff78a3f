"""RemoteRunnable against our server: every entry point, streaming, errors, composition."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest

from rag.documents import Document
from rag.errors import ValidationError
from rag.messages import AIMessage, AIMessageChunk
from rag.serve import RemoteConnectionError, RemoteInputError, RemoteRunnable, RemoteServerError


def test_invoke_returns_our_objects(served):
    assert RemoteRunnable(f"{served['url']}/docs").invoke("cats") == [
        Document("about cats", {"source": "kb", "rank": 1}, id="d1")]
    assert isinstance(RemoteRunnable(f"{served['url']}/chat").invoke({"topic": "x"}), AIMessage)


def test_batch_keeps_order(served):
    assert RemoteRunnable(f"{served['url']}/double").batch([3, 1, 2]) == [6, 2, 4]


def test_stream_yields_message_chunks(served):
    chunks = list(RemoteRunnable(f"{served['url']}/chat").stream({"topic": "x"}))
    assert all(isinstance(chunk, AIMessageChunk) for chunk in chunks)
    assert [chunk.content for chunk in chunks] == ["hello ", "there ", "world"]


def test_stream_yields_each_chunk_as_it_arrives(served):
    # The server sends "first", then waits until this client opens the gate: a client that
    # buffered the whole answer would never see "first" and the server would time out.
    gate = served["gate"]
    gate.open.clear()
    chunks = []
    for chunk in RemoteRunnable(f"{served['url']}/gate").stream("go"):
        chunks.append(chunk)
        if chunk == "first":
            gate.open.set()
    assert chunks == ["first", "second"]


def test_astream_yields_each_chunk_as_it_arrives(served):
    gate = served["gate"]
    gate.open.clear()

    async def collect():
        chunks = []
        async for chunk in RemoteRunnable(f"{served['url']}/gate").astream("go"):
            chunks.append(chunk)
            if chunk == "first":
                gate.open.set()
        return chunks

    assert asyncio.run(collect()) == ["first", "second"]


def test_async_forms_match_the_sync_ones(served):
    remote = RemoteRunnable(f"{served['url']}/double")

    async def run():
        return await remote.ainvoke(5), await remote.abatch([1, 2])

    assert asyncio.run(run()) == (10, [2, 4])


def test_astream_events_yields_the_servers_events(served):
    remote = RemoteRunnable(f"{served['url']}/text")

    async def collect():
        return [event async for event in remote.astream_events({"topic": "x"}, include_types=["parser"])]

    events = asyncio.run(collect())
    assert [e["event"] for e in events] == ["on_parser_start", "on_parser_stream", "on_parser_stream",
                                            "on_parser_stream", "on_parser_end"]
    assert events[-1]["data"]["output"] == "a b c"


def test_composes_with_pipe_on_both_sides(served):
    chain = (lambda n: n + 1) | RemoteRunnable(f"{served['url']}/double") | (lambda n: n * 10)
    assert chain.invoke(1) == 40


def test_a_server_failure_is_a_typed_error_with_status_and_message(served):
    with pytest.raises(RemoteServerError) as caught:
        RemoteRunnable(f"{served['url']}/boom").invoke(3)
    error = caught.value
    assert (error.status_code, error.error_type, error.message) == (500, "ValueError", "cannot handle 3")
    assert isinstance(error, httpx.HTTPStatusError)  # what LangServe's client raises


def test_a_failure_mid_stream_is_a_typed_error(served):
    with pytest.raises(RemoteServerError, match="cannot handle 3"):
        list(RemoteRunnable(f"{served['url']}/boom").stream(3))


def test_a_refused_input_is_a_value_error_naming_the_field(served):
    with pytest.raises(RemoteInputError) as caught:
        RemoteRunnable(f"{served['url']}/chat").invoke({"subject": "x"})
    assert caught.value.status_code == 422
    assert "input.topic" in caught.value.message
    assert isinstance(caught.value, ValueError)


def test_configurable_values_reach_the_server(served):
    remote = RemoteRunnable(f"{served['url']}/configurable")
    assert remote.invoke("hi", {"configurable": {"replies": ["from client"]}}).content == "from client"


def test_input_schema_comes_from_the_server(served):
    assert RemoteRunnable(f"{served['url']}/chat").input_schema["required"] == ["topic"]


def test_an_unreachable_server_is_a_connection_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(RemoteConnectionError):
        RemoteRunnable(f"http://127.0.0.1:{port}/x", timeout=2).invoke(1)


def test_a_url_that_is_not_http_is_refused():
    with pytest.raises(ValidationError, match="http"):
        RemoteRunnable("ftp://example.org/chain")
