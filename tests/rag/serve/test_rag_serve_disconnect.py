"""rag serve's own routes cancel the answer when the client goes away, as add_routes' do."""

from __future__ import annotations

import httpx
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from rag.runnables import RunnableLambda  # noqa: E402
from rag.serve import serve_in_thread  # noqa: E402
from rag.serve.index_app import index_app  # noqa: E402

from tests.rag.serve.conftest import SlowRun  # noqa: E402
from tests.rag.serve.index_server import build_index  # noqa: E402


def test_a_chat_completion_whose_client_disconnects_is_cancelled(tmp_path):
    slow = SlowRun()

    async def slow_model(prompt):  # a chat model that answers after 60 s unless cancelled
        return await slow(prompt)

    app = index_app(build_index(tmp_path), llm=RunnableLambda(slow_model), model_name="slow")
    with serve_in_thread(app) as url:
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{url}/v1/chat/completions", json={"messages": [{"role": "user", "content": "cats"}]},
                       timeout=httpx.Timeout(10, read=0.5))
        assert slow.started.is_set()
        # The client closed its connection when the read timed out.
        assert slow.cancelled.wait(timeout=1.0)
