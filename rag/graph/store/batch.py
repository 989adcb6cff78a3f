"""A store base whose async calls made in the same event-loop tick run as one ``abatch``
(LangGraph's ``langgraph.store.base.batch.AsyncBatchedBaseStore``): fifty nodes each
reading one memory cost one round trip. Repeated reads and writes of one key in a batch
are sent once (:func:`_dedupe_ops`).

Its sync methods may be called from other threads (they wait on the store's loop); on
the loop's own thread they raise ``asyncio.InvalidStateError`` (they would deadlock).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any, Iterable, Literal, Mapping, Optional, Union

from rag.graph.store.base import (NOT_PROVIDED, BaseStore, Item, NamespacePath, NotProvided, Op, PutOp, Result,
                                  SearchItem, _get_op, _list_op, _put_op, _search_op, _validate_namespace_labels)

__all__ = ["AsyncBatchedBaseStore"]


class AsyncBatchedBaseStore(BaseStore):
    """Subclasses implement ``abatch`` (and ``batch`` for callers outside the loop);
    create it inside a running event loop."""

    def __init__(self) -> None:
        super().__init__()
        self._loop = asyncio.get_running_loop()
        self._aqueue: asyncio.Queue[tuple[asyncio.Future, Op]] = asyncio.Queue()
        self._task: Optional[asyncio.Task] = None
        self._ensure_task()

    def __del__(self) -> None:
        try:
            if self._task is not None:
                self._task.cancel()
        except RuntimeError:  # the loop is closed already
            pass

    def _ensure_task(self) -> None:
        # A cancelled or crashed worker is replaced, so one bad moment never wedges the store.
        if self._task is None or self._task.done():
            self._task = self._loop.create_task(_run(self._aqueue, weakref.ref(self)))

    async def _enqueue(self, op: Op) -> Any:
        self._ensure_task()
        future = self._loop.create_future()
        self._aqueue.put_nowait((future, op))
        return await future

    # Ops are checked before they are queued: a bad one must fail its own call only, not
    # every call sharing the batch.
    async def aget(self, namespace: tuple[str, ...], key: str, *, refresh_ttl: Optional[bool] = None) -> Optional[Item]:
        return await self._enqueue(_get_op(self, namespace, key, refresh_ttl))

    async def asearch(self, namespace_prefix: tuple[str, ...], /, *, query: Optional[str] = None,
                      filter: Optional[dict[str, Any]] = None, limit: int = 10, offset: int = 0,
                      refresh_ttl: Optional[bool] = None) -> list[SearchItem]:
        return await self._enqueue(_search_op(self, namespace_prefix, query, filter, limit, offset, refresh_ttl))

    async def aput(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any],
                   index: Union[Literal[False], list[str], None] = None, *,
                   ttl: Union[float, None, NotProvided] = NOT_PROVIDED) -> None:
        return await self._enqueue(_put_op(self, namespace, key, value, index, ttl))

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        _validate_namespace_labels(namespace)
        return await self._enqueue(PutOp(tuple(namespace), str(key), None))

    async def alist_namespaces(self, *, prefix: Optional[NamespacePath] = None, suffix: Optional[NamespacePath] = None,
                               max_depth: Optional[int] = None, limit: int = 100,
                               offset: int = 0) -> list[tuple[str, ...]]:
        return await self._enqueue(_list_op(prefix, suffix, max_depth, limit, offset))

    # -- sync calls from other threads -------------------------------------------------------
    def _wait(self, name: str, coroutine: Any) -> Any:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            coroutine.close()
            raise asyncio.InvalidStateError(
                f"Synchronous calls to {type(self).__name__} detected in the main event loop: they would block it. "
                f"Replace `store.{name}(...)` with `await store.a{name}(...)`")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return self._wait("batch", self.abatch(list(ops)))

    def get(self, namespace: tuple[str, ...], key: str, *, refresh_ttl: Optional[bool] = None) -> Optional[Item]:
        return self._wait("get", self.aget(namespace, key, refresh_ttl=refresh_ttl))

    def search(self, namespace_prefix: tuple[str, ...], /, *, query: Optional[str] = None,
               filter: Optional[dict[str, Any]] = None, limit: int = 10, offset: int = 0,
               refresh_ttl: Optional[bool] = None) -> list[SearchItem]:
        return self._wait("search", self.asearch(namespace_prefix, query=query, filter=filter, limit=limit,
                                                 offset=offset, refresh_ttl=refresh_ttl))

    def put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any],
            index: Union[Literal[False], list[str], None] = None, *,
            ttl: Union[float, None, NotProvided] = NOT_PROVIDED) -> None:
        self._wait("put", self.aput(namespace, key, value, index, ttl=ttl))

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        self._wait("delete", self.adelete(namespace, key))

    def list_namespaces(self, *, prefix: Optional[NamespacePath] = None, suffix: Optional[NamespacePath] = None,
                        max_depth: Optional[int] = None, limit: int = 100, offset: int = 0) -> list[tuple[str, ...]]:
        return self._wait("list_namespaces", self.alist_namespaces(prefix=prefix, suffix=suffix, max_depth=max_depth,
                                                                   limit=limit, offset=offset))


def _dedupe_ops(values: list[Op]) -> tuple[Optional[list[int]], list[Op]]:
    """``(listen, ops)``: equal reads sent once, and one put per key (the last one wins);
    ``listen[i]`` is the position in ``ops`` whose result answers ``values[i]`` (None when
    nothing was merged)."""
    if len(values) <= 1:
        return None, list(values)
    dedupped: list[Op] = []
    listen: list[int] = []
    puts: dict[tuple[tuple[str, ...], str], int] = {}
    reads: dict[Any, int] = {}
    for op in values:
        if isinstance(op, PutOp):
            where = puts.setdefault((op.namespace, op.key), len(dedupped))
            if where == len(dedupped):
                dedupped.append(op)
            else:
                dedupped[where] = op
        else:
            try:
                where = reads.setdefault(op, len(dedupped))
            except TypeError:  # an op holding a dict filter is unhashable
                where = dedupped.index(op) if op in dedupped else len(dedupped)
            if where == len(dedupped):
                dedupped.append(op)
        listen.append(where)
    return listen, dedupped


async def _run(queue: asyncio.Queue, store_ref: weakref.ReferenceType) -> None:
    while True:
        first = await queue.get()
        store = store_ref()
        if store is None:
            return
        try:
            waiting = [first]
            while not queue.empty():  # everything queued in this tick joins the batch
                waiting.append(queue.get_nowait())
            waiting = [(future, op) for future, op in waiting if not future.done()]  # cancelled callers
            if not waiting:
                continue
            listen, ops = _dedupe_ops([op for _, op in waiting])
            try:
                results = await store.abatch(ops)
                if listen is not None:
                    results = [results[i] for i in listen]
                for (future, _), result in zip(waiting, results):
                    if not future.done():
                        future.set_result(result)
            except Exception as exc:
                for future, _ in waiting:
                    if not future.done():
                        future.set_exception(exc)
        finally:
            del store  # no strong reference while idle: the store can be collected
