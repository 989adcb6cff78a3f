"""rag.runnables._tracing: how one step reports itself to callback handlers, as plain
functions of (runnable, body, input, config) that Runnable's ``_call_traced`` & co. use."""

import asyncio

import pytest

from rag.callbacks import BaseCallbackHandler
from rag.runnables import RunnableLambda
from rag.runnables._tracing import acall_traced, astream_traced, call_traced, stream_traced


class Recorder(BaseCallbackHandler):
    def __init__(self):
        self.events = []

    def on_chain_start(self, serialized, inputs, **kwargs):
        self.events.append(("start", kwargs.get("name"), inputs))

    def on_chain_end(self, outputs, **kwargs):
        self.events.append(("end", outputs))

    def on_chain_error(self, error, **kwargs):
        self.events.append(("error", type(error).__name__))


STEP = RunnableLambda(lambda x: x, name="step")


def test_call_traced_reports_start_and_end_with_the_output():
    recorder = Recorder()
    output = call_traced(STEP, lambda value, child: value * 2, 21, {"callbacks": [recorder]})
    assert output == 42
    assert recorder.events == [("start", "step", 21), ("end", 42)]


def test_call_traced_reports_the_error_and_raises_it():
    recorder = Recorder()

    def fails(value, child):
        raise KeyError(value)

    with pytest.raises(KeyError):
        call_traced(STEP, fails, "x", {"callbacks": [recorder]})
    assert recorder.events == [("start", "step", "x"), ("error", "KeyError")]


def test_stream_traced_ends_with_the_sum_of_the_chunks():
    recorder = Recorder()
    chunks = list(stream_traced(STEP, lambda value, child: iter(value), "abc", {"callbacks": [recorder]}))
    assert chunks == ["a", "b", "c"]
    assert recorder.events == [("start", "step", "abc"), ("end", "abc")]


def test_async_call_and_stream_report_as_the_sync_ones():
    recorder = Recorder()

    async def double(value, child):
        return value * 2

    async def letters(value, child):
        for letter in value:
            yield letter

    async def main():
        called = await acall_traced(STEP, double, 2, {"callbacks": [recorder]})
        streamed = [chunk async for chunk in astream_traced(STEP, letters, "ab", {"callbacks": [recorder]})]
        return called, streamed

    assert asyncio.run(main()) == (4, ["a", "b"])
    assert recorder.events == [("start", "step", 2), ("end", 4), ("start", "step", "ab"), ("end", "ab")]


def test_a_consumer_that_stops_early_ends_the_streamed_run_with_an_error_event():
    recorder = Recorder()
    stream = stream_traced(STEP, lambda value, child: iter(value), "abc", {"callbacks": [recorder]})
    assert next(stream) == "a"
    stream.close()
    assert recorder.events == [("start", "step", "abc"), ("error", "GeneratorExit")]
