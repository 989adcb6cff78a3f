"""The ``stream_mode="tools"`` stream (LangGraph 1.2's): the life of each tool call a node
makes, as it happens, from the tools' callbacks.

Payloads, keyed by the call's ``tool_call_id`` (the run id when the tool was called
without one):

- ``{"event": "tool-started", "tool_call_id", "tool_name", "input": {arg: value}}``;
- ``{"event": "tool-finished", "tool_call_id", "output": <the tool's result>}``;
- ``{"event": "tool-error", "tool_call_id", "message": str(error)}``; a tool stopped by
  ``interrupt()`` is paused, not failed: it reports nothing, and starts again on resume.

A tool called by a subgraph's node is streamed only with ``stream(..., subgraphs=True)``,
under the subgraph's namespace (as the ``"messages"`` stream does).
"""

from __future__ import annotations

import threading
from typing import Any, Mapping, Optional

from rag.graph._effects import Emit
from rag.graph._stream_messages import LangChainHandler, graph_namespace
from rag.graph._subgraphs import Nested
from rag.graph.errors import GraphDrained, GraphInterrupt

__all__ = ["ToolsHandler", "with_handler"]

_NOSTREAM = "nostream"


class ToolsHandler(LangChainHandler):
    """A callback handler sending tool-call events to ``live.sink`` (the run's live
    sink, which the driver points at its queue). ``subgraphs`` and ``parent_ns`` as for
    :class:`rag.graph._stream_messages.MessagesHandler`."""

    def __init__(self, live: Any, subgraphs: bool = False, parent_ns: tuple[str, ...] = ()) -> None:
        self.live = live
        self.subgraphs = subgraphs
        self.parent_ns = parent_ns
        self._calls: dict[Any, tuple[tuple[str, ...], str]] = {}  # run id -> (namespace, tool_call_id)
        self._lock = threading.Lock()

    def _namespace(self, metadata: Optional[Mapping[str, Any]], tags: Optional[list]) -> Optional[tuple[str, ...]]:
        if not metadata or _NOSTREAM in (tags or []):
            return None
        ns = graph_namespace(metadata)
        if ns == self.parent_ns:
            return ()
        return ns if self.subgraphs else None

    def _emit(self, ns: tuple[str, ...], payload: dict[str, Any]) -> None:
        self.live.sink(Nested(ns, "tools", payload) if ns else Emit("tools", payload))

    def on_tool_start(self, serialized: Optional[dict], input_str: Any, *, run_id: Any,
                      metadata: Optional[dict] = None, tags: Optional[list] = None,
                      inputs: Optional[dict] = None, **kwargs: Any) -> None:
        ns = self._namespace(metadata, tags)
        if ns is None:
            return
        call_id = kwargs.get("tool_call_id") or str(run_id)
        with self._lock:
            self._calls[run_id] = (ns, call_id)
        payload: dict[str, Any] = {"event": "tool-started", "tool_call_id": call_id,
                                   "tool_name": (serialized or {}).get("name") or kwargs.get("name") or ""}
        if inputs is not None:
            payload["input"] = inputs
        self._emit(ns, payload)

    def on_tool_end(self, output: Any, *, run_id: Any, **kwargs: Any) -> None:
        with self._lock:
            call = self._calls.pop(run_id, None)
        if call is not None:
            self._emit(call[0], {"event": "tool-finished", "tool_call_id": call[1], "output": output})

    def on_tool_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
        with self._lock:
            call = self._calls.pop(run_id, None)
        if call is not None and not isinstance(error, (GraphInterrupt, GraphDrained)):  # paused or drained: it runs again on resume
            self._emit(call[0], {"event": "tool-error", "tool_call_id": call[1], "message": str(error)})


def with_handler(config: Optional[Mapping[str, Any]], handler: Any) -> dict[str, Any]:
    """``config`` with ``handler`` added to its callbacks (which its nodes inherit)."""
    config = dict(config or {})
    callbacks = config.get("callbacks") or []
    config["callbacks"] = [*(callbacks if isinstance(callbacks, list) else [callbacks]), handler]
    return config
