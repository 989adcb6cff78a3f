"""What a step streams about each of its tasks, and when: as that task finishes (as
LangGraph's), not once the step is over.

When a node finishes, its driver (:mod:`rag.graph._drive`) asks :func:`finished` for the
task's chunks: the messages it returned (to the ``"messages"`` handler, which streams each
id once), the results of its ``@task`` calls held for it, its ``"updates"`` chunk
``{node: update}``, then its ``"tasks"``/``"debug"`` ``task_result`` event. When nodes run
in parallel (or the run streams live: messages, custom, tools, subgraphs) they are streamed
at once, so a quick node's update comes before a slow sibling's, before the step is saved;
a step of one node run alone streams them once its checkpoint is saved, just before its
``"values"`` chunk (as LangGraph's: a consumer that stops at that update leaves the step
saved).

Tasks whose result is known without running them (a resumed step's finished nodes, node
cache hits) stream their ``"updates"`` before the step's nodes run (:func:`known`).
"""

from __future__ import annotations

from typing import Any, Generator, Iterator

from rag.graph import _debug_stream as debug_stream, _node_cache as node_cache
from rag.graph._calls import held_updates
from rag.graph._effects import Emit, Task

__all__ = ["started", "finished", "known", "keeping_emits"]


def started(loop: Any, tasks: list[Task], state: dict[str, Any]) -> None:
    """``tasks`` are about to run: the messages in their input count as seen by the
    ``"messages"`` stream (a node returning its input does not stream it again)."""
    handler = loop.messages
    if handler is None:
        return
    for task in tasks:
        handler.node_started(task.config.get("metadata") or {}, task.arg if task.push else state)


def finished(loop: Any, task: Task) -> list[Emit]:
    """The chunks of ``task``, which just finished running (done, paused or failed)."""
    chunks: list[Emit] = []
    if task.done:
        if loop.messages is not None and task.update:
            loop.messages.node_finished(task.config.get("metadata") or {}, task.update)
        chunks.extend(Emit("updates", chunk) for chunk in held_updates(task.calls))
        chunks.append(Emit("updates", node_cache.update_chunk(task)))
    if debug_stream.wanted(loop.modes):
        chunks.extend(debug_stream.call_events(loop, task.calls))  # its @task calls', before its own result
        chunks.extend(debug_stream.result_events(loop, [task]))
    return chunks


def known(loop: Any, tasks: list[Task]) -> Iterator[Emit]:
    """The ``"updates"`` of the step's tasks that are done before its nodes run (asked
    before they run: a resumed step's finished nodes, node cache hits)."""
    for task in tasks:
        if task.done:
            yield Emit("updates", node_cache.update_chunk(task))


def keeping_emits(effects: Iterator[Any], kept: list[Emit]) -> Generator[Any, Any, Any]:
    """Run ``effects`` (a loop generator), passing its other effects on but keeping its
    chunks in ``kept``: a step's checkpoint events are streamed after its ``"values"``
    chunk (as LangGraph's), though it is saved before."""
    reply = None
    while True:
        try:
            effect = effects.send(reply)  # type: ignore[attr-defined]
        except StopIteration as stop:
            return stop.value
        if type(effect) is Emit:
            kept.append(effect)
            reply = None
        else:
            reply = yield effect
