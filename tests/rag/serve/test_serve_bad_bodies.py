"""Bad bodies are 4xx, never 500 (issue 35, item 4): every route that takes a body, taken
from the app's route table (a route added later is covered too), is sent JSON nested
65 to 100,000 levels deep, bytes that are not UTF-8 (raw surrogates among them), broken
JSON and numbers JSON cannot hold; each answer is 400 or 422 naming the problem, and the
server goes on answering. Batch size and query length are capped, the limit named.
A real server on 127.0.0.1."""

from __future__ import annotations

import httpx
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from rag.serve import serve_in_thread  # noqa: E402
from rag.serve.limits import RequestLimits  # noqa: E402
from rag.serve.validation import MAX_JSON_DEPTH, loads_json  # noqa: E402

from tests.rag.serve.hostile import (  # noqa: E402
    JSON,
    hostile_app,
    http,  # noqa: F401 -- a fixture
    message_of,
    served_route_table,
)

LIMITS = RequestLimits(max_batch_size=5, max_query_chars=200)


def nested(depth: int, opener: bytes = b"[", closer: bytes = b"]") -> bytes:
    return opener * depth + closer * depth


# (name, body, words the message must hold)
BAD_BODIES = [
    ("arrays 65 deep", nested(MAX_JSON_DEPTH + 1), "nest"),
    ("arrays 500 deep", nested(500), "nest"),
    ("arrays 1,000 deep", nested(1_000), "nest"),
    ("arrays 100,000 deep", nested(100_000), "nest"),
    ("objects 100,000 deep", b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "nest"),
    ("deep inside a field", b'{"query": ' + nested(5_000) + b', "input": ' + nested(5_000) + b"}", "nest"),
    ("raw surrogate bytes", b'{"query": "\xed\xa0\x80", "input": "\xed\xa0\x80"}', "UTF-8"),
    ("Latin-1 bytes", b'{"query": "caf\xe9", "input": "caf\xe9"}', "UTF-8"),
    ("UTF-16 JSON", '{"query": "cats"}'.encode("utf-16"), "UTF-8"),
    ("truncated", b'{"query": ', "JSON"),
    ("empty", b"", ""),
    ("trailing garbage", b'{"query": "cats"} x', "JSON"),
    ("NaN", b'{"query": NaN, "input": NaN}', "NaN"),
    ("1e999", b'{"query": 1e999, "input": 1e999}', "out of range"),
    ("a 5,000-digit number", b'{"query": ' + b"7" * 5_000 + b', "input": 1}', "digits"),
    ("a JSON string, not an object", b'"cats"', ""),
    ("null", b"null", ""),
]


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return hostile_app(tmp_path_factory.mktemp("bad-bodies"), limits=LIMITS)


@pytest.fixture(scope="module")
def url(app):
    with serve_in_thread(app) as base:
        yield base


BODY_ROUTES = [path for method, path in served_route_table() if method == "POST"]


def test_the_table_covers_every_kind_of_route():
    assert {"/search", "/playground/ask", "/v1/chat/completions", "/ask/invoke", "/ask/batch", "/ask/stream",
            "/retriever/stream_events", "/mine/invoke"} <= set(BODY_ROUTES)


@pytest.mark.parametrize("path", BODY_ROUTES)
@pytest.mark.parametrize("name,body,words", BAD_BODIES, ids=[case[0] for case in BAD_BODIES])
def test_a_bad_body_is_a_4xx_naming_the_problem(http, url, path, name, body, words):
    reply = http.post(f"{url}{path}", content=body, headers=JSON)
    assert reply.status_code in (400, 422), (reply.status_code, reply.text[:300])
    assert words in message_of(reply)


def test_the_server_answers_after_every_bad_body(url):
    assert httpx.post(f"{url}/search", json={"query": "cats"}).status_code == 200


@pytest.mark.parametrize("raw,value", [(b'{"a": [1, {"b": "\\ud83d\\ude00"}]}', {"a": [1, {"b": "\U0001F600"}]}),
                                       (b"-12.5e3", -12500.0), (b"1" * 1000, int("1" * 1000))])
def test_good_json_still_parses(raw, value):
    assert loads_json(raw) == value


def test_json_exactly_at_the_depth_cap_parses():
    value, depth = loads_json(nested(MAX_JSON_DEPTH)), 1
    while value:
        value, depth = value[0], depth + 1
    assert depth == MAX_JSON_DEPTH


@pytest.mark.parametrize("path", ["/ask/batch", "/retriever/batch", "/mine/batch"])
def test_a_batch_over_the_cap_is_413_naming_the_limit(url, path):
    reply = httpx.post(f"{url}{path}", json={"inputs": ["cats"] * 6}, timeout=60)
    assert reply.status_code == 413 and "limit of 5" in message_of(reply) and "--max-batch" in message_of(reply)


def test_a_batch_at_the_cap_is_answered(url):
    assert httpx.post(f"{url}/retriever/batch", json={"inputs": ["cats"] * 5}, timeout=60).status_code == 200


LONG = "cats " * 41  # 205 characters, over the 200 allowed


@pytest.mark.parametrize("path,body,field", [
    ("/search", {"query": LONG}, "query"),
    ("/playground/ask", {"question": LONG}, "question"),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": LONG}]}, "messages"),
    ("/ask/invoke", {"input": {"input": LONG}}, "input.input"),
    ("/ask/stream", {"input": {"input": LONG}}, "input.input"),
    ("/retriever/invoke", {"input": LONG}, "input"),
    ("/retriever/batch", {"inputs": ["cats", LONG]}, "inputs.1"),
    ("/mine/invoke", {"input": LONG}, "input"),
])
def test_a_query_over_the_cap_is_422_naming_the_field_and_the_limit(url, path, body, field):
    reply = httpx.post(f"{url}{path}", json=body, timeout=60)
    assert reply.status_code == 422
    assert field in message_of(reply) and "limit of 200" in message_of(reply) and "--max-query-chars" in message_of(reply)


def test_the_caps_are_rag_serve_flags():
    from rag.cli.app import build_parser

    args = build_parser().parse_args(["serve", "--index", "x", "--max-batch", "7", "--max-query-chars", "99"])
    assert (args.max_batch, args.max_query_chars) == (7, 99)


@pytest.mark.parametrize("bad", [0, -1, True, 2.5, "10"])
def test_a_limit_must_be_a_positive_int(bad):
    from rag.errors import ValidationError

    with pytest.raises(ValidationError, match="max_batch_size"):
        RequestLimits(max_batch_size=bad)


def test_a_query_cap_above_the_indexs_own_limit_is_refused(tmp_path):
    from rag.errors import ValidationError
    from rag.index.request import MAX_QUERY_CHARS

    with pytest.raises(ValidationError, match=f"at most {MAX_QUERY_CHARS}"):
        hostile_app(tmp_path, limits=RequestLimits(max_query_chars=MAX_QUERY_CHARS + 1))
