"""A JSON body whose string holds a lone UTF-16 surrogate (``"\\ud800"``: valid JSON, not
valid Unicode) is bad input naming the problem, not a 500 when the reply echoes it."""

from __future__ import annotations

import httpx
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from rag.serve import serve_in_thread  # noqa: E402
from rag.serve.index_app import index_app  # noqa: E402

from tests.rag.serve.index_server import build_index  # noqa: E402

JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    with serve_in_thread(index_app(build_index(tmp_path_factory.mktemp("surrogate-index")))) as base:
        yield base


def test_a_lone_surrogate_in_a_search_query_is_400(url):
    reply = httpx.post(f"{url}/search", content=b'{"query": "cats \\ud800"}', headers=JSON)
    assert reply.status_code == 400 and "surrogate" in reply.json()["message"]


def test_a_lone_surrogate_in_a_served_runnable_input_is_422(url):
    reply = httpx.post(f"{url}/ask/invoke", content=b'{"input": {"input": "cats \\udc00"}}', headers=JSON)
    assert reply.status_code == 422 and "surrogate" in reply.json()["detail"][0]["msg"]


def test_an_escaped_surrogate_pair_is_valid_text(url):
    reply = httpx.post(f"{url}/search", content=b'{"query": "cats \\ud83d\\ude00"}', headers=JSON)
    assert reply.status_code == 200 and reply.json()["query"] == "cats \U0001F600"
