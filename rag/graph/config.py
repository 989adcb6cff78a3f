"""What a running node can ask the graph for (LangGraph's ``langgraph.config``).

>>> from typing import TypedDict
>>> from rag.graph import StateGraph, START
>>> class S(TypedDict):
...     n: int
>>> def work(state):
...     get_stream_writer()({"progress": "half way"})
...     return {"n": state["n"] + 1}
>>> app = StateGraph(S).add_node("work", work).add_edge(START, "work").compile()
>>> list(app.stream({"n": 0}, stream_mode=["custom", "updates"]))
[('custom', {'progress': 'half way'}), ('updates', {'work': {'n': 1}})]
"""

from __future__ import annotations

from typing import Any, Callable

from rag.errors import UsageError
from rag.graph.types import CURRENT_TASK

__all__ = ["get_stream_writer", "get_config", "get_store"]


def _ignore(chunk: Any) -> None:
    """The writer when nobody streams "custom": chunks are dropped, as in LangGraph."""


def get_stream_writer() -> Callable[[Any], None]:
    """A function that sends any value to the caller's ``stream_mode="custom"`` stream
    from inside a node (progress, partial results); a no-op when that mode is not streamed."""
    scope = CURRENT_TASK.get()
    if scope is None:
        raise UsageError("get_stream_writer() can only be called inside a graph node while the graph runs")
    return scope.writer or _ignore


def get_config() -> dict[str, Any]:
    """The running node's config (``configurable``, ``metadata`` with ``langgraph_node`` ...)."""
    scope = CURRENT_TASK.get()
    if scope is None or scope.config is None:
        raise UsageError("get_config() can only be called inside a graph node while the graph runs")
    return scope.config


def get_store() -> Any:
    """The long-term store the running graph was compiled with (``compile(store=...)``),
    or None when it has none; as a node's ``store`` parameter, across threads."""
    if CURRENT_TASK.get() is None:
        raise UsageError("get_store() can only be called inside a graph node while the graph runs")
    from rag.graph.runtime import get_runtime

    return get_runtime().store
