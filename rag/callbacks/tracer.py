"""BaseTracer: turns callback events into a tree of :class:`TraceRun` records.

Subclasses react to :meth:`BaseTracer._on_run_start`, :meth:`BaseTracer._on_run_end` and
:meth:`BaseTracer._on_trace_end` (a top-level run finished with its whole tree). Events
may come from several threads and tasks at once; the run table is guarded by a lock.

Each run carries LangSmith's tree fields: ``trace_id`` (the top run's id), ``dotted_order``
(per ancestor, its UTC start time as ``%Y%m%dT%H%M%S%fZ`` followed by its id, joined by
dots, so that sorting a trace's runs by it gives the tree in execution order) and
``parent_run_id``; plus ``metadata`` (a graph's ``thread_id`` and other ``configurable``
values among them) and ``run_type`` as the component declared it (``prompt``, ``parser``,
``llm``, ``embedding`` ... for ``@traceable`` functions).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Optional
from uuid import UUID

from rag.callbacks.base import BaseCallbackHandler
from rag.callbacks.serialize import to_jsonable, token_usage_of

__all__ = ["BaseTracer", "TraceRun"]


@dataclass
class TraceRun:
    """One run in a trace: what ran (``name``, ``run_type``: chain, retriever, chat_model,
    tool, or what a component declared: prompt, parser, llm, embedding), on what
    (``inputs``), with what result (``outputs`` or ``error``), when (``start_time`` /
    ``end_time``, UTC) and, for models, ``token_usage``; where it sits (``trace_id``,
    ``dotted_order``, ``parent_run_id``), with ``tags`` and ``metadata``."""

    id: UUID
    name: str
    run_type: str
    parent_run_id: Optional[UUID]
    inputs: Any
    start_time: datetime
    tags: list[str] = field(default_factory=list)
    end_time: Optional[datetime] = None
    outputs: Any = None
    error: Optional[str] = None
    token_usage: Optional[dict[str, int]] = None
    children: list["TraceRun"] = field(default_factory=list)
    depth: int = 0
    _started: float = field(default_factory=time.perf_counter, repr=False)
    duration_ms: Optional[float] = None
    trace_id: Optional[UUID] = None
    dotted_order: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The run and its children as JSON-ready data (the trace file's record shape)."""
        record: dict[str, Any] = {
            "id": str(self.id),
            "parent_run_id": str(self.parent_run_id) if self.parent_run_id else None,
            "name": self.name,
            "run_type": self.run_type,
            "start_time": self.start_time.isoformat(),
            "end_time": self.end_time.isoformat() if self.end_time else None,
            "duration_ms": self.duration_ms,
            "tags": self.tags,
            "trace_id": str(self.trace_id or self.id),
            "dotted_order": self.dotted_order,
            "metadata": to_jsonable(self.metadata),
            "inputs": to_jsonable(self.inputs),
            "outputs": to_jsonable(self.outputs),
            "error": self.error,
        }
        if self.token_usage:
            record["token_usage"] = self.token_usage
        record["children"] = [child.to_dict() for child in self.children]
        return record


def dotted_segment(start_time: datetime, run_id: UUID) -> str:
    """One run's part of a ``dotted_order``: LangSmith's ``20250101T120000123456Z<uuid>``
    (the time in UTC to the microsecond, then the run id)."""
    return f"{start_time:%Y%m%dT%H%M%S%fZ}{run_id}"


# Which argument of each start/end event holds the run's inputs/outputs, and under what key.
_INPUT_KEY = {"retriever": "query", "chat_model": "messages", "tool": "input"}
_OUTPUT_KEY = {"retriever": "documents", "tool": "output"}


class BaseTracer(BaseCallbackHandler):
    """A handler that keeps the runs it sees as a tree; override the ``_on_*`` hooks."""

    def __init__(self) -> None:
        self.runs: dict[UUID, TraceRun] = {}
        self._lock = threading.Lock()

    # -- hooks for subclasses ---------------------------------------------------------
    def _on_run_start(self, run: TraceRun) -> None:
        """A run started (its parent, if traced, is already known)."""

    def _on_run_end(self, run: TraceRun) -> None:
        """A run ended (``outputs`` or ``error`` set)."""

    def _on_trace_end(self, run: TraceRun) -> None:
        """A top-level run ended; ``run.children`` holds the whole tree."""

    # -- bookkeeping ------------------------------------------------------------------
    def _start(self, run_type: str, serialized: Optional[dict[str, Any]], inputs: Any, run_id: UUID,
               parent_run_id: Optional[UUID], kwargs: dict[str, Any]) -> None:
        name = kwargs.get("name") or (serialized or {}).get("name") or run_type
        # A prompt, a parser or a @traceable function declares its own kind on a chain event.
        declared = kwargs.get("run_type") or run_type
        started = datetime.now(timezone.utc)
        segment = dotted_segment(started, run_id)
        with self._lock:
            parent = self.runs.get(parent_run_id) if parent_run_id else None
            run = TraceRun(run_id, str(name), str(declared), parent_run_id, inputs, started,
                           tags=list(kwargs.get("tags") or []), depth=parent.depth + 1 if parent else 0,
                           trace_id=parent.trace_id if parent else run_id,
                           dotted_order=f"{parent.dotted_order}.{segment}" if parent else segment,
                           metadata=dict(kwargs.get("metadata") or {}))
            self.runs[run_id] = run
            if parent is not None:
                parent.children.append(run)
        self._on_run_start(run)

    def _end(self, run_id: UUID, outputs: Any = None, error: Optional[BaseException] = None,
             token_usage: Optional[dict[str, int]] = None) -> None:
        with self._lock:
            run = self.runs.pop(run_id, None)
            if run is None:
                return  # a run that started before this handler joined
            is_root = run.parent_run_id is None or run.parent_run_id not in self.runs
        run.end_time = datetime.now(timezone.utc)
        run.duration_ms = round((time.perf_counter() - run._started) * 1000, 3)
        run.outputs = outputs
        run.error = None if error is None else f"{type(error).__name__}: {error}"
        if token_usage is None and run.run_type in ("llm", "chat_model") and error is None:
            token_usage = token_usage_of(outputs)  # a @traceable model function's usage_metadata
        run.token_usage = token_usage
        self._on_run_end(run)
        if is_root:
            self._on_trace_end(run)

    # -- the callback events ----------------------------------------------------------
    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs):  # type: ignore[override]
        self._start("chain", serialized, inputs, run_id, parent_run_id, kwargs)

    def on_chain_end(self, outputs, *, run_id, parent_run_id=None, **kwargs):  # type: ignore[override]
        self._end(run_id, outputs)

    def on_chain_error(self, error, *, run_id, parent_run_id=None, **kwargs):  # type: ignore[override]
        self._end(run_id, error=error)

    def on_retriever_start(self, serialized, query, *, run_id, parent_run_id=None, **kwargs):  # type: ignore[override]
        self._start("retriever", serialized, {_INPUT_KEY["retriever"]: query}, run_id, parent_run_id, kwargs)

    def on_retriever_end(self, documents, *, run_id, parent_run_id=None, **kwargs):  # type: ignore[override]
        self._end(run_id, {_OUTPUT_KEY["retriever"]: documents})

    def on_retriever_error(self, error, *, run_id, parent_run_id=None, **kwargs):  # type: ignore[override]
        self._end(run_id, error=error)

    def on_chat_model_start(self, serialized, messages, *, run_id, parent_run_id=None, **kwargs):  # type: ignore[override]
        self._start("chat_model", serialized, {_INPUT_KEY["chat_model"]: messages}, run_id, parent_run_id, kwargs)

    def on_llm_end(self, response, *, run_id, parent_run_id=None, **kwargs):  # type: ignore[override]
        self._end(run_id, response, token_usage=token_usage_of(response))

    def on_llm_error(self, error, *, run_id, parent_run_id=None, **kwargs):  # type: ignore[override]
        self._end(run_id, error=error)

    def on_tool_start(self, serialized, input_str, *, run_id, parent_run_id=None, inputs=None, **kwargs):  # type: ignore[override]
        self._start("tool", serialized, inputs if inputs is not None else {_INPUT_KEY["tool"]: input_str},
                    run_id, parent_run_id, kwargs)

    def on_tool_end(self, output, *, run_id, parent_run_id=None, **kwargs):  # type: ignore[override]
        self._end(run_id, {_OUTPUT_KEY["tool"]: output})

    def on_tool_error(self, error, *, run_id, parent_run_id=None, **kwargs):  # type: ignore[override]
        self._end(run_id, error=error)
