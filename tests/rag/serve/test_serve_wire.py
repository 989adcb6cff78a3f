"""add_routes speaks LangServe 0.3.3's wire format (as observed from LangServe itself)."""

from __future__ import annotations

import json
import uuid

import httpx


def _post(url: str, body: dict) -> httpx.Response:
    return httpx.post(url, json=body, timeout=10)


def _events(text: str) -> list[tuple[str, str | None]]:
    events = []
    for block in text.split("\r\n\r\n"):
        if not block:
            continue
        lines = block.split("\r\n")
        name = lines[0].removeprefix("event: ")
        data = lines[1].removeprefix("data: ") if len(lines) > 1 else None
        events.append((name, data))
    return events


def test_invoke_answers_output_and_metadata_with_run_id_and_feedback_tokens(served):
    body = _post(f"{served['url']}/double/invoke", {"input": 3, "config": {}, "kwargs": {}}).json()
    assert body["output"] == 6
    assert set(body["metadata"]) == {"run_id", "feedback_tokens"}
    assert body["metadata"]["feedback_tokens"] == []
    uuid.UUID(body["metadata"]["run_id"])


def test_invoke_uses_the_run_id_the_client_sends(served):
    run_id = str(uuid.uuid4())
    body = _post(f"{served['url']}/double/invoke", {"input": 1, "config": {"run_id": run_id}}).json()
    assert body["metadata"]["run_id"] == run_id


def test_batch_answers_outputs_in_order_with_one_run_id_each(served):
    body = _post(f"{served['url']}/double/batch", {"inputs": [1, 2, 3], "config": {}}).json()
    assert body["output"] == [2, 4, 6]
    run_ids = body["metadata"]["run_ids"]
    assert len(set(run_ids)) == 3
    assert body["metadata"]["responses"] == [{"run_id": r, "feedback_tokens": []} for r in run_ids]


def test_batch_accepts_one_config_per_input(served):
    body = _post(f"{served['url']}/double/batch", {"inputs": [1, 2], "config": [{"tags": ["a"]}, {"tags": ["b"]}]})
    assert body.json()["output"] == [2, 4]


def test_a_document_has_langserves_four_keys(served):
    output = _post(f"{served['url']}/docs/invoke", {"input": "cats"}).json()["output"]
    assert output == [{"id": "d1", "metadata": {"source": "kb", "rank": 1}, "page_content": "about cats",
                       "type": "Document"}]


def test_an_ai_message_has_langserves_keys(served):
    output = _post(f"{served['url']}/chat/invoke", {"input": {"topic": "x"}}).json()["output"]
    assert set(output) == {"content", "additional_kwargs", "response_metadata", "type", "name", "id",
                           "tool_calls", "invalid_tool_calls", "usage_metadata"}
    assert output["type"] == "ai" and output["content"] == "hello there world"


def test_stream_is_sse_with_crlf_metadata_first_then_data_chunks_then_end(served):
    response = _post(f"{served['url']}/chat/stream", {"input": {"topic": "x"}})
    assert response.headers["content-type"].startswith("text/event-stream")
    assert "\r\n" in response.text and "\n\n" not in response.text.replace("\r\n", "")
    events = _events(response.text)
    assert events[0][0] == "metadata"
    uuid.UUID(json.loads(events[0][1])["run_id"])
    assert events[-1] == ("end", None)
    chunks = [json.loads(data) for name, data in events[1:-1]]
    assert all(name == "data" for name, _ in events[1:-1])
    assert [c["content"] for c in chunks] == ["hello ", "there ", "world"]
    assert all(c["type"] == "AIMessageChunk" and c["tool_call_chunks"] == [] for c in chunks)


def test_an_exception_mid_stream_sends_an_error_event_with_status_and_message(served):
    events = _events(_post(f"{served['url']}/boom/stream", {"input": 1}).text)
    assert [name for name, _ in events] == ["metadata", "error"]
    error = json.loads(events[1][1])
    assert error["status_code"] == 500
    assert error["message"] == "cannot handle 1"


def test_stream_events_sends_one_data_event_per_v2_event_then_end(served):
    events = _events(_post(f"{served['url']}/text/stream_events", {"input": {"topic": "x"}}).text)
    assert events[-1] == ("end", None)
    decoded = [json.loads(data) for _, data in events[:-1]]
    assert {"event", "name", "run_id", "parent_ids", "tags", "metadata", "data"} <= set(decoded[0])
    kinds = [e["event"] for e in decoded]
    assert kinds[0] == "on_chain_start" and kinds[-1] == "on_chain_end"
    tokens = [e["data"]["chunk"]["content"] for e in decoded if e["event"] == "on_chat_model_stream"]
    assert tokens == ["a ", "b ", "c"]
    assert decoded[0]["name"] == "/text"  # the top run is named after the path, as in LangServe


def test_stream_events_applies_the_include_filters(served):
    events = _events(_post(f"{served['url']}/text/stream_events",
                           {"input": {"topic": "x"}, "include_types": ["chat_model"]}).text)
    kinds = {json.loads(data)["event"] for name, data in events if name == "data"}
    assert kinds == {"on_chat_model_start", "on_chat_model_stream", "on_chat_model_end"}


def test_schemas_are_served_as_json_schema(served):
    url = served["url"]
    assert httpx.get(f"{url}/chat/input_schema").json() == {
        "title": "PromptInput", "type": "object", "properties": {"topic": {"title": "Topic", "type": "string"}},
        "required": ["topic"]}
    assert httpx.get(f"{url}/chat/output_schema").json()["title"] == "FakeListChatModelOutput"
    config = httpx.get(f"{url}/configurable/config_schema").json()
    assert config["properties"] == {"configurable": {"$ref": "#/$defs/Configurable"}}
    assert config["$defs"]["Configurable"]["properties"]["replies"]["description"] == "scripted replies"


def test_only_the_enabled_endpoints_exist(served):
    url = served["url"]
    assert _post(f"{url}/only_invoke/invoke", {"input": 1}).status_code == 200
    assert _post(f"{url}/only_invoke/stream", {"input": 1}).status_code == 404
    assert httpx.get(f"{url}/only_invoke/input_schema").status_code == 404
