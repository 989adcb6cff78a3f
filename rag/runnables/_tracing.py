"""Runs for streamed steps: a step in a streaming chain gets its input as chunks.

As in LangChain, the run's start event gets ``{"input": ""}`` (the input is still
arriving), its end event the input chunks added up as ``inputs``, and each output chunk
is reported to the handlers (``on_stream_chunk``) for event streams.
"""

from __future__ import annotations

import itertools
from typing import Any, AsyncIterator, Callable, Iterator

from rag import _callbacks
from rag.runnables._streams import NOTHING, add_chunks, output_adder

__all__ = ["transform_traced", "atransform_traced"]


def transform_traced(runnable: Any, body: Callable[[Iterator[Any], Any], Iterator[Any]], input: Iterator[Any],
                     config: Any) -> Iterator[Any]:
    """Stream ``body(input_chunks, child_config)`` as one run of ``runnable``. The run
    starts when the first input chunk has arrived (so a step after a model starts after
    the model's first token, as in LangChain's event order)."""
    pieces = iter(input)
    first = next(pieces, NOTHING)
    run = _callbacks.start_run(config, "chain", runnable.get_name(), {"input": ""}, **runnable._run_type_extra())
    seen: list[Any] = [NOTHING]
    add_output = output_adder(runnable)

    def tee() -> Iterator[Any]:
        for piece in itertools.chain([] if first is NOTHING else [first], pieces):
            if run.handlers:
                seen[0] = add_chunks(seen[0], piece)
            yield piece

    total = NOTHING
    try:
        for chunk in body(tee(), run.child_config(config)):  # type: ignore[arg-type]
            if run.handlers:
                total = add_output(total, chunk)
                run.event(_callbacks.STREAM_CHUNK_EVENT, chunk)
            yield chunk
    except BaseException as exc:
        run.error(exc)
        raise
    run.end(None if total is NOTHING else total, inputs=None if seen[0] is NOTHING else seen[0])


async def atransform_traced(runnable: Any, body: Callable[[AsyncIterator[Any], Any], AsyncIterator[Any]],
                            input: AsyncIterator[Any], config: Any) -> AsyncIterator[Any]:
    """Async :func:`transform_traced`."""
    pieces = aiter(input)
    first = await anext(pieces, NOTHING)
    run = await _callbacks.astart_run(config, "chain", runnable.get_name(), {"input": ""}, **runnable._run_type_extra())
    seen: list[Any] = [NOTHING]
    add_output = output_adder(runnable)

    async def tee() -> AsyncIterator[Any]:
        if first is not NOTHING:
            if run.handlers:
                seen[0] = first
            yield first
        async for piece in pieces:
            if run.handlers:
                seen[0] = add_chunks(seen[0], piece)
            yield piece

    total = NOTHING
    try:
        async for chunk in body(tee(), run.child_config(config)):  # type: ignore[arg-type]
            if run.handlers:
                total = add_output(total, chunk)
                await run.aevent(_callbacks.STREAM_CHUNK_EVENT, chunk)
            yield chunk
    except BaseException as exc:
        await run.aerror(exc)
        raise
    await run.aend(None if total is NOTHING else total, inputs=None if seen[0] is NOTHING else seen[0])
