"""A saved checkpoint read as LangGraph's :class:`~rag.graph.types.StateSnapshot`: its
values, the nodes due, their tasks (results, errors, interrupts) and, for a paused step,
the writes already made applied as LangGraph's ``get_state`` shows them."""

from __future__ import annotations

from typing import Any

from rag.graph._effects import task_path
from rag.graph._loop import INTERRUPT, RESULT
from rag.graph._schemas import ROOT
from rag.graph._time_travel import with_checkpoint_map
from rag.graph.constants import ERROR, START, UPDATE
from rag.graph.state import apply_updates, ordered
from rag.graph.types import Interrupt, PregelTask, Send, StateSnapshot

__all__ = ["snapshot"]


def snapshot(graph: Any, saved: Any, config: Any, *, pending: bool = False) -> StateSnapshot:
    """``saved`` as a snapshot; with ``pending``, the writes of its paused step (resume
    updates, finished nodes' results) applied to the values and finished nodes left out
    of ``next`` (as LangGraph's get_state of a thread's newest checkpoint; a checkpoint
    asked for by id, and the history, show the checkpoint as saved)."""
    if saved is None:
        return StateSnapshot({}, (), dict(config or {}), None, None, None, (), ())
    checkpoint = saved.checkpoint
    by_task: dict[str, dict[str, Any]] = {}
    for task_id, channel, value in saved.pending_writes:
        by_task.setdefault(task_id, {})[channel] = value
    tasks = []
    entries = checkpoint.get("next", [])
    for index, entry in enumerate(entries):
        name = entry.node if isinstance(entry, Send) else entry
        task_id = f"{checkpoint['id']}:{index}:{name}"
        writes = by_task.get(task_id, {})
        result = writes.get(RESULT)
        tasks.append(PregelTask(task_id, name, task_path(entries, index),
                                error=writes.get(ERROR) if result is None else None,
                                interrupts=tuple(writes.get(INTERRUPT, ()) if result is None or not pending else ()),
                                result=_shown_result(graph, result)))
    interrupts: tuple[Interrupt, ...] = tuple(i for t in tasks for i in t.interrupts)
    values = dict(checkpoint["channel_values"])
    # As LangGraph's: Command(resume=..., update=...) updates kept with a paused
    # checkpoint, then the updates of the step's nodes that finished, are part of its
    # state; ``next`` lists only the nodes still to run.
    resume_updates = sorted((task_id, writes[UPDATE]) for task_id, writes in by_task.items()
                            if pending and UPDATE in writes)
    done = [pending and RESULT in by_task.get(task.id, {}) for task in tasks]
    pulls = [not isinstance(entry, Send) for entry in entries]
    updates = [(START, update) for _, update in resume_updates]
    for want_pull in (True, False):  # nodes run by edges first, then Sends (the loop's order)
        updates += [(task.name, update) for task, finished, pull in zip(tasks, done, pulls)
                    if finished and pull is want_pull and (update := by_task[task.id][RESULT].get("update"))]
    apply_updates(values, updates, graph.builder.channels)
    names = tuple(task.name for task, finished in zip(tasks, done) if not finished)
    # A subgraph's configs carry its parents' checkpoints (checkpoint_map): the root travels there.
    return StateSnapshot(graph._visible(ordered(values, graph.builder.channels)), names,
                         with_checkpoint_map(saved.config, saved.metadata), saved.metadata, checkpoint.get("ts"),
                         with_checkpoint_map(saved.parent_config, saved.metadata), tuple(tasks), interrupts)


def _shown_result(graph: Any, result: Any) -> Any:
    """A task's saved result as LangGraph shows it: the update the node returned (a root
    state's value itself, not wrapped under its key)."""
    if result and "shown" in result:  # several updates of the task (rag.graph._combine.reported_result)
        return result["shown"]
    update = result.get("update") if result else None
    shape = getattr(graph.builder, "shape", None)
    if shape is not None and shape.kind == "root" and isinstance(update, dict) and set(update) == {ROOT}:
        return update[ROOT]
    return update
