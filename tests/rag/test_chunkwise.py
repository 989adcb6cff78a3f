"""rag.runnables._streams.Chunkwise: a runnable that defines _transform/_atransform gets
its transform, atransform, stream and astream from them, each call one traced run."""

import asyncio

from rag.callbacks import BaseCallbackHandler
from rag.runnables import Runnable
from rag.runnables._streams import Chunkwise


class Upper(Chunkwise, Runnable):
    def invoke(self, input, config=None, **kwargs):
        return input.upper()

    def _transform(self, chunks, config):
        for chunk in chunks:
            yield chunk.upper()

    async def _atransform(self, chunks, config):
        async for chunk in chunks:
            yield chunk.upper()


class Runs(BaseCallbackHandler):
    def __init__(self):
        self.ends = []

    def on_chain_end(self, outputs, **kwargs):
        self.ends.append(outputs)


def test_transform_passes_each_chunk_on_before_the_next_arrives():
    pulled = []

    def chunks():
        for piece in ["a", "b", "c"]:
            pulled.append(piece)
            yield piece

    seen = [(chunk, list(pulled)) for chunk in Upper().transform(chunks())]
    assert seen == [("A", ["a"]), ("B", ["a", "b"]), ("C", ["a", "b", "c"])]


def test_stream_takes_its_input_as_one_chunk_and_reports_one_run():
    runs = Runs()
    assert list(Upper().stream("hi", {"callbacks": [runs]})) == ["HI"]
    assert runs.ends == ["HI"]


def test_the_async_entry_points_match_the_sync_ones():
    async def pieces():
        for piece in ["x", "y"]:
            yield piece

    async def main():
        streamed = [chunk async for chunk in Upper().astream("hi")]
        transformed = [chunk async for chunk in Upper().atransform(pieces())]
        return streamed, transformed

    assert asyncio.run(main()) == (["HI"], ["X", "Y"])


def test_transform_does_not_add_the_chunks_up_first_as_runnables_default_does():
    assert list(Upper().transform(iter(["a", "b"]))) == ["A", "B"]  # Runnable.transform: ["AB"]
