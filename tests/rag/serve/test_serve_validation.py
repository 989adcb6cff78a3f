"""Where LangServe is lax, the server refuses clearly: 422 input, 400 config, 500 runnable."""

from __future__ import annotations

import httpx
import pytest

from rag.errors import ValidationError


def _post(url: str, body) -> httpx.Response:
    return httpx.post(url, json=body, timeout=10)


def test_input_missing_a_prompt_variable_is_422_naming_the_field(served):
    response = _post(f"{served['url']}/chat/invoke", {"input": {"subject": "x"}})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["input", "topic"]


def test_input_of_the_wrong_type_is_422_naming_the_field(served):
    response = _post(f"{served['url']}/chat/invoke", {"input": {"topic": 5}})
    assert response.status_code == 422
    detail = response.json()["detail"][0]
    assert detail["loc"] == ["input", "topic"] and "expected string" in detail["msg"]


def test_a_bad_batch_input_is_422_naming_its_position(served):
    response = _post(f"{served['url']}/chat/batch", {"inputs": [{"topic": "a"}, {"nope": 1}]})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["inputs", 1, "topic"]


def test_a_body_without_input_is_422(served):
    response = _post(f"{served['url']}/double/invoke", {"inputx": 3})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["input"]


def test_a_body_that_is_not_json_is_422(served):
    response = httpx.post(f"{served['url']}/double/invoke", content=b"{nope", timeout=10)
    assert response.status_code == 422


def test_call_kwargs_from_the_network_are_refused(served):
    response = _post(f"{served['url']}/double/invoke", {"input": 1, "kwargs": {"stop": ["x"]}})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["kwargs"]


def test_a_config_key_outside_runnable_config_is_400(served):
    response = _post(f"{served['url']}/double/invoke", {"input": 1, "config": {"callbacks": ["x"]}})
    assert response.status_code == 400
    assert response.json()["detail"][0]["loc"] == ["config", "callbacks"]


def test_a_configurable_key_the_runnable_does_not_declare_is_400(served):
    response = _post(f"{served['url']}/double/invoke", {"input": 1, "config": {"configurable": {"temperature": 1}}})
    assert response.status_code == 400
    assert response.json()["detail"][0]["loc"] == ["config", "configurable", "temperature"]


def test_the_allowed_config_keys_work(served):
    config = {"tags": ["t"], "metadata": {"m": 1}, "run_name": "mine", "max_concurrency": 2,
              "recursion_limit": 25, "configurable": {}}
    assert _post(f"{served['url']}/double/invoke", {"input": 2, "config": config}).json()["output"] == 4


def test_a_declared_configurable_field_changes_the_run(served):
    body = {"input": "hi", "config": {"configurable": {"replies": ["configured"]}}}
    assert _post(f"{served['url']}/configurable/invoke", body).json()["output"]["content"] == "configured"


def test_a_missing_required_configurable_key_is_400_not_500(served):
    response = _post(f"{served['url']}/user/invoke", {"input": "q", "config": {"configurable": {}}})
    assert response.status_code == 400
    assert response.json()["detail"][0]["loc"] == ["config", "configurable", "user_id"]
    ok = _post(f"{served['url']}/user/invoke", {"input": "q", "config": {"configurable": {"user_id": "u1"}}})
    assert ok.json()["output"] == "u1:q"


def test_a_config_value_of_the_wrong_type_is_400(served):
    response = _post(f"{served['url']}/double/invoke", {"input": 1, "config": {"tags": "not-a-list"}})
    assert response.status_code == 400
    assert response.json()["detail"][0]["loc"] == ["config", "tags"]


def test_a_runnable_that_raises_is_500_with_type_and_message_and_no_traceback(served):
    response = _post(f"{served['url']}/boom/invoke", {"input": 7})
    assert response.status_code == 500
    assert response.json() == {"type": "ValueError", "message": "cannot handle 7"}
    assert "Traceback" not in response.text


def test_a_bad_stream_request_is_refused_before_streaming(served):
    response = _post(f"{served['url']}/chat/stream", {"input": {"nope": 1}})
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/json"


def test_unknown_endpoint_names_are_refused_when_adding_routes():
    from starlette.applications import Starlette

    from rag.runnables import RunnableLambda
    from rag.serve import add_routes

    with pytest.raises(ValidationError, match="stream_log"):
        add_routes(Starlette(), RunnableLambda(lambda x: x), "/x", enabled_endpoints=["invoke", "stream_log"])
    with pytest.raises(ValidationError, match="path"):
        add_routes(Starlette(), RunnableLambda(lambda x: x), "x/")
