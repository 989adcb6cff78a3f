"""Both directions with LangServe 0.3.3 and langchain-core 1.7.2: their client against our
server, our client against their (FastAPI) server."""

from __future__ import annotations

import asyncio

import pytest

langserve = pytest.importorskip("langserve")
pytest.importorskip("fastapi")

from langchain_core.documents import Document as LCDocument  # noqa: E402
from langchain_core.messages import AIMessage as LCAIMessage  # noqa: E402
from langchain_core.messages import AIMessageChunk as LCAIMessageChunk  # noqa: E402

from rag.documents import Document  # noqa: E402
from rag.messages import AIMessage, AIMessageChunk  # noqa: E402
from rag.serve import RemoteInputError, RemoteRunnable, RemoteServerError, serve_in_thread  # noqa: E402


# -- LangServe's client, our server -------------------------------------------------------
def test_langserves_client_gets_langchain_documents_from_our_server(served):
    documents = langserve.RemoteRunnable(f"{served['url']}/docs").invoke("cats")
    assert documents == [LCDocument(page_content="about cats", metadata={"source": "kb", "rank": 1}, id="d1")]


def test_langserves_client_gets_an_ai_message_from_our_server(served):
    message = langserve.RemoteRunnable(f"{served['url']}/chat").invoke({"topic": "x"})
    assert isinstance(message, LCAIMessage) and message.content == "hello there world"


def test_langserves_client_streams_ai_message_chunks_from_our_server(served):
    chunks = list(langserve.RemoteRunnable(f"{served['url']}/chat").stream({"topic": "x"}))
    assert all(isinstance(chunk, LCAIMessageChunk) for chunk in chunks)
    assert [chunk.content for chunk in chunks] == ["hello ", "there ", "world"]


def test_langserves_client_batches_against_our_server_with_its_default_config(served):
    # LangServe's client sends tags, metadata, recursion_limit, configurable... on every call.
    assert langserve.RemoteRunnable(f"{served['url']}/double").batch([1, 2]) == [2, 4]


def test_langserves_client_reads_our_event_stream(served):
    remote = langserve.RemoteRunnable(f"{served['url']}/chat")

    async def collect():
        return [event async for event in remote.astream_events({"topic": "x"}, version="v2")]

    events = asyncio.run(collect())
    tokens = [e["data"]["chunk"] for e in events if e["event"] == "on_chat_model_stream"]
    assert all(isinstance(token, LCAIMessageChunk) for token in tokens)
    assert "".join(token.content for token in tokens) == "hello there world"


def test_langserves_client_sees_our_server_errors_as_http_status_errors(served):
    import httpx

    with pytest.raises(httpx.HTTPStatusError) as caught:
        langserve.RemoteRunnable(f"{served['url']}/boom").invoke(1)
    assert caught.value.response.status_code == 500


# -- our client, LangServe's server ---------------------------------------------------------
@pytest.fixture(scope="module")
def langserve_url():
    from fastapi import FastAPI
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnableLambda

    app = FastAPI()
    langserve.add_routes(app, ChatPromptTemplate.from_template("say {topic}")
                         | FakeListChatModel(responses=["hi you"]), path="/chat")
    langserve.add_routes(app, RunnableLambda(lambda q: [LCDocument(page_content=q, metadata={"k": 1}, id="x")]),
                         path="/docs")

    def boom(value: int) -> int:
        raise ValueError("secret detail")

    langserve.add_routes(app, RunnableLambda(boom), path="/boom")
    with serve_in_thread(app) as url:
        yield url


def test_our_client_gets_our_documents_from_a_langserve_server(langserve_url):
    assert RemoteRunnable(f"{langserve_url}/docs").invoke("q") == [Document("q", {"k": 1}, id="x")]


def test_our_client_gets_our_ai_message_from_a_langserve_server(langserve_url):
    message = RemoteRunnable(f"{langserve_url}/chat").invoke({"topic": "x"})
    assert isinstance(message, AIMessage) and message.content == "hi you"


def test_our_client_streams_chunks_from_a_langserve_server(langserve_url):
    chunks = list(RemoteRunnable(f"{langserve_url}/chat").stream({"topic": "x"}))
    assert all(isinstance(chunk, AIMessageChunk) for chunk in chunks)
    assert "".join(chunk.content for chunk in chunks) == "hi you"


def test_our_client_reads_a_langserve_event_stream(langserve_url):
    remote = RemoteRunnable(f"{langserve_url}/chat")

    async def collect():
        return [event async for event in remote.astream_events({"topic": "x"})]

    events = asyncio.run(collect())
    assert events[0]["event"] == "on_chain_start" and events[-1]["event"] == "on_chain_end"
    tokens = [e["data"]["chunk"] for e in events if e["event"] == "on_chat_model_stream"]
    assert all(isinstance(token, AIMessageChunk) for token in tokens)


def test_our_client_batches_against_a_langserve_server(langserve_url):
    assert [d[0].page_content for d in RemoteRunnable(f"{langserve_url}/docs").batch(["a", "b"])] == ["a", "b"]


def test_our_client_types_langserve_errors(langserve_url):
    with pytest.raises(RemoteServerError) as caught:
        RemoteRunnable(f"{langserve_url}/boom").invoke(1)
    assert caught.value.status_code == 500
    with pytest.raises(RemoteInputError) as refused:
        RemoteRunnable(f"{langserve_url}/boom").invoke("not an int")
    assert refused.value.status_code == 422


def test_our_client_reads_a_langserve_input_schema(langserve_url):
    schema = RemoteRunnable(f"{langserve_url}/chat").input_schema
    assert schema["properties"] == {"topic": {"title": "Topic", "type": "string"}}
