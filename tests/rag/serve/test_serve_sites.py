"""A loopback server is not a door for web pages (issue 35, item 3): every route, from the
app's route table, refuses a Host name that is not loopback (DNS rebinding) and another
site's Origin, and every route that takes a body refuses any content type but JSON (a
page's no-preflight ``text/plain`` POST). Allowed origins get CORS answers, preflights
included; ``--allowed-host`` adds names; the server runs on ``::1`` too. A real server on
127.0.0.1 (and ::1)."""

from __future__ import annotations

import socket

import httpx
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from rag.serve import serve_in_thread  # noqa: E402
from rag.serve.origins import SitePolicy, host_name  # noqa: E402
from rag.serve.security import json_content_type  # noqa: E402

from tests.rag.serve.hostile import (  # noqa: E402
    JSON,
    hostile_app,
    http,  # noqa: F401 -- a fixture
    ipv6_loopback,
    message_of,
    served_route_table,
)

UI = "https://ui.example"


ROUTES = served_route_table()


def test_the_table_holds_routes_added_after_the_app_was_built():
    assert ("POST", "/mine/invoke") in ROUTES and ("GET", "/plain") in ROUTES
BODY_ROUTES = [path for method, path in ROUTES if method == "POST"]


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    app = hostile_app(tmp_path_factory.mktemp("sites"), cors_origins=[UI], allowed_hosts=["rag.internal"])
    with serve_in_thread(app) as base:
        yield base


def call(http: httpx.Client, url: str, method: str, path: str, headers: dict[str, str]) -> httpx.Response:
    body = b'{"query": "cats"}' if method == "POST" else None
    return http.request(method, f"{url}{path}", content=body, headers={**JSON, **headers})


HOSTILE_HOSTS = ["attacker.example", "attacker.example:80", "127.0.0.1.attacker.example", "localhost.attacker.example",
                 "rebind.127.0.0.1.nip.io", "0.0.0.0", "[::2]", "192.168.1.4", "localhost.", "127.0.0.1@evil.example",
                 "", "rag.internal.evil"]


@pytest.mark.parametrize("method,path", ROUTES)
@pytest.mark.parametrize("host", HOSTILE_HOSTS)
def test_a_host_that_is_not_loopback_is_refused_on_every_route(http, url, method, path, host):
    reply = call(http, url, method, path, {"host": host})
    assert reply.status_code == 403 and "--allowed-host" in message_of(reply)


@pytest.mark.parametrize("host", ["localhost", "LOCALHOST:1234", "127.0.0.1", "127.0.0.2:80", "[::1]:8000",
                                  "rag.internal", "rag.internal:8443"])
def test_loopback_names_and_allowed_hosts_are_served(http, url, host):
    assert call(http, url, "POST", "/search", {"host": host}).status_code == 200


def test_a_request_without_a_host_is_refused(url):
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall(b"GET /v1/models HTTP/1.0\r\n\r\n")
        answer = conn.recv(200)
    assert answer.startswith(b"HTTP/1.1 403")


HOSTILE_ORIGINS = ["https://evil.example", "null", "http://127.0.0.1:1", "http://localhost", "https://ui.example.evil",
                   "http://ui.example", "file://"]


@pytest.mark.parametrize("method,path", ROUTES)
@pytest.mark.parametrize("origin", HOSTILE_ORIGINS)
def test_another_sites_page_is_refused_on_every_route(http, url, method, path, origin):
    reply = call(http, url, method, path, {"origin": origin})
    assert reply.status_code == 403 and "--cors-origin" in message_of(reply)
    assert "access-control-allow-origin" not in reply.headers


def test_the_servers_own_page_may_call_it(http, url):
    assert call(http, url, "POST", "/search", {"origin": url}).status_code == 200


def test_an_allowed_origin_gets_cors_headers(http, url):
    reply = call(http, url, "POST", "/search", {"origin": UI})
    assert reply.status_code == 200 and reply.headers["access-control-allow-origin"] == UI
    assert "Origin" in reply.headers["vary"]


def test_an_allowed_origin_gets_cors_headers_on_a_refusal_too(http, url):
    # A page must be able to read why it was refused.
    reply = call(http, url, "POST", "/search", {"origin": UI, "content-type": "text/plain"})
    assert reply.status_code == 415 and reply.headers["access-control-allow-origin"] == UI


@pytest.mark.parametrize("path", BODY_ROUTES)
def test_an_allowed_origins_preflight_is_answered(http, url, path):
    reply = http.options(f"{url}{path}", headers={"origin": UI, "access-control-request-method": "POST",
                                                   "access-control-request-headers": "content-type, authorization"})
    assert reply.status_code == 204 and reply.headers["access-control-allow-origin"] == UI
    assert "POST" in reply.headers["access-control-allow-methods"]
    assert {"content-type", "authorization"} <= {h.strip() for h in reply.headers["access-control-allow-headers"].split(",")}


@pytest.mark.parametrize("path", BODY_ROUTES)
def test_another_origins_preflight_is_refused(http, url, path):
    reply = http.options(f"{url}{path}", headers={"origin": "https://evil.example",
                                                   "access-control-request-method": "POST"})
    assert reply.status_code == 403 and "access-control-allow-origin" not in reply.headers


HOSTILE_TYPES = [None, "text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded",
                 "multipart/form-data; boundary=x", "application/json; charset=latin-1", "application/jsonp",
                 "text/json", "application/json-patch+json", "application/javascript"]


@pytest.mark.parametrize("path", BODY_ROUTES)
@pytest.mark.parametrize("content_type", HOSTILE_TYPES)
def test_a_body_that_is_not_declared_json_is_415_on_every_route(http, url, path, content_type):
    headers = {"content-type": content_type} if content_type else {}
    reply = http.post(f"{url}{path}", content=b'{"query": "cats"}', headers=headers)
    assert reply.status_code == 415 and "application/json" in message_of(reply)


@pytest.mark.parametrize("content_type", ["application/json", "Application/JSON", "application/json; charset=utf-8",
                                          'application/json; charset="UTF-8"'])
def test_json_in_utf8_is_accepted_however_it_is_written(content_type):
    assert json_content_type(content_type)


@pytest.mark.parametrize("header,name", [("[::1]:8000", "::1"), ("LocalHost:80", "localhost"), ("example.org", "example.org"),
                                         ("127.0.0.1:65535", "127.0.0.1")])
def test_host_names_are_read_without_port_or_case(header, name):
    assert host_name(header) == name


def test_any_host_when_asked_for():
    assert SitePolicy(allowed_hosts=["*"]).host_allowed("anything.example")


def test_the_flags_reach_the_parser():
    from rag.cli.app import build_parser

    args = build_parser().parse_args(["serve", "--index", "x", "--allowed-host", "a.example", "--allowed-host", "b",
                                      "--cors-origin", UI])
    assert args.allowed_host == ["a.example", "b"] and args.cors_origin == [UI]


@pytest.mark.skipif(not ipv6_loopback(), reason="this machine has no IPv6 loopback")
def test_the_server_runs_on_ipv6_loopback(tmp_path):
    with serve_in_thread(hostile_app(tmp_path), host="::1") as base:
        assert base.startswith("http://[::1]:")
        assert httpx.post(f"{base}/search", json={"query": "cats"}).status_code == 200


@pytest.mark.parametrize("allowed", ["2001:db8::5", "[2001:db8::5]", "::1"])
def test_an_ipv6_address_is_allowed_as_written_without_brackets_or_with_them(allowed):
    name = allowed.strip("[]")
    assert host_name(name) == name
    assert SitePolicy(allowed_hosts=(allowed,)).host_allowed(f"[{name}]:8000")
    assert not SitePolicy(allowed_hosts=(allowed,)).host_allowed("[2001:db8::6]:8000")
