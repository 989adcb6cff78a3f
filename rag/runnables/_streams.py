"""Stream plumbing shared by the runnables: adding chunks up, merging branch streams, and
the entry points of runnables that work chunk by chunk."""

from __future__ import annotations

import asyncio
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, AsyncIterator, Callable, Iterable, Iterator, Mapping

__all__ = ["add_chunks", "output_adder", "collect", "acollect", "merge_streams", "amerge_streams", "NOTHING",
           "Chunkwise"]

NOTHING: Any = object()  # an empty stream's aggregate


def _latest(left: Any, right: Any) -> Any:
    return right


def output_adder(runnable: Any) -> Any:
    """How a stream's chunks make a run's output: :func:`add_chunks`, or the last chunk for
    a runnable whose chunks are snapshots of the whole (``_chunks_are_snapshots``, e.g. a
    cumulative JSON parser: adding its dicts would concatenate their strings)."""
    return _latest if getattr(runnable, "_chunks_are_snapshots", False) else add_chunks


def add_chunks(left: Any, right: Any) -> Any:
    """The sum of two stream chunks: dicts add key by key, other values with ``+``; values
    that cannot be added keep the later one (a stream of snapshots)."""
    if left is NOTHING:
        return right
    if isinstance(left, dict) and isinstance(right, dict):
        merged = dict(left)
        for key, value in right.items():
            merged[key] = add_chunks(merged[key], value) if key in merged else value
        return merged
    try:
        return left + right
    except TypeError:
        return right


def collect(chunks: Iterable[Any]) -> Any:
    """All chunks added up; :data:`NOTHING` for an empty stream."""
    total = NOTHING
    for chunk in chunks:
        total = add_chunks(total, chunk)
    return total


async def acollect(chunks: AsyncIterator[Any]) -> Any:
    total = NOTHING
    async for chunk in chunks:
        total = add_chunks(total, chunk)
    return total


_DONE = object()


def merge_streams(streams: Mapping[str, Callable[[], Iterator[Any]]], workers: int) -> Iterator[tuple[str, Any]]:
    """Run each stream in its own thread (at most ``workers`` at once) and yield
    ``(key, chunk)`` as chunks arrive. The first error stops the merge and is raised."""
    if len(streams) == 1 or workers == 1:
        # One at a time is the order a one-worker pool gives; no thread needed (a thread
        # per stream step made a one-branch assign, e.g. an agent's scratchpad, ~10x slower).
        for key, open_stream in streams.items():
            for chunk in open_stream():
                yield key, chunk
        return
    inbox: "queue.Queue[tuple[str, Any, BaseException | None]]" = queue.Queue()
    stop = threading.Event()

    def pump(key: str, open_stream: Callable[[], Iterator[Any]]) -> None:
        try:
            for chunk in open_stream():
                if stop.is_set():
                    return
                inbox.put((key, chunk, None))
        except BaseException as exc:  # handed to the consumer, which raises it
            inbox.put((key, _DONE, exc))
            return
        inbox.put((key, _DONE, None))

    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        for key, open_stream in streams.items():
            pool.submit(pump, key, open_stream)
        remaining = len(streams)
        while remaining:
            key, chunk, error = inbox.get()
            if error is not None:
                raise error
            if chunk is _DONE:
                remaining -= 1
            else:
                yield key, chunk
    finally:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)


async def amerge_streams(streams: Mapping[str, Callable[[], AsyncIterator[Any]]], workers: int) -> AsyncIterator[tuple[str, Any]]:
    """Async :func:`merge_streams`: one task per stream, at most ``workers`` running."""
    inbox: "asyncio.Queue[tuple[str, Any, BaseException | None]]" = asyncio.Queue()
    gate = asyncio.Semaphore(workers)

    async def pump(key: str, open_stream: Callable[[], AsyncIterator[Any]]) -> None:
        async with gate:
            try:
                async for chunk in open_stream():
                    await inbox.put((key, chunk, None))
            except Exception as exc:
                await inbox.put((key, _DONE, exc))
                return
        await inbox.put((key, _DONE, None))

    tasks = [asyncio.create_task(pump(key, opener)) for key, opener in streams.items()]
    try:
        remaining = len(tasks)
        while remaining:
            key, chunk, error = await inbox.get()
            if error is not None:
                raise error
            if chunk is _DONE:
                remaining -= 1
            else:
                yield key, chunk
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


class Chunkwise:
    """For a :class:`~rag.runnables.Runnable` that works chunk by chunk (passthrough,
    assign, transforming parsers): it defines ``_transform(chunks, config)`` and
    ``_atransform(chunks, config)``; ``transform``, ``atransform``, ``stream`` and
    ``astream`` come from them here, each call one traced run (``stream``: its one input as
    the only chunk). Put it first among the bases so that these replace Runnable's."""

    def transform(self: Any, input: Iterator[Any], config: Any = None, **kwargs: Any) -> Iterator[Any]:
        return self._transform_traced(self._transform, input, config)

    async def atransform(self: Any, input: AsyncIterator[Any], config: Any = None, **kwargs: Any) -> AsyncIterator[Any]:
        async for chunk in self._atransform_traced(self._atransform, input, config):
            yield chunk

    def stream(self: Any, input: Any, config: Any = None, **kwargs: Any) -> Iterator[Any]:
        return self._stream_traced(lambda value, cfg: self._transform(iter([value]), cfg), input, config)

    async def astream(self: Any, input: Any, config: Any = None, **kwargs: Any) -> AsyncIterator[Any]:
        async def once() -> AsyncIterator[Any]:
            yield input

        async for chunk in self._astream_traced(lambda value, cfg: self._atransform(once(), cfg), input, config):
            yield chunk
