"""The OpenAI-compatible API of rag serve, called with the official `openai` package against a
real server on 127.0.0.1."""

from __future__ import annotations

import httpx
import pytest

openai = pytest.importorskip("openai")
pytest.importorskip("uvicorn")

from rag.serve import serve_in_thread  # noqa: E402
from rag.serve.index_app import index_app  # noqa: E402

from tests.rag.serve.index_server import build_index  # noqa: E402

KEY = "openai-test-key"
QUESTION = [{"role": "user", "content": "Why do cats purr?"}]


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    index = build_index(tmp_path_factory.mktemp("openai-index"))
    with serve_in_thread(index_app(index, api_key=KEY)) as base:
        yield base


@pytest.fixture(scope="module")
def client(url):
    return openai.OpenAI(base_url=f"{url}/v1", api_key=KEY, max_retries=0)


def test_models_lists_the_offline_answerer(client):
    assert [model.id for model in client.models.list()] == ["rag-extractive"]


def test_a_completion_answers_from_the_index_with_a_sources_block(client):
    completion = client.chat.completions.create(model="rag-extractive", messages=QUESTION)
    content = completion.choices[0].message.content
    assert completion.choices[0].finish_reason == "stop" and completion.object == "chat.completion"
    assert content.startswith("Cats purr when they are content. [1]")
    assert "\n\nSources:\n[1] Cats — " in content and content.split("Sources:\n[1] Cats — ")[1].split("\n")[0].endswith("cats.md")


def test_a_completion_carries_the_sources_field(client):
    completion = client.chat.completions.create(model="rag-extractive", messages=QUESTION)
    sources = completion.model_extra["sources"]
    assert sources[0]["n"] == 1 and sources[0]["source"].endswith("cats.md") and sources[0]["text"].startswith("Cats")
    assert sources[0]["cited"] is True and sources[0]["start"] == 0 and sources[0]["end"] == len(sources[0]["text"])


def test_the_last_user_message_is_the_question(client):
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Why do cats purr?"},
                {"role": "assistant", "content": "Cats purr when content."},
                {"role": "user", "content": [{"type": "text", "text": "Were dogs domesticated from wolves?"}]}]
    completion = client.chat.completions.create(model="rag-extractive", messages=messages)
    assert completion.model_extra["sources"][0]["source"].endswith("dogs.md")


def test_a_streamed_completion_adds_up_to_the_plain_one(client):
    plain = client.chat.completions.create(model="rag-extractive", messages=QUESTION).choices[0].message.content
    chunks = list(client.chat.completions.create(model="rag-extractive", messages=QUESTION, stream=True))
    assert all(chunk.object == "chat.completion.chunk" for chunk in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert "".join(chunk.choices[0].delta.content or "" for chunk in chunks) == plain
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert chunks[-1].model_extra["sources"][0]["source"].endswith("cats.md")


def test_a_wrong_key_is_an_authentication_error(url):
    bad = openai.OpenAI(base_url=f"{url}/v1", api_key="wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        bad.models.list()


def test_an_unknown_model_is_not_found(client):
    with pytest.raises(openai.NotFoundError, match="gpt-4o"):
        client.chat.completions.create(model="gpt-4o", messages=QUESTION)


def test_a_wrong_type_is_422_naming_the_field(url):
    reply = httpx.post(f"{url}/v1/chat/completions", json={"messages": "Why do cats purr?"},
                       headers={"authorization": f"Bearer {KEY}"})
    assert reply.status_code == 422 and reply.json()["error"]["param"] == "messages"


def test_malformed_json_is_400_in_openais_error_shape(url):
    reply = httpx.post(f"{url}/v1/chat/completions", content=b'{"messages": [', headers={
        "authorization": f"Bearer {KEY}", "content-type": "application/json"})
    assert reply.status_code == 400 and "not valid JSON" in reply.json()["error"]["message"]


def test_a_conversation_without_a_user_message_is_422(client):
    with pytest.raises(openai.UnprocessableEntityError, match="user message"):
        client.chat.completions.create(model="rag-extractive", messages=[{"role": "system", "content": "hi"}])


def test_a_listed_model_can_be_retrieved_by_id(client):
    model = client.models.retrieve("rag-extractive")
    assert (model.id, model.object, model.owned_by) == ("rag-extractive", "model", "ragpath")


def test_retrieving_an_unknown_model_is_a_404_in_openai_shape(client):
    with pytest.raises(openai.NotFoundError) as missing:
        client.models.retrieve("gpt-4o")
    assert missing.value.body["param"] == "model" and "gpt-4o" in missing.value.body["message"]


def test_a_stream_with_include_usage_ends_with_a_usage_chunk(client):
    chunks = list(client.chat.completions.create(model="rag-extractive", messages=QUESTION, stream=True,
                                                 stream_options={"include_usage": True}))
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert all(chunk.usage is None for chunk in chunks[:-1]) and chunks[-2].choices[0].finish_reason == "stop"


def test_a_legacy_function_message_is_accepted_in_the_history(client):
    messages = [{"role": "function", "name": "lookup", "content": "{}"}, *QUESTION]
    completion = client.chat.completions.create(model="rag-extractive", messages=messages)
    assert completion.choices[0].message.content.startswith("Cats purr")
