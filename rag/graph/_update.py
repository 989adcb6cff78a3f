"""Writing a thread's state from outside a run: ``update_state`` and ``bulk_update_state``.

One superstep of updates — ``(values, as_node)`` pairs applied together, as if those nodes
had returned ``values`` in one step — becomes one checkpoint (source ``"update"``) whose
``next`` follows the nodes' edges and keeps the nodes that were already due. Two special
``as_node`` values, each alone in its superstep, as LangGraph's:

- ``"__copy__"``: a copy of the checkpoint (same values and due nodes, no pending writes:
  a paused node pauses again), saved beside it under the same parent, source ``"fork"``;
- ``END`` (``"__end__"``): the values applied and nothing left to run;
- ``"__input__"``: ``values`` recorded as a run's input, not yet applied (an ``"input"``
  checkpoint, due: START), as a run's first checkpoint is: resuming from it runs the graph
  on that input, so a run's history can be written step by step (``bulk_update_state``).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from rag.errors import ValidationError
from rag.graph._edges import successors
from rag.graph._loop import Loop
from rag.graph.constants import END, START
from rag.graph.errors import InvalidUpdateError
from rag.graph._schemas import to_update
from rag.graph._time_travel import result_write, with_checkpoint_map
from rag.graph.state import apply_updates, initial_values
from rag.graph.types import Command, Send

import rag.graph  # type hints: rag.graph.pregel imports this module

__all__ = ["COPY", "INPUT", "check_supersteps", "superstep_put_args", "save_superstep", "asave_superstep"]

COPY = "__copy__"
INPUT = "__input__"


def check_supersteps(supersteps: Sequence[Sequence[Any]]) -> list[list[tuple[Any, Optional[str]]]]:
    """``supersteps`` as lists of ``(values, as_node)``; refuses an empty call and the
    special nodes mixed with other updates (LangGraph's errors and wording)."""
    steps = [[(update[0], update[1] if len(update) > 1 else None) for update in step] for step in supersteps]
    if not steps:
        raise ValidationError("No supersteps provided: bulk_update_state needs a list of supersteps of StateUpdates")
    if not any(steps):
        raise ValidationError("No updates provided: every superstep passed to bulk_update_state is empty")
    for step in steps:
        special = [as_node for _, as_node in step if as_node in (COPY, END, INPUT)]
        if special and len(step) > 1:
            raise InvalidUpdateError(
                f"as_node={special[0]!r} must be the only update of its superstep, got {len(step)} updates"
            )
    return steps


def superstep_put_args(graph: rag.graph.pregel.CompiledStateGraph, saved: Any, config: Any,
                       updates: list[tuple[Any, Optional[str]]]) -> tuple[Any, ...]:
    """The arguments of ``saver.put`` for the checkpoint one superstep of ``updates`` makes
    from ``saved`` (the thread's checkpoint, or None for a new thread)."""
    args = _put_args(graph, saved, config, updates)
    if saved is not None and saved.metadata.get("parents"):
        # A subgraph's checkpoint keeps the parents' checkpoints it was saved under (time travel).
        args[2]["parents"] = dict(saved.metadata["parents"])
    return args


def _put_args(graph: rag.graph.pregel.CompiledStateGraph, saved: Any, config: Any,
              updates: list[tuple[Any, Optional[str]]]) -> tuple[Any, ...]:
    builder = graph.builder
    loop = Loop(graph, dict(config), frozenset(), interrupt_before=(), interrupt_after=())
    if saved is not None:
        loop._load(saved)
        writers = saved.checkpoint.get("writers") or []
    else:
        loop.values = initial_values(builder.channels)
        writers = [START]
    if len(updates) == 1 and updates[0][1] == COPY:
        return _copy(loop, saved, updates[0][0], writers)
    if any(as_node == INPUT for _, as_node in updates):
        return _as_input(loop, saved, updates)
    named: list[tuple[Any, str]] = []
    routes: dict[str, list[Any]] = {}  # as_node -> the goto of a Command it "returned"
    for values, as_node in updates:
        if as_node is None:
            if len(writers) != 1 or len(updates) != 1:
                raise InvalidUpdateError(
                    f"update_state cannot tell which node the update comes from (the last step ran {writers}, "
                    f"{len(updates)} updates); pass as_node='node_name'"
                )
            as_node = writers[0]
        if as_node not in (START, END) and as_node not in builder.nodes:
            raise ValidationError(f"as_node={as_node!r} is not a node; nodes are {list(builder.nodes)}")
        if isinstance(values, Command):  # as if the node returned it: its update, and its goto followed
            routes.setdefault(as_node, []).extend(values.goto_list())
            values = values.update
        shape = getattr(builder, "shape", None)
        if values is not None and shape is not None and not shape.plain:  # a root value, a model instance
            values = to_update(shape, values)
        if values is not None and not isinstance(values, dict):
            raise ValidationError(f"update_state needs a dict of state updates, got {type(values).__name__}")
        named.append((values, as_node))
    apply_updates(loop.values, [(as_node, values) for values, as_node in named if values], builder.channels)
    loop.step += 1
    if named[0][1] == END:
        loop.next = []
        return loop.put_args("update", [END])
    sources = [as_node for _, as_node in named]
    # Nodes that were due stay due (as LangGraph's, whose update consumes only the updating
    # nodes' triggers): a join target paused before keeps its turn.
    due = [entry for entry in loop.next if isinstance(entry, str) and entry not in (*sources, START)]
    following = successors(loop, [(as_node, routes.get(as_node, []), None) for as_node in dict.fromkeys(sources)])
    sends = [entry for entry in following if isinstance(entry, Send)]
    loop.next = [*sends, *sorted({*(e for e in following if not isinstance(e, Send)), *due})]
    return loop.put_args("update", list(dict.fromkeys(sources)))


def _copy(loop: Loop, saved: Any, values: Any, writers: list[str]) -> tuple[Any, ...]:
    if saved is None:
        raise InvalidUpdateError("Cannot copy a non-existent checkpoint: update_state(as_node='__copy__') needs "
                                 "the config of a saved checkpoint")
    if values is not None:
        _given_updates(values)  # applied to the copy once it is saved (save_superstep)
    # The copy is a sibling: same parent as the original, one step on (LangGraph's metadata).
    loop.saved_config = saved.parent_config
    loop.step += 1
    loop.pending_input = saved.checkpoint.get("input")  # a copy of a run's "input" checkpoint keeps its input
    return loop.put_args("fork", writers)


def _task_updates(values: Any) -> bool:
    return isinstance(values, (list, tuple)) and bool(values) and all(
        isinstance(item, tuple) and len(item) in (2, 3) and isinstance(item[1], str) for item in values)


def _result_writes(builder: Any, checkpoint: dict[str, Any],
                   updates: Sequence[tuple[Any, ...]]) -> list[tuple[str, list[tuple[str, Any]]]]:
    """``(task id, writes)`` recording each update as the result of a task ``checkpoint``
    has due for its ``as_node`` (each task once, in order, as LangGraph matches them);
    an update naming no due task records nothing."""
    used: set[int] = set()
    entries = checkpoint.get("next") or []
    found = []
    for update in updates:
        values: Any = update[0]
        as_node = update[1]  # a StateUpdate's task_id (LangGraph's) names no task here
        index = next((i for i, entry in enumerate(entries) if i not in used and
                      (entry.node if isinstance(entry, Send) else entry) == as_node), None)
        if index is None:
            continue
        used.add(index)
        goto: list[Any] = []
        if isinstance(values, Command):
            goto = values.goto_list()
            values = values.update
        shape = getattr(builder, "shape", None)
        if values is not None and shape is not None and not shape.plain and as_node != START:
            values = to_update(shape, values)
        found.append((f"{checkpoint['id']}:{index}:{as_node}", result_write(values, goto)))
    return found


def _plan(graph: Any, saved: Any, config: Any, updates: list[tuple[Any, Optional[str]]]) -> tuple[Any, Any, list]:
    """``(put arguments, the updates to apply to the copy after it is saved (a __copy__
    given StateUpdates, as LangGraph's), (task id, writes) to save with ``saved``)``: the
    updates recorded as the results of ``saved``'s due tasks, so ``get_state_history``
    shows them as LangGraph's."""
    if len(updates) == 1 and updates[0][1] == COPY and updates[0][0] is not None:
        then = [(update[0], update[1]) for update in _given_updates(updates[0][0])]
        return superstep_put_args(graph, saved, config, [(None, COPY)]), then, []
    args = superstep_put_args(graph, saved, config, updates)
    named = [(values, as_node) for values, as_node in updates if as_node not in (None, END, INPUT, COPY)]
    return args, [], [] if saved is None else _result_writes(graph.builder, saved.checkpoint, named)


def _given_updates(values: Any) -> list[Any]:
    if not _task_updates(values):
        raise ValidationError(
            "update_state(as_node='__copy__') copies a checkpoint; values must be None or a list of "
            f"StateUpdate(values, as_node) to apply to the copy, got {type(values).__name__} {values!r:.80}")
    return list(values)


def save_superstep(saver: Any, graph: Any, saved: Any, config: Any, updates: list[tuple[Any, Optional[str]]]) -> Any:
    """Save one superstep of ``updates`` made from ``saved``; returns the new checkpoint's
    config (with a subgraph's ``checkpoint_map``: where the root travels)."""
    args, then, writes = _plan(graph, saved, config, updates)
    new = saver.put(*args)
    for task_id, task_writes in writes:
        saver.put_writes(saved.config, task_writes, task_id)
    if then:
        return save_superstep(saver, graph, saver.get_tuple(new), new, then)
    return with_checkpoint_map(new, args[2])


async def asave_superstep(saver: Any, graph: Any, saved: Any, config: Any,
                          updates: list[tuple[Any, Optional[str]]]) -> Any:
    """Async :func:`save_superstep`."""
    args, then, writes = _plan(graph, saved, config, updates)
    new = await saver.aput(*args)
    for task_id, task_writes in writes:
        await saver.aput_writes(saved.config, task_writes, task_id)
    if then:
        return await asave_superstep(saver, graph, await saver.aget_tuple(new), new, then)
    return with_checkpoint_map(new, args[2])


def _as_input(loop: Loop, saved: Any, updates: list[tuple[Any, Optional[str]]]) -> tuple[Any, ...]:
    values = updates[0][0]
    builder = loop.builder
    values = builder.graph_input(values) if hasattr(builder, "graph_input") else values
    if not isinstance(values, dict):
        raise ValidationError(f"update_state(as_node='__input__') needs the graph's input, a dict of state keys "
                              f"{list(builder.channels)}, got {type(values).__name__} {values!r:.80}")
    unknown = [key for key in values if key not in builder.channels]
    if unknown:
        raise InvalidUpdateError(f"update_state(as_node='__input__') got keys {unknown} that are not in the state; "
                                 f"keys are {list(builder.channels)}")
    # A run's input checkpoint: step -1 on a new thread, else one past the last (as LangGraph's).
    loop.step = loop.step + 1 if saved is not None else -1
    loop.next, loop.joins, loop.pending_input = [START], {}, values
    return loop.put_args("input", [])
