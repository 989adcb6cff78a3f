"""What the hostile-input tests share: a served index with a user's chain added, its route
table (so a route added to the app is covered without touching the tests), and the
message of an error answer in each of the three shapes the server writes."""

from __future__ import annotations

import re
import socket
import tempfile
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from rag.runnables import RunnableLambda
from rag.serve import add_routes
from rag.serve.index_app import index_app
from tests.rag.serve.index_server import build_index

JSON = {"content-type": "application/json"}


async def _plain(request: Any) -> JSONResponse:
    return JSONResponse({"plain": True})


def hostile_app(folder: Path, **options: Any) -> Starlette:
    """rag serve's app over a small index, with a chain a user added at ``/mine`` and a
    plain Starlette route appended at ``/plain`` (as a page such as ``/traces`` is)."""
    app = index_app(build_index(folder), **options)
    add_routes(app, RunnableLambda(lambda text: str(text).upper()), "/mine")
    app.router.routes.append(Route("/plain", _plain, methods=["GET"]))
    return app


def route_table(app: Starlette) -> list[tuple[str, str]]:
    """``(method, path)`` of every route, path parameters filled in (``{run_id}`` -> ``x``)."""
    table = []
    for route in app.routes:
        if isinstance(route, Route) and route.methods:
            path = re.sub(r"\{[^}]+\}", "x", route.path)
            table += [(method, path) for method in sorted(route.methods) if method != "HEAD"]
    return table


def served_route_table() -> list[tuple[str, str]]:
    """:func:`route_table` of :func:`hostile_app`, read when a test module is collected
    (parametrize needs the list then)."""
    with tempfile.TemporaryDirectory() as folder:
        return route_table(hostile_app(Path(folder)))


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    """One client (one kept-alive connection) for a module's hundreds of cases."""
    with httpx.Client(timeout=60) as client:
        yield client


def ipv6_loopback() -> bool:
    """Whether this machine can serve on ::1."""
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


def message_of(reply: httpx.Response) -> str:
    """The error's words: rag serve's ``message``, OpenAI's ``error.message`` or FastAPI's
    ``detail[0].msg`` (with its location)."""
    body = reply.json()
    if "message" in body:
        return str(body["message"])
    if "error" in body:
        return str(body["error"]["message"])
    first = body["detail"][0]
    return f"{'.'.join(map(str, first['loc']))}: {first['msg']}"
