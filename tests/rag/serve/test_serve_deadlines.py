"""A slow-drip client cannot hold a connection (issue 35, item 4): headers not in within the
server's header deadline close the connection; a body not in within the app's body
deadline gets 408 and the connection is closed. Deadlines are set short here (0.5 s); what
the tests check is the outcome (closed, 408), never how long it took. A real server on
127.0.0.1 and raw sockets."""

from __future__ import annotations

import socket

import httpx
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from rag.errors import ValidationError  # noqa: E402
from rag.serve import serve_in_thread  # noqa: E402
from rag.serve.deadlines import header_deadline_protocol  # noqa: E402
from rag.serve.index_app import index_app  # noqa: E402

from tests.rag.serve.index_server import build_index  # noqa: E402

# How long a socket read may wait before the test gives up: far above the deadlines.
PATIENCE_SECONDS = 30


@pytest.fixture(scope="module")
def address(tmp_path_factory):
    app = index_app(build_index(tmp_path_factory.mktemp("deadlines")), body_seconds=0.5)
    with serve_in_thread(app, header_seconds=0.5) as url:
        host, port = url.removeprefix("http://").rsplit(":", 1)
        yield url, (host, int(port))


def read_all(conn: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    while chunk := conn.recv(4096):
        received += chunk
    return received


def read_response(conn: socket.socket) -> bytes:
    """One whole response with a Content-Length, the connection left open."""
    received = b""
    while b"\r\n\r\n" not in received:
        received += conn.recv(4096)
    head, _, body = received.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
    while len(body) < length:
        body += conn.recv(4096)
    return head + b"\r\n\r\n" + body


def test_headers_that_drip_in_are_cut_off(address):
    _, where = address
    with socket.create_connection(where, timeout=PATIENCE_SECONDS) as conn:
        conn.sendall(b"POST /search HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # ... and never the rest
        assert read_all(conn) == b""  # closed by the server, nothing to answer


def test_a_connection_that_sends_nothing_is_closed(address):
    _, where = address
    with socket.create_connection(where, timeout=PATIENCE_SECONDS) as conn:
        assert read_all(conn) == b""


def test_a_body_that_drips_in_is_408_and_the_connection_closed(address):
    _, where = address
    with socket.create_connection(where, timeout=PATIENCE_SECONDS) as conn:
        conn.sendall(b"POST /search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n" + b'{"query": "ca')  # 13 of the 100 bytes promised
        answer = read_all(conn)
    assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive within 0.5 s" in answer
    assert b"connection: close" in answer.lower()


def test_a_kept_alive_connection_that_starts_a_request_and_stalls_is_closed(address):
    _, where = address
    with socket.create_connection(where, timeout=PATIENCE_SECONDS) as conn:
        conn.sendall(b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        first = read_response(conn)
        conn.sendall(b"GET /v1/mod")  # the next request's headers, never finished
        rest = read_all(conn)
    assert first.startswith(b"HTTP/1.1 200") and rest == b""


def test_prompt_clients_are_served_as_before(address):
    url, _ = address
    with httpx.Client() as http:
        for _ in range(3):  # on one kept-alive connection
            assert http.post(f"{url}/search", json={"query": "cats"}).status_code == 200


@pytest.mark.parametrize("seconds", [0, -1.0])
def test_a_deadline_must_be_positive(seconds, tmp_path):
    with pytest.raises(ValidationError, match="header_seconds"):
        header_deadline_protocol(seconds)
    with pytest.raises(ValidationError, match="body_seconds"):
        index_app(build_index(tmp_path), body_seconds=seconds)


def test_an_idle_kept_alive_connection_is_not_taken_for_slow_headers(address):
    import time

    _, where = address
    with socket.create_connection(where, timeout=PATIENCE_SECONDS) as conn:
        request = b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        conn.sendall(request)
        first = read_response(conn)
        time.sleep(1.0)  # idle, past the 0.5 s header deadline: the keep-alive timeout's business
        conn.sendall(request)
        second = read_response(conn)
    assert first.startswith(b"HTTP/1.1 200") and second.startswith(b"HTTP/1.1 200")


def test_idle_connections_outlive_the_clients_own_keep_alive():
    # Both sides giving up at the same moment loses requests sent on a closing connection.
    from rag.serve.background import KEEP_ALIVE_SECONDS

    assert KEEP_ALIVE_SECONDS > httpx.Limits().keepalive_expiry
