"""rag serve's app over a real index and a real server on 127.0.0.1: search, the index's
runnables, the playground's event stream, and the security rules and bad input."""

from __future__ import annotations

import json
import socket

import httpx
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from rag.runnables import RunnableLambda  # noqa: E402
from rag.serve import RemoteRunnable, add_routes, serve_in_thread  # noqa: E402
from rag.serve.index_app import index_app  # noqa: E402
from rag.serve.security import check_exposure, is_loopback  # noqa: E402
from rag.serve.sse import iter_sse  # noqa: E402
from rag.errors import ValidationError  # noqa: E402

from tests.rag.serve.index_server import build_index  # noqa: E402

KEY = "s3cret-key-for-tests"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return build_index(tmp_path_factory.mktemp("serve-index"))


@pytest.fixture(scope="module")
def url(index):
    with serve_in_thread(index_app(index)) as base:
        yield base


@pytest.fixture(scope="module")
def keyed(index):
    app = index_app(index, api_key=KEY, max_body_bytes=4096)
    add_routes(app, RunnableLambda(lambda text: text.upper()), "/shout")
    with serve_in_thread(app) as base:
        yield base


def test_search_returns_ranked_chunks_with_scores(url):
    reply = httpx.post(f"{url}/search", json={"query": "why do cats purr", "k": 2})
    assert reply.status_code == 200
    results = reply.json()["results"]
    assert [r["rank"] for r in results] == [1, 2]
    assert results[0]["source"].endswith("cats.md") and results[0]["title"] == "Cats"
    assert results[0]["score"] >= results[1]["score"]


def test_ask_chain_is_served_with_langserve_routes(url):
    output = RemoteRunnable(f"{url}/ask").invoke({"input": "Why do cats purr?"})
    assert "purr" in output["answer"] and "[1]" in output["answer"]
    assert output["context"][0].metadata["source"].endswith("cats.md")


def test_retriever_is_served_with_langserve_routes(url):
    documents = RemoteRunnable(f"{url}/retriever").invoke("wolves")
    assert documents[0].metadata["source"].endswith("dogs.md")


def test_playground_ask_streams_tokens_sources_answer_trace_then_end(url):
    with httpx.stream("POST", f"{url}/playground/ask", json={"question": "Why do cats purr?"}) as reply:
        events = list(iter_sse(reply.iter_lines()))
    names = [e["event"] for e in events]
    assert names[-4:] == ["sources", "answer", "trace", "end"] and set(names[:-4]) == {"token"}
    sources = json.loads(events[-4]["data"])
    assert sources[0]["n"] == 1 and sources[0]["text"].startswith("Cats") and sources[0]["start_index"] == 0
    answer = "".join(json.loads(e["data"]) for e in events if e["event"] == "token")
    assert "Cats purr when they are content" in answer
    whole = json.loads(events[-3]["data"])
    first = whole["citations"][0]
    assert whole["text"] == answer and whole["text"][first["mark_start"]:first["mark_end"]] == f"[{first['n']}]"
    trace = json.loads(events[-2]["data"])
    assert trace["name"] == "ask" and trace["duration_ms"] is not None and trace["children"]


def test_playground_page_and_its_files_are_served_locally(url):
    page = httpx.get(f"{url}/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'src="/playground.js"' in page.text and "http" not in page.text.split("<body>")[1]
    assert httpx.get(f"{url}/playground.js").status_code == 200
    assert httpx.get(f"{url}/playground.css").status_code == 200


def test_malformed_json_is_400_with_a_json_error(url):
    reply = httpx.post(f"{url}/search", content=b"{not json", headers={"content-type": "application/json"})
    assert reply.status_code == 400 and "not valid JSON" in reply.json()["message"]


def test_wrong_type_is_422_naming_the_field(url):
    reply = httpx.post(f"{url}/search", json={"query": "cats", "k": "three"})
    assert reply.status_code == 422 and reply.json()["field"] == "k"
    assert "k must be a positive int" in reply.json()["message"]


def test_unknown_path_is_a_json_404(url):
    reply = httpx.get(f"{url}/no/such/route")
    assert reply.status_code == 404 and "/no/such/route" in reply.json()["message"]


def test_another_sites_page_is_refused_by_default(url):
    reply = httpx.post(f"{url}/search", json={"query": "cats"}, headers={"origin": "https://elsewhere.example"})
    assert reply.status_code == 403 and "access-control-allow-origin" not in reply.headers
    assert "--cors-origin" in reply.json()["message"]


def test_cors_origins_when_asked_for(index):
    with serve_in_thread(index_app(index, cors_origins=["https://ui.example"])) as base:
        reply = httpx.post(f"{base}/search", json={"query": "cats"}, headers={"origin": "https://ui.example"})
    assert reply.headers["access-control-allow-origin"] == "https://ui.example"


@pytest.mark.parametrize("method,path,body", [("POST", "/search", {"query": "cats"}), ("GET", "/v1/models", None),
                                              ("POST", "/ask/invoke", {"input": {"input": "cats"}}),
                                              ("POST", "/shout/invoke", {"input": "hi"})])
def test_every_route_needs_the_key(keyed, method, path, body):
    missing = httpx.request(method, f"{keyed}{path}", json=body)
    wrong = httpx.request(method, f"{keyed}{path}", json=body, headers={"authorization": "Bearer " + KEY[:-1] + "x"})
    right = httpx.request(method, f"{keyed}{path}", json=body, headers={"authorization": f"Bearer {KEY}"})
    assert (missing.status_code, wrong.status_code, right.status_code) == (401, 401, 200)
    assert KEY not in missing.text + wrong.text


def test_a_registered_chain_answers_behind_the_key(keyed):
    reply = httpx.post(f"{keyed}/shout/invoke", json={"input": "hi"}, headers={"authorization": f"Bearer {KEY}"})
    assert reply.json()["output"] == "HI"


def test_the_page_itself_loads_without_the_key(keyed):
    assert httpx.get(f"{keyed}/").status_code == 200


def test_a_body_over_the_cap_is_413(keyed):
    reply = httpx.post(f"{keyed}/search", json={"query": "x" * 10_000}, headers={"authorization": f"Bearer {KEY}"})
    assert reply.status_code == 413 and "at most 4096" in reply.json()["message"]


def test_a_chunked_body_over_the_cap_is_413(keyed):
    def chunks():
        yield b'{"query": "'
        for _ in range(10):
            yield b"x" * 1000
        yield b'"}'

    reply = httpx.post(f"{keyed}/search", content=chunks(), headers={"authorization": f"Bearer {KEY}",
                                                                    "content-type": "application/json"})
    assert reply.status_code == 413


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost", "127.0.0.2"])
def test_loopback_addresses_need_no_key(host):
    assert is_loopback(host)
    check_exposure(host, None, False)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.4", "::", socket.gethostname()])
def test_other_addresses_need_a_key_or_insecure(host):
    with pytest.raises(ValidationError, match="--api-key-file"):
        check_exposure(host, None, False)
    check_exposure(host, "key", False)
    check_exposure(host, None, True)
