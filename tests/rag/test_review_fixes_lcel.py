"""Regressions found in review: bindings under retry, callbacks through batch and early-stopped
streams, a caller's HTTP client, odd Retry-After headers, duplicate handlers."""

import httpx
import pytest

from rag.callbacks import BaseCallbackHandler
from rag.models import ChatOpenAI, FakeListChatModel
from rag.runnables import RunnableLambda


class Recorder(BaseCallbackHandler):
    def __init__(self):
        self.events = []

    def on_chain_start(self, serialized, inputs, **kwargs):
        self.events.append(("start", kwargs.get("name") or (serialized or {}).get("name")))

    def on_chain_end(self, outputs, **kwargs):
        self.events.append(("end", None))

    def on_chain_error(self, error, **kwargs):
        self.events.append(("error", type(error).__name__))


def test_with_retry_keeps_the_arguments_bound_before_it():
    seen = {}

    def record(x, config):
        seen["tags"] = config.get("tags")
        return x

    RunnableLambda(record).with_config(tags=["kept"]).with_retry().invoke(1)
    assert "kept" in seen["tags"]


def test_with_retry_keeps_bound_model_arguments():
    model = FakeListChatModel(responses=["a b"])
    calls = []
    original = model._generate

    def spy(messages, stop=None, **kwargs):
        calls.append(stop)
        return original(messages, stop=stop, **kwargs)

    model._generate = spy
    model.bind(stop=["\n"]).with_retry().invoke("x")
    assert calls == [["\n"]]


def test_batch_inside_a_traced_step_reports_the_inner_runs():
    recorder = Recorder()
    inner = RunnableLambda(lambda x: x + 1, name="inner")
    outer = RunnableLambda(lambda xs: inner.batch(xs), name="outer")
    outer.invoke([1, 2], {"callbacks": [recorder]})
    assert [name for kind, name in recorder.events if kind == "start"].count("inner") == 2


def test_a_stream_stopped_early_ends_its_run():
    recorder = Recorder()
    chain = RunnableLambda(lambda x: x) | FakeListChatModel(responses=["one two three"])
    for _ in chain.stream("go", {"callbacks": [recorder]}):
        break
    assert ("error", "GeneratorExit") in recorder.events


def test_close_leaves_a_callers_http_client_open():
    client = httpx.Client()
    ChatOpenAI(model="m", base_url="http://127.0.0.1:9/v1", http_client=client).close()
    assert not client.is_closed
    client.close()


@pytest.mark.parametrize("value", ["soon", "Wed, 99 Foo 2026", ""])
def test_an_unparseable_retry_after_falls_back_to_our_backoff(value):
    from rag.models._http import Backoff

    assert Backoff()._retry_after(httpx.Headers({"retry-after": value})) is None


def test_a_handler_given_twice_is_called_once():
    recorder = Recorder()
    RunnableLambda(lambda x: x, name="once").with_config(callbacks=[recorder]).invoke(1, {"callbacks": [recorder]})
    assert [e for e in recorder.events if e[0] == "start"] == [("start", "once")]


def test_a_sync_generator_streams_chunk_by_chunk_on_the_async_path():
    import asyncio
    import threading

    from rag.runnables import RunnableGenerator

    release = threading.Event()

    def slow(chunks):
        for _ in chunks:
            pass
        yield "first"
        # Released only once the consumer has seen "first": a buffering astream never does.
        yield "second" if release.wait(2) else "buffered"

    async def consume():
        seen = []
        async for chunk in RunnableGenerator(slow).astream("x"):
            seen.append(chunk)
            release.set()
        return seen

    assert asyncio.run(consume()) == ["first", "second"]
