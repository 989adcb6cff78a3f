"""The API key guards WebSocket routes a user adds to rag serve's app, as it guards HTTP ones."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
websockets = pytest.importorskip("websockets")

from starlette.routing import WebSocketRoute  # noqa: E402

from rag.serve import serve_in_thread  # noqa: E402
from rag.serve.index_app import index_app  # noqa: E402

from tests.rag.serve.index_server import build_index  # noqa: E402

KEY = "s3cret-key-for-tests"


async def _echo(websocket):
    await websocket.accept()
    await websocket.send_text("secret data")
    await websocket.close()


@pytest.fixture(scope="module")
def ws_url(tmp_path_factory):
    app = index_app(build_index(tmp_path_factory.mktemp("ws-index")), api_key=KEY)
    app.router.routes.append(WebSocketRoute("/ws", _echo))
    with serve_in_thread(app) as base:
        yield base.replace("http://", "ws://", 1) + "/ws"


async def _first_message(url: str, headers: dict[str, str]) -> str:
    async with websockets.connect(url, additional_headers=headers) as ws:
        return await ws.recv()


def test_a_websocket_route_without_the_key_is_refused(ws_url):
    with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
        asyncio.run(_first_message(ws_url, {}))
    assert refused.value.response.status_code in (401, 403)


def test_a_websocket_route_with_a_wrong_key_is_refused(ws_url):
    with pytest.raises(websockets.exceptions.InvalidStatus):
        asyncio.run(_first_message(ws_url, {"authorization": "Bearer " + KEY[:-1] + "x"}))


def test_a_websocket_route_with_the_key_is_served(ws_url):
    assert asyncio.run(_first_message(ws_url, {"authorization": f"Bearer {KEY}"})) == "secret data"
