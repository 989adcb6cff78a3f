"""``astream_events``: every step's start, stream and end, as LangChain's v2 events.

An event is a dict ``{"event", "name", "run_id", "parent_ids", "tags", "metadata",
"data"}``: ``event`` is ``on_<type>_<phase>`` with type chain, prompt, parser,
chat_model, retriever or tool and phase start, stream or end (``on_tool_error`` too);
``parent_ids`` lists the enclosing runs' ids, root first; ``data`` holds ``input`` (start),
``chunk`` (stream) or ``output`` and ``input`` (end). Chat models stream their tokens as
``on_chat_model_stream`` events even when a step calls ``invoke`` (the event handler asks
them to, as LangChain's does).

The events come from an ordinary callback handler (:class:`EventStreamHandler`) added to
the config, so everything that reaches callbacks reaches the stream, also from worker
threads. Filters follow LangChain: an event passes when it matches any ``include_*``
(or none is given) and no ``exclude_*``.

>>> import asyncio
>>> from rag.runnables import RunnableLambda
>>> async def kinds():
...     return [e["event"] async for e in RunnableLambda(lambda x: x + 1).astream_events(1)]
>>> asyncio.run(kinds())
['on_chain_start', 'on_chain_stream', 'on_chain_end']
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import uuid
from dataclasses import dataclass
from typing import Any, AsyncIterator, Optional, Sequence

from rag.errors import ValidationError
from rag.runnables.config import RunnableConfig, merge_configs

__all__ = ["astream_events", "EventStreamHandler", "EventFilter"]

# Run types whose runs have no stream events of their own (LangChain's prompts and
# retrievers return at once; models stream through on_llm_new_token instead).
_NO_CHUNK_EVENTS = frozenset({"prompt", "retriever", "chat_model", "llm", "tool"})


@dataclass(frozen=True)
class EventFilter:
    """Which events pass; LangChain's ``_RootEventFilter`` rules."""

    include_names: Optional[Sequence[str]] = None
    include_types: Optional[Sequence[str]] = None
    include_tags: Optional[Sequence[str]] = None
    exclude_names: Optional[Sequence[str]] = None
    exclude_types: Optional[Sequence[str]] = None
    exclude_tags: Optional[Sequence[str]] = None

    def passes(self, event: dict[str, Any], run_type: str) -> bool:
        tags = event.get("tags") or []
        include = self.include_names is None and self.include_types is None and self.include_tags is None
        if self.include_names is not None:
            include = include or event["name"] in self.include_names
        if self.include_types is not None:
            include = include or run_type in self.include_types
        if self.include_tags is not None:
            include = include or any(tag in self.include_tags for tag in tags)
        if self.exclude_names is not None:
            include = include and event["name"] not in self.exclude_names
        if self.exclude_types is not None:
            include = include and run_type not in self.exclude_types
        if self.exclude_tags is not None:
            include = include and all(tag not in self.exclude_tags for tag in tags)
        return include


@dataclass
class _RunInfo:
    name: str
    run_type: str
    tags: list[str]
    metadata: dict[str, Any]
    inputs: Any
    has_inputs: bool


class EventStreamHandler:
    """A callback handler that turns run callbacks into v2 event dicts and hands each to
    ``sink(event, run_type)``. Thread-safe: sync steps report from worker threads."""

    streams_model_tokens = True  # chat models stream on invoke so token events appear

    def __init__(self, sink: Any) -> None:
        self._sink = sink
        self._runs: dict[uuid.UUID, _RunInfo] = {}
        self._parents: dict[uuid.UUID, Optional[uuid.UUID]] = {}
        self._lock = threading.Lock()

    # -- bookkeeping ------------------------------------------------------------------
    def parent_ids(self, run_id: uuid.UUID) -> list[str]:
        ids: list[str] = []
        with self._lock:
            while (parent := self._parents.get(run_id)) is not None:
                ids.append(str(parent))
                run_id = parent
        return ids[::-1]

    def _event(self, kind: str, run_id: uuid.UUID, info: _RunInfo, data: dict[str, Any]) -> None:
        event = {"event": f"on_{info.run_type}_{kind}", "data": data, "name": info.name, "tags": list(info.tags),
                 "run_id": str(run_id), "metadata": dict(info.metadata), "parent_ids": self.parent_ids(run_id)}
        self._sink(event, info.run_type)

    def _start(self, run_type: str, serialized: Optional[dict[str, Any]], run_id: uuid.UUID,
               parent_run_id: Optional[uuid.UUID], kwargs: dict[str, Any], data: dict[str, Any],
               inputs: Any, has_inputs: bool = True) -> None:
        name = kwargs.get("name") or (serialized or {}).get("name") or "Unnamed"
        info = _RunInfo(str(name), run_type, list(kwargs.get("tags") or []), dict(kwargs.get("metadata") or {}),
                        inputs, has_inputs)
        with self._lock:
            self._runs[run_id] = info
            self._parents[run_id] = parent_run_id
        self._event("start", run_id, info, data)

    def _pop(self, run_id: uuid.UUID) -> Optional[_RunInfo]:
        with self._lock:
            return self._runs.pop(run_id, None)

    def _info(self, run_id: uuid.UUID) -> Optional[_RunInfo]:
        with self._lock:
            return self._runs.get(run_id)

    # -- chains, prompts, parsers ------------------------------------------------------
    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: uuid.UUID,
                       parent_run_id: Optional[uuid.UUID] = None, run_type: Optional[str] = None,
                       **kwargs: Any) -> None:
        # A streamed step starts before its input has arrived: {"input": ""} means "not yet".
        known = inputs != {"input": ""}
        self._start(run_type or "chain", serialized, run_id, parent_run_id, kwargs,
                    {"input": inputs} if known else {}, inputs, known)

    def on_stream_chunk(self, chunk: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        info = self._info(run_id)
        if info is not None and info.run_type not in _NO_CHUNK_EVENTS:
            self._event("stream", run_id, info, {"chunk": chunk})

    def on_chain_end(self, outputs: Any, *, run_id: uuid.UUID, inputs: Any = None, **kwargs: Any) -> None:
        info = self._pop(run_id)
        if info is not None:
            given = inputs if inputs is not None else (info.inputs if info.has_inputs else {})
            self._event("end", run_id, info, {"output": outputs, "input": given})

    def on_chain_error(self, error: BaseException, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._pop(run_id)  # v2 has no chain error event: the exception reaches the caller

    # -- chat models ------------------------------------------------------------------
    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: uuid.UUID,
                            parent_run_id: Optional[uuid.UUID] = None, **kwargs: Any) -> None:
        inputs = {"messages": messages}
        self._start("chat_model", serialized, run_id, parent_run_id, kwargs, {"input": inputs}, inputs)

    def on_llm_new_token(self, token: str, *, chunk: Any = None, run_id: uuid.UUID, **kwargs: Any) -> None:
        info = self._info(run_id)
        if info is None:
            return
        if chunk is None:
            from rag.messages import AIMessageChunk

            chunk = AIMessageChunk(token)
        self._event("stream", run_id, info, {"chunk": chunk})

    def on_llm_end(self, response: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        info = self._pop(run_id)
        if info is None:
            return
        generations = getattr(response, "generations", None) or [[]]
        output = generations[0][0].message if generations and generations[0] else {}
        self._event("end", run_id, info, {"output": output, "input": info.inputs})

    def on_llm_error(self, error: BaseException, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._pop(run_id)

    # -- retrievers -------------------------------------------------------------------
    def on_retriever_start(self, serialized: Any, query: str, *, run_id: uuid.UUID,
                           parent_run_id: Optional[uuid.UUID] = None, **kwargs: Any) -> None:
        inputs = {"query": query}
        self._start("retriever", serialized, run_id, parent_run_id, kwargs, {"input": inputs}, inputs)

    def on_retriever_end(self, documents: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        info = self._pop(run_id)
        if info is not None:
            self._event("end", run_id, info, {"output": documents, "input": info.inputs})

    def on_retriever_error(self, error: BaseException, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._pop(run_id)

    # -- tools ------------------------------------------------------------------------
    def on_tool_start(self, serialized: Any, input_str: str, *, run_id: uuid.UUID,
                      parent_run_id: Optional[uuid.UUID] = None, inputs: Any = None, **kwargs: Any) -> None:
        self._start("tool", serialized, run_id, parent_run_id, kwargs, {"input": inputs or {}}, inputs)

    def on_tool_end(self, output: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        info = self._pop(run_id)
        if info is not None:
            self._event("end", run_id, info, {"output": output, "input": info.inputs})

    def on_tool_error(self, error: BaseException, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        info = self._pop(run_id)
        if info is not None:
            self._event("error", run_id, info, {"error": error, "input": info.inputs,
                                                "tool_call_id": kwargs.get("tool_call_id")})


class _Inbox:
    """An asyncio queue fed from the loop's thread and from worker threads, in order."""

    _CLOSED = object()

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self._loop_thread = threading.get_ident()

    def put(self, item: Any) -> None:
        if threading.get_ident() == self._loop_thread:
            self.queue.put_nowait(item)
        else:
            # Worker threads hand items over through the loop; the worker's own completion
            # is scheduled the same way, after them, so the order is kept.
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)

    def close(self) -> None:
        self.put(self._CLOSED)

    async def __aiter__(self) -> AsyncIterator[Any]:
        while (item := await self.queue.get()) is not self._CLOSED:
            yield item


async def run_with_handler(runnable: Any, input: Any, config: Optional[RunnableConfig], handler: Any,
                           inbox: _Inbox, kwargs: dict[str, Any]) -> tuple[asyncio.Task, uuid.UUID]:
    """Start ``runnable.astream`` with ``handler`` added to the callbacks, in a task that
    closes ``inbox`` when it ends. Returns the task and the root run's id."""
    config = merge_configs(config, {"callbacks": [handler]})
    run_id = config.get("run_id") or uuid.uuid4()
    config["run_id"] = run_id

    async def consume() -> None:
        try:
            async for _ in runnable.astream(input, config, **kwargs):
                pass
        finally:
            inbox.close()

    return asyncio.create_task(consume()), run_id


async def finish(task: asyncio.Task) -> None:
    """Stop ``task`` if it still runs; raise what it raised."""
    if not task.done():
        task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def astream_events(runnable: Any, input: Any, config: Optional[RunnableConfig] = None, *,
                         version: str = "v2", include_names: Optional[Sequence[str]] = None,
                         include_types: Optional[Sequence[str]] = None, include_tags: Optional[Sequence[str]] = None,
                         exclude_names: Optional[Sequence[str]] = None, exclude_types: Optional[Sequence[str]] = None,
                         exclude_tags: Optional[Sequence[str]] = None, **kwargs: Any) -> AsyncIterator[dict[str, Any]]:
    """Run ``runnable`` on ``input`` (streaming) and yield its events as they happen.
    ``version`` must be "v2" (LangChain's deprecated v1 shape is not offered). An error in
    the run is raised after the events that preceded it."""
    if version != "v2":
        raise ValidationError(f"astream_events supports version='v2' only, got {version!r}")
    event_filter = EventFilter(include_names, include_types, include_tags, exclude_names, exclude_types, exclude_tags)
    inbox = _Inbox()
    handler = EventStreamHandler(lambda event, run_type: event_filter.passes(event, run_type) and inbox.put(event))
    task, _root = await run_with_handler(runnable, input, config, handler, inbox, kwargs)
    first_run_id = None
    try:
        async for event in inbox:
            if first_run_id is None:
                # The root's input as given (a streamed root may not have seen it whole).
                event["data"]["input"] = input
                first_run_id = event["run_id"]
            elif event["run_id"] == first_run_id and event["event"].endswith("_end"):
                event["data"].pop("input", None)  # already in the first event
            yield event
    finally:
        await finish(task)
