"""add_routes options LangServe users rely on: FastAPI apps, per-request config, headers,
input_type and config_keys."""

from __future__ import annotations

import httpx
import pytest

from rag.runnables import RunnableLambda
from rag.serve import RemoteRunnable, add_routes, serve_in_thread


def _whoami(value, config):
    return {"value": value, "user": config.get("metadata", {}).get("user"), "tags": config.get("tags", [])}


@pytest.fixture(scope="module")
def options_url():
    fastapi = pytest.importorskip("fastapi")
    app = fastapi.FastAPI()

    def from_header(config, request):
        return {**config, "metadata": {**config.get("metadata", {}), "user": request.headers.get("x-user")}}

    add_routes(app, RunnableLambda(_whoami), "/whoami", per_req_config_modifier=from_header)
    add_routes(app, RunnableLambda(_whoami), "/typed",
               input_type={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    add_routes(app, RunnableLambda(_whoami), "/keys", config_keys=["configurable"])
    with serve_in_thread(app) as url:
        yield url


def test_routes_work_on_a_fastapi_app_and_headers_reach_the_config_modifier(options_url):
    remote = RemoteRunnable(f"{options_url}/whoami", headers={"x-user": "ada"})
    assert remote.invoke(1)["user"] == "ada"


def test_input_type_replaces_the_checked_input_schema(options_url):
    assert httpx.get(f"{options_url}/typed/input_schema").json()["required"] == ["n"]
    refused = httpx.post(f"{options_url}/typed/invoke", json={"input": {"n": "one"}})
    assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == ["input", "n"]
    assert httpx.post(f"{options_url}/typed/invoke", json={"input": {"n": 1}}).status_code == 200


def test_config_keys_drop_the_other_runnable_config_keys_as_langserve_does(options_url):
    output = httpx.post(f"{options_url}/keys/invoke", json={"input": 1, "config": {"tags": ["t"]}}).json()["output"]
    assert output["tags"] == []
    refused = httpx.post(f"{options_url}/keys/invoke", json={"input": 1, "config": {"bogus": 1}})
    assert refused.status_code == 400


def test_without_the_serve_extra_the_client_works_and_add_routes_names_the_install(monkeypatch):
    import importlib
    import sys

    from rag.errors import MissingDependencyError

    monkeypatch.setitem(sys.modules, "starlette", None)  # as if Starlette were not installed
    for name in ("starlette.requests", "starlette.responses", "starlette.routing", "rag.serve.routes"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.raises(MissingDependencyError, match=r'pip install "ragpath\[serve\]"'):
        importlib.import_module("rag.serve.routes")
    assert RemoteRunnable("http://127.0.0.1:1/x").url == "http://127.0.0.1:1/x"
