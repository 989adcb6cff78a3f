"""Bridges between the async fetching core and sync callers, and ordered concurrency."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from typing import TypeVar

__all__ = ["iterate_in_thread", "ordered_map"]

T = TypeVar("T")
R = TypeVar("R")

_DONE = object()
_HANDOFF = 64  # items the producer may run ahead of a slow consumer


def iterate_in_thread(make: Callable[[], AsyncIterator[T]]) -> Iterator[T]:
    """Iterate the async iterator ``make()`` from sync code, lazily.

    The async side runs in a private thread with its own event loop, so this works from
    plain sync code and from inside a running event loop (where ``asyncio.run`` would
    fail). Items pass through a bounded queue; an exception is re-raised here; closing
    this generator early cancels the async side and waits for it to finish.
    """
    handoff: queue.Queue[tuple[bool, object]] = queue.Queue(maxsize=_HANDOFF)
    stop = threading.Event()
    state: dict[str, object] = {}

    async def produce() -> None:
        state["loop"] = asyncio.get_running_loop()
        state["task"] = asyncio.current_task()
        try:
            async for item in make():
                if stop.is_set():
                    return
                await _put(handoff, (True, item), stop)
        except asyncio.CancelledError:
            return
        except BaseException as exc:  # handed to the consumer, raised there
            await _put(handoff, (False, exc), stop)
            return
        await _put(handoff, (True, _DONE), stop)

    def run() -> None:
        asyncio.run(produce())

    # Started only when the consumer asks for the first item: nothing is fetched before.
    thread = threading.Thread(target=run, name="loaders-async", daemon=True)
    thread.start()
    try:
        while True:
            ok, item = handoff.get()
            if not ok:
                raise item  # type: ignore[misc]
            if item is _DONE:
                return
            yield item  # type: ignore[misc]
    finally:
        stop.set()
        loop, task = state.get("loop"), state.get("task")
        if thread.is_alive() and loop is not None and task is not None:
            try:
                loop.call_soon_threadsafe(task.cancel)  # type: ignore[attr-defined]
            except RuntimeError:  # the loop already closed
                pass
        while thread.is_alive():
            try:  # unblock a producer waiting for room in the queue
                handoff.get_nowait()
            except queue.Empty:
                pass
            thread.join(0.01)


async def _put(
    handoff: queue.Queue[tuple[bool, object]], item: tuple[bool, object], stop: threading.Event
) -> None:
    while not stop.is_set():
        try:
            handoff.put_nowait(item)
            return
        except queue.Full:
            # Wait for the consumer without blocking the loop's other tasks.
            await asyncio.sleep(0.005)


async def ordered_map(
    function: Callable[[T], Awaitable[R]], items: Iterable[T], *, window: int
) -> AsyncIterator[R]:
    """``function(item)`` for each item, run concurrently, results yielded in input order.

    At most ``window`` (>= 1) calls are in flight or finished-but-unyielded at a time, so
    memory stays bounded for long inputs. An exception from a call is raised when its
    turn comes; the calls still pending are then cancelled.
    """
    pending: deque[asyncio.Task[R]] = deque()
    source = iter(items)
    try:
        for item in source:
            pending.append(asyncio.ensure_future(function(item)))
            if len(pending) >= window:
                yield await pending.popleft()
        while pending:
            yield await pending.popleft()
    finally:
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
