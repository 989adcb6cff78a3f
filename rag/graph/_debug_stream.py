"""The ``"checkpoints"``, ``"tasks"`` and ``"debug"`` stream modes, with LangGraph's payloads.

- ``"checkpoints"``: each checkpoint as it is saved: ``{"config", "parent_config",
  "values", "metadata", "next": [node...], "tasks": [{"id", "name", "interrupts",
  "state"}...]}`` (``state``: the config that reads a subgraph task's state, else None);
- ``"tasks"``: each task as it starts, ``{"id", "name", "input", "triggers"}``, and as it
  ends, ``{"id", "name", "error", "result": {key: value}, "interrupts": [{"value", "id"}...]}``;
- ``"debug"``: both, each wrapped as ``{"step", "timestamp" (ISO 8601 UTC), "type":
  "checkpoint" | "task" | "task_result", "payload"}``.

Task ids match ``get_state().tasks[i].id`` and the checkpoint configs match
``get_state_history``'s. Only made when one of these modes is streamed (the loop asks
:func:`wanted` first), so other runs pay nothing.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime, timezone
from typing import Any, Iterator, Optional

from rag.graph._combine import reported_result
from rag.graph._effects import Emit, Task
from rag.graph._subgraphs import task_ns
from rag.graph._time_travel import with_checkpoint_map
from rag.graph.checkpoint.base import thread_of
from rag.graph.constants import START
from rag.graph.types import Send

__all__ = ["MODES", "wanted", "checkpoint_events", "resumed_events", "task_events", "result_events", "call_events"]

#: The stream modes this module feeds.
MODES = frozenset({"checkpoints", "tasks", "debug"})


def wanted(modes: frozenset[str]) -> bool:
    """Whether a run streaming ``modes`` needs these events."""
    return not MODES.isdisjoint(modes)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _emit(loop: Any, mode: str, kind: str, step: int, payload: dict[str, Any]) -> Iterator[Emit]:
    if mode in loop.modes:
        yield Emit(mode, payload)
    if "debug" in loop.modes:
        yield Emit("debug", {"step": step, "timestamp": _now(), "type": kind, "payload": payload})


def checkpoint_events(loop: Any, parent: Optional[dict[str, Any]], metadata: dict[str, Any],
                      config: Optional[dict[str, Any]] = None,
                      interrupts: Optional[dict[str, tuple[Any, ...]]] = None) -> Iterator[Emit]:
    """The events of the checkpoint ``loop`` just made (``parent``: the one before it,
    or None; ``metadata``: what was saved with it; ``config``: its config, default the
    loop's last saved one: ``durability="exit"`` makes checkpoints it saves later;
    ``interrupts``: the paused tasks' interrupts, by task id)."""
    thread_id = loop.thread[0] if loop.thread else None
    tasks = []
    for index, entry in enumerate(loop.next):
        name = entry.node if isinstance(entry, Send) else entry
        task_id = f"{loop.checkpoint_id}:{index}:{name}"
        state = None
        if hasattr(loop.builder.nodes.get(name), "_snapshot"):  # a subgraph: where its state is read
            state = {"configurable": {"thread_id": thread_id, "checkpoint_ns": task_ns(loop.ns, name, task_id)}}
        paused = tuple(asdict(pause) for pause in (interrupts or {}).get(task_id, ()))
        tasks.append({"id": task_id, "name": name, "interrupts": paused, "state": state})
    shown = getattr(loop.graph, "_shown", None)
    values = loop.state()
    payload = {
        "config": with_checkpoint_map(config or loop.saved_config, metadata),  # as get_state_history gives them
        "parent_config": with_checkpoint_map(parent, metadata),
        "values": shown(values) if shown is not None else values,
        "metadata": metadata,
        "next": [task["name"] for task in tasks],
        "tasks": tasks,
    }
    yield from _emit(loop, "checkpoints", "checkpoint", metadata.get("step", loop.step), payload)


def resumed_events(loop: Any, saved: Any) -> Iterator[Emit]:
    """The events of the checkpoint a resumed run continues from (``saved``, just loaded):
    LangGraph sends it again at the start of the run, its paused tasks' interrupts with it."""
    paused = {task_id: task.interrupts for task_id, task in loop.restored.items() if task.interrupts}
    parent = saved.parent_config if saved.parent_config and thread_of(saved.parent_config)[2] else None
    yield from checkpoint_events(loop, parent, saved.metadata, saved.config, paused)


def task_events(loop: Any, tasks: list[Task], state: dict[str, Any]) -> Iterator[Emit]:
    """A ``"task"`` event for each task about to run (``state``: what pulled nodes get)."""
    # An entrypoint (rag.graph.func) is given its input itself, LangGraph's __start__ channel.
    direct = getattr(loop.builder, "direct_input", False)
    for task in tasks:
        payload = {"id": task.id, "name": task.name,
                   "input": task.arg if task.push else state.get(START) if direct else dict(state),
                   "triggers": task.triggers}
        yield from _emit(loop, "tasks", "task", loop.step + 1, payload)


def result_events(loop: Any, tasks: list[Task]) -> Iterator[Emit]:
    """A ``"task_result"`` event for each task of the step that ran, finished or not (its
    writes to channels LangGraph does not stream, the graph's ``unstreamed``, left out)."""
    hidden = getattr(loop.graph, "unstreamed", ())
    for task in tasks:
        if not task.ran or task.name == START:
            continue
        interrupts = [asdict(pause) for pause in task.interrupts] if not task.done else []
        result = reported_result(task.update, task.parts) if task.done else {}
        if hidden and isinstance(result, dict):
            result = {key: value for key, value in result.items() if key not in hidden}
        payload = {"id": task.id, "name": task.name, "error": task.error, "result": result, "interrupts": interrupts}
        yield from _emit(loop, "tasks", "task_result", loop.step + 1, payload)


def call_events(loop: Any, calls: Any) -> Iterator[Emit]:
    """The ``"task"``/``"task_result"`` events of the ``@task`` calls a node made
    (:class:`rag.graph._calls.CallLog`, None: none), each once, in the order made:
    LangGraph reports them as tasks of the node's step."""
    if calls is None or not calls.events:
        return
    with calls.lock:
        events, calls.events[:] = list(calls.events), []
    for kind, payload in events:
        yield from _emit(loop, "tasks", kind, loop.step + 1, payload)
