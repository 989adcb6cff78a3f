"""A real uvicorn server on 127.0.0.1 (random port) serving the chains the tests call."""

from __future__ import annotations

import asyncio
import threading

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.applications import Starlette  # noqa: E402

from rag.documents import Document  # noqa: E402
from rag.models import FakeListChatModel  # noqa: E402
from rag.parsers import StrOutputParser  # noqa: E402
from rag.prompts import ChatPromptTemplate  # noqa: E402
from rag.runnables import ConfigurableField, ConfigurableFieldSpec, Runnable, RunnableLambda  # noqa: E402
from rag.serve import add_routes, serve_in_thread  # noqa: E402


class NeedsUser(Runnable):
    """Reads a required configurable value, as a per-user chain would."""

    def _own_config_specs(self):
        return [ConfigurableFieldSpec(id="user_id", annotation=str, required=True)]

    def invoke(self, input, config=None, **kwargs):
        return f"{(config or {})['configurable']['user_id']}:{input}"


class SlowRun:
    """An async step that waits until cancelled; records when it starts and is cancelled."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.cancelled = threading.Event()

    async def __call__(self, value: str) -> str:
        self.started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        return value


class Gate:
    """A streaming step that yields one chunk, then waits for the client to open the gate."""

    def __init__(self) -> None:
        self.open = threading.Event()

    def __call__(self, chunks):
        for _ in chunks:
            pass
        yield "first"
        if not self.open.wait(timeout=10):
            yield "gate-timeout"
            return
        yield "second"


def _boom(value):
    raise ValueError(f"cannot handle {value!r}")


def _docs(query: str) -> list[Document]:
    return [Document(f"about {query}", {"source": "kb", "rank": 1}, id="d1")]


@pytest.fixture(scope="module")
def served():
    """The base URL of a server with every chain below, and the objects tests inspect."""
    slow_invoke, slow_stream, gate = SlowRun(), SlowRun(), Gate()

    async def slow_tokens(chunks):
        async for _ in chunks:
            pass
        yield "tick"
        await slow_stream("x")

    app = Starlette()
    model = FakeListChatModel(responses=["hello there world"])
    add_routes(app, ChatPromptTemplate.from_template("say {topic}") | model, path="/chat")
    add_routes(app, ChatPromptTemplate.from_template("say {topic}") | FakeListChatModel(responses=["a b c"])
               | StrOutputParser(), path="/text")
    add_routes(app, RunnableLambda(_docs, name="docs"), path="/docs")
    add_routes(app, RunnableLambda(lambda x: x * 2), path="/double")
    add_routes(app, RunnableLambda(_boom), path="/boom")
    async def slow(value: str) -> str:
        return await slow_invoke(value)

    add_routes(app, RunnableLambda(slow), path="/slow")
    from rag.runnables import RunnableGenerator

    add_routes(app, RunnableGenerator(slow_tokens), path="/slow_stream")
    add_routes(app, RunnableGenerator(gate), path="/gate")
    add_routes(app, NeedsUser(), path="/user")
    add_routes(app, FakeListChatModel(responses=["x"]).configurable_fields(
        responses=ConfigurableField(id="replies", description="scripted replies")), path="/configurable")
    add_routes(app, RunnableLambda(lambda x: x), path="/only_invoke", enabled_endpoints=["invoke"])
    with serve_in_thread(app) as url:
        yield {"url": url, "slow_invoke": slow_invoke, "slow_stream": slow_stream, "gate": gate}
