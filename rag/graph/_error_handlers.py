"""Node error handlers: ``add_node(name, fn, error_handler=handler)`` as LangGraph 1.2's.

When node ``name`` raises (after its ``retry_policy`` gave up), ``handler`` runs in the
same step on the same input, and its result takes the failed node's place: its update is
applied and streamed under the handler's name ``"__error_handler__<name>"``, and only the
handler's ``Command(goto=...)`` routes onwards -- the failed node's own edges do not fire
(it did not finish), exactly as LangGraph's handler node has no edges of its own.

The handler reads the state like any node and may declare ``error: NodeError``
(:class:`~rag.graph.errors.NodeError`: the failed node's name and exception) besides the
usual injected parameters (``config``, ``runtime``, ``writer``, ``store``). What is not
handled: ``interrupt()`` (a pause, not a failure), ``Command(graph=Command.PARENT)`` and
an error raised by the handler itself, which fails the run as any node's error does.

>>> from typing import TypedDict
>>> from rag.graph import END, START, StateGraph
>>> from rag.graph.errors import NodeError
>>> class State(TypedDict):
...     status: str
>>> def flaky(state):
...     raise ConnectionError("service down")
>>> def fallback(state, error: NodeError):
...     return {"status": f"{error.node} failed: {error.error}"}
>>> graph = StateGraph(State).add_node("call", flaky, error_handler=fallback).add_edge(START, "call")
>>> graph.compile().invoke({"status": ""})
{'status': 'call failed: service down'}
"""

from __future__ import annotations

from typing import Any, Callable

from rag.errors import ValidationError
from rag.graph._inject import NODE_ERROR_KEY
from rag.graph.errors import GraphInterrupt, NodeError
from rag.runnables import Runnable

__all__ = ["HANDLER_PREFIX", "handler_name", "handler_runnable", "handles", "handler_config"]

#: The name a handler's update is streamed and recorded under: ``HANDLER_PREFIX + node``.
HANDLER_PREFIX = "__error_handler__"


def handler_name(node: str) -> str:
    """The name of node ``node``'s error handler, as LangGraph names it."""
    return f"{HANDLER_PREFIX}{node}"


def handler_runnable(node: str, handler: Any, build: Callable[[Any], Runnable]) -> Runnable:
    """``handler`` as a Runnable (``build`` makes a function one the way the builder makes a
    node's: injected parameters, the state's type); raises naming the node and the value
    when ``handler`` is neither a function nor a Runnable."""
    if isinstance(handler, Runnable):
        return handler
    if not callable(handler):
        raise ValidationError(
            f"error_handler of node {node!r} must be a function or a Runnable taking the state (and optionally "
            f"error: NodeError), got {type(handler).__name__} {handler!r:.80}"
        )
    return build(handler)


def handles(error: BaseException) -> bool:
    """Whether an error handler may take ``error``: a pause (``interrupt()``) is not a
    failure, and a command for the parent graph is not one either."""
    from rag.graph._subgraphs import ParentCommand

    return not isinstance(error, (GraphInterrupt, ParentCommand))


def handler_config(config: dict[str, Any], node: str, error: BaseException) -> dict[str, Any]:
    """The config the handler of ``node`` runs with: the failed task's, with the
    :class:`NodeError` its ``error`` parameter receives and its own name in the metadata."""
    configurable = {**(config.get("configurable") or {}), NODE_ERROR_KEY: NodeError(node, error)}
    metadata = {**(config.get("metadata") or {}), "langgraph_node": handler_name(node)}
    return {**config, "configurable": configurable, "metadata": metadata}



def _handler_for(graph: Any, task: Any, error: BaseException) -> Any:
    handler = getattr(graph.builder, "error_handlers", {}).get(task.name)
    return handler if handler is not None and handles(error) else None


def recover(graph: Any, task: Any, value: Any, error: BaseException) -> bool:
    """Run the error handler of the node ``task`` ran, if it has one and ``error`` is a
    failure it takes: the handler's result becomes the task's, recorded under the handler's
    name (a handler's own error becomes the task's error). False: no handler ran."""
    handler = _handler_for(graph, task, error)
    if handler is None:
        return False
    from rag.graph._drive import record_failure, settle  # the driver runs this module's handlers

    node, task.name = task.name, handler_name(task.name)
    try:
        settle(task, handler.invoke(value, handler_config(task.config, node, error)), graph)
    except Exception as exc:
        record_failure(task, exc)
    return True


async def arecover(graph: Any, task: Any, value: Any, error: BaseException) -> bool:
    """Async :func:`recover`: the handler's ``ainvoke`` is awaited."""
    handler = _handler_for(graph, task, error)
    if handler is None:
        return False
    from rag.graph._drive import record_failure, settle

    node, task.name = task.name, handler_name(task.name)
    try:
        settle(task, await handler.ainvoke(value, handler_config(task.config, node, error)), graph)
    except Exception as exc:
        record_failure(task, exc)
    return True
