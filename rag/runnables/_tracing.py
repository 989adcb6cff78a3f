"""A runnable's step as a "chain" run: start, end or error events for callback handlers.

:class:`~rag.runnables.Runnable`'s ``_call_traced`` & co. (what its subclasses call) are
these functions, one place for how a step reports itself. A streamed step's end event gets
its output chunks added up; each chunk is reported to the handlers (``on_stream_chunk``)
for event streams.

A step in a streaming chain gets its input as chunks (``transform_traced``): as in
LangChain, its run's start event gets ``{"input": ""}`` (the input is still arriving) and
its end event the input chunks added up as ``inputs``.
"""

from __future__ import annotations

import itertools
from typing import Any, AsyncIterator, Awaitable, Callable, Iterator

from rag import _callbacks
from rag.runnables._streams import NOTHING, add_chunks, output_adder

__all__ = ["call_traced", "acall_traced", "stream_traced", "astream_traced", "transform_traced", "atransform_traced"]


def call_traced(runnable: Any, body: Callable[[Any, Any], Any], input: Any, config: Any) -> Any:
    """Run ``body(input, child_config)`` as one run of ``runnable``: start, then end with
    the output or error with the exception (re-raised)."""
    run = _callbacks.start_run(config, "chain", runnable.get_name(), input, **runnable._run_type_extra())
    child = run.child_config(config)
    try:
        with _callbacks.ambient_config(child if run.handlers else None):
            output = body(input, child)
    except Exception as exc:
        run.error(exc)
        raise
    run.end(output)
    return output


async def acall_traced(runnable: Any, body: Callable[[Any, Any], Awaitable[Any]], input: Any, config: Any) -> Any:
    """Async :func:`call_traced`."""
    run = await _callbacks.astart_run(config, "chain", runnable.get_name(), input, **runnable._run_type_extra())
    child = run.child_config(config)
    try:
        with _callbacks.ambient_config(child if run.handlers else None):
            output = await body(input, child)
    except Exception as exc:
        await run.aerror(exc)
        raise
    await run.aend(output)
    return output


def stream_traced(runnable: Any, body: Callable[[Any, Any], Iterator[Any]], input: Any, config: Any) -> Iterator[Any]:
    """Stream ``body(input, child_config)`` as one run of ``runnable`` whose end event gets
    the chunks' sum."""
    run = _callbacks.start_run(config, "chain", runnable.get_name(), input, **runnable._run_type_extra())
    total, add_output = NOTHING, output_adder(runnable)
    # No ambient config here: a context variable set inside a generator would leak into
    # the consumer's code between chunks.
    try:
        for chunk in body(input, run.child_config(config)):
            if run.handlers:
                total = add_output(total, chunk)
                run.event(_callbacks.STREAM_CHUNK_EVENT, chunk)
            yield chunk
    except BaseException as exc:  # GeneratorExit too: a consumer that stops early ends the run
        run.error(exc)
        raise
    run.end(None if total is NOTHING else total)


async def astream_traced(runnable: Any, body: Callable[[Any, Any], AsyncIterator[Any]], input: Any,
                         config: Any) -> AsyncIterator[Any]:
    """Async :func:`stream_traced`."""
    run = await _callbacks.astart_run(config, "chain", runnable.get_name(), input, **runnable._run_type_extra())
    total, add_output = NOTHING, output_adder(runnable)
    try:
        async for chunk in body(input, run.child_config(config)):
            if run.handlers:
                total = add_output(total, chunk)
                await run.aevent(_callbacks.STREAM_CHUNK_EVENT, chunk)
            yield chunk
    except BaseException as exc:  # GeneratorExit too: a consumer that stops early ends the run
        await run.aerror(exc)  # the sync path for GeneratorExit: see Run.aerror
        raise
    await run.aend(None if total is NOTHING else total)


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
