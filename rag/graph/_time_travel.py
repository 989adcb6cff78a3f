"""Time travel: continuing a thread from one of its past checkpoints, as LangGraph 1.2 does.

``invoke(None, config)`` (or a ``Command`` without ``resume``) whose config names a
``checkpoint_id`` *replays* from that checkpoint:

- the nodes due there run again, even those whose results that step had already saved (a
  node that paused asks again: the answers it was given are not reused);
- unless the checkpoint was itself written by ``update_state`` (source ``"update"`` or
  ``"fork"``) and is still the thread's newest, a *fork* checkpoint is saved first: a copy
  of it (with the ``Command``'s update applied), source ``"fork"``, step one more, whose
  parent is the checkpoint addressed. The run continues from the fork, so the thread's old
  branch stays in ``get_state_history`` and the fork's branch becomes the newest; a resume
  without a ``checkpoint_id`` then continues the new branch.

``Command(resume=...)`` with a ``checkpoint_id`` answers that checkpoint's pause; only if
the thread has moved past it do the step's finished nodes run again (their saved results
belong to the other branch).

Subgraphs replay with their parent: during a replay, the first run of each subgraph (by its
namespace without task ids) loads its newest checkpoint saved *before* the parent's
checkpoint the replay started from (for an ``update_state`` checkpoint: before the one it
was made from), so a ``checkpointer=True`` subgraph sees the state it had then, not the
state later invocations left; its later runs in the same replay load as usual. Checkpoints
are ordered by their ``ts`` (ids are random), as LangGraph orders its time-sortable ids.

A subgraph's checkpoint can be traveled to as well: its metadata's ``parents`` names the
checkpoint of each graph above it (``{namespace: checkpoint_id}``, the root's under
``""``), and the configs of its snapshots carry them with its own as ``checkpoint_map``.
The root graph invoked with such a config replays from its own checkpoint in the map, and
the subgraph whose namespace the map names continues from its checkpoint there (a fork of
its own), rather than from its input.

Every step's results stay with the checkpoint the step ran from (as LangGraph's pending
writes): each node's update (and the run's input, as ``__start__``'s) is saved there with
the step's next checkpoint (``saver.put_step``: one transaction, so a step costs one commit
as before), so ``get_state_history`` shows ``tasks[i].result`` for finished steps too,
and ``update_state`` / ``bulk_update_state`` record the update as the result of the node it
names. A replay ignores them (``rerun_finished``): the nodes run again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, Callable, Generator, Optional

from rag.graph.constants import INTERRUPT, RESULT, RESUME, RETURN
from rag.graph.types import CURRENT_TASK, Command

__all__ = ["Travel", "Replay", "plan", "kept_writes", "fork", "load_call", "root_config", "parents_of",
           "with_checkpoint_map", "step_results", "result_write"]

# Checkpoints update_state wrote: replaying one that is still the newest needs no fork
# (it already is a branch of its own, as LangGraph's).
_UPDATE_SOURCES = ("update", "fork")


@dataclass(frozen=True)
class Travel:
    """What continuing from an addressed checkpoint does (see the module docstring)."""

    rerun_finished: bool  # the step's saved node results are ignored: those nodes run again
    drop_answers: bool  # the answers given to its interrupts are ignored: they ask again
    forks: bool  # a "fork" checkpoint is saved before the run goes on


@dataclass
class Replay:
    """A replay's bound for its subgraphs, shared by every level of one root run."""

    before: datetime  # subgraphs' first runs load their newest checkpoint saved before this
    visited: set[str] = field(default_factory=set)  # namespaces (no task ids) already loaded
    targets: dict[str, str] = field(default_factory=dict)  # a subgraph's namespace: the checkpoint it continues


def addressed(config: dict[str, Any]) -> bool:
    """Whether ``config`` names a checkpoint (``configurable.checkpoint_id``) rather than
    asking for the thread's newest one."""
    return bool((config.get("configurable") or {}).get("checkpoint_id"))


def plan(loop: Any, input: Optional[Command], saved: Any) -> Generator[Any, Any, Optional[Travel]]:
    """The time travel a resume (``input``: None or a Command) from ``saved`` makes, or None
    when it continues the thread's newest checkpoint as a plain resume does. ``loop``: the
    resuming :class:`rag.graph._loop.Loop`; asks its saver for the newest checkpoint."""
    from rag.graph._effects import IO  # rag.graph._loop imports this module

    target = getattr(loop, "travel_target", None)  # set by load_call for a subgraph the map names
    if (loop.link is not None and target is None) or (loop.link is None and not addressed(loop.config)):
        return None
    newest_config = {**loop.config, "configurable": {
        key: value for key, value in loop.config["configurable"].items() if key != "checkpoint_id"}}
    newest = yield IO(partial(loop.saver.get_tuple, newest_config))
    # A checkpoint with a child is never the newest; an abandoned branch's leaf counts too.
    superseded = newest is not None and newest.checkpoint["id"] != saved.checkpoint["id"]
    traveling = not (isinstance(input, Command) and input.has_resume)
    if not (traveling or superseded):
        return None
    source = saved.metadata.get("source")
    forks = traveling and (source not in _UPDATE_SOURCES or superseded)
    if traveling and loop.link is None:
        bound = saved
        if source in _UPDATE_SOURCES and saved.parent_config is not None:
            # update_state wrote it after the subgraphs' checkpoints of the run it changed.
            bound = (yield IO(partial(loop.saver.get_tuple, saved.parent_config))) or saved
        targets = dict((loop.config.get("configurable") or {}).get("checkpoint_map") or {})
        targets.pop("", None)
        loop.replay = Replay(_when(bound.checkpoint), targets=targets)
    return Travel(rerun_finished=True, drop_answers=traveling, forks=forks)


def kept_writes(travel: Optional[Travel], pending: list[tuple[str, str, Any]]) -> list[tuple[str, str, Any]]:
    """The addressed checkpoint's pending writes the run restores (all without time travel)."""
    if travel is None:
        return pending
    dropped = set()
    if travel.rerun_finished:
        dropped |= {RESULT, RETURN}
    if travel.drop_answers:
        dropped.add(RESUME)
    if travel.forks:  # the fork's tasks have new ids: its interrupts are asked afresh
        dropped.add(INTERRUPT)
    return [write for write in pending if write[1] not in dropped]


def result_write(update: Any, goto: Any = (), parts: Any = None) -> list[tuple[str, Any]]:
    """The pending write recording a task's result (as a paused step saves it); with the
    task's ``parts`` (several updates), also what the history shows of them."""
    found = {"update": update, "goto": list(goto)}
    if parts:
        from rag.graph._combine import reported_result

        found["shown"] = reported_result(update, parts)
    return [(RESULT, found)]


def step_results(loop: Any, tasks: list[Any]) -> None:
    """Keep the results of the step's tasks that ran in this invocation for the checkpoint
    the step ran from; the step's next checkpoint is saved with them, in one ``put_step``
    (rag.graph._durability). Tasks restored from its pending writes are there already."""
    if loop.saver is not None:
        loop.step_writes = [(task.id, result_write(task.update, task.goto, task.parts))
                            for task in tasks if task.ran and task.done]


def fork(loop: Any, saved: Any) -> Generator[Any, Any, None]:
    """Save the fork checkpoint: the loop's current values and due nodes (the addressed
    checkpoint's, a Command's update and goto applied), one step past it, as its child."""
    loop.step += 1
    yield from loop._save("fork", list(saved.checkpoint.get("writers") or []))


def load_call(loop: Any) -> Callable[[], Any]:
    """The saver call that reads the checkpoint a run of ``loop`` starts from: the newest of
    its thread and namespace, or, for a subgraph's first run in a replay, the newest saved
    before the replay's bound (see the module docstring)."""
    from rag.graph._subgraphs import stateful_ns  # rag.graph._loop imports this module

    replay: Optional[Replay] = loop.replay
    if loop.link is None or replay is None:
        return partial(loop.saver.get_tuple, loop.config)
    namespace = stateful_ns(loop.ns)
    if namespace in replay.visited:
        return partial(loop.saver.get_tuple, loop.config)
    replay.visited.add(namespace)
    target = replay.targets.get(loop.link.store_ns)
    if target is not None:
        # Traveled to: it continues from that checkpoint (as a paused subgraph resumes), not its input.
        loop.travel_target = target
        loop.link.resuming = True
        config = {**loop.config, "configurable": {**loop.config["configurable"], "checkpoint_id": target}}
        return partial(loop.saver.get_tuple, config)
    return partial(_newest_before, loop.saver, loop.config, replay.before)


def root_config(config: dict[str, Any]) -> dict[str, Any]:
    """A root run's config: one naming a subgraph's ``checkpoint_ns`` or carrying a
    ``checkpoint_map`` (a subgraph snapshot's) runs the root's own thread (namespace
    ``""``), from the root's checkpoint the map names, else from its newest (LangGraph's).
    Left as it is inside a running node, whose config names that node's namespace."""
    configurable = config.get("configurable") or {}
    checkpoint_map = configurable.get("checkpoint_map") or {}
    if not (configurable.get("checkpoint_ns") or checkpoint_map) or CURRENT_TASK.get() is not None:
        return config
    configurable = {**configurable, "checkpoint_ns": ""}
    configurable["checkpoint_id"] = checkpoint_map.get("") or (
        None if config["configurable"].get("checkpoint_ns") else configurable.get("checkpoint_id"))
    if configurable["checkpoint_id"] is None:
        del configurable["checkpoint_id"]
    return {**config, "configurable": configurable}


def parents_of(loop: Any) -> dict[str, str]:
    """The checkpoint metadata ``parents`` of a run: ``{namespace: checkpoint id}`` of each
    graph above it, as they are now (``{}`` for a root graph)."""
    link = loop.link
    if link is None:
        return {}
    return {**parents_of(link.parent), link.parent.ns: link.parent.checkpoint_id}


def with_checkpoint_map(config: Optional[dict[str, Any]], metadata: Optional[dict[str, Any]]) -> Any:
    """A subgraph snapshot's config with its ``checkpoint_map`` (its parents and itself), which
    the root graph's ``invoke(None, config)`` travels to (LangGraph's)."""
    parents = (metadata or {}).get("parents")
    if config is None or not parents:
        return config
    configurable = config["configurable"]
    checkpoint_map = {**parents, configurable.get("checkpoint_ns", ""): configurable.get("checkpoint_id")}
    return {**config, "configurable": {**configurable, "checkpoint_map": checkpoint_map}}


def _newest_before(saver: Any, config: dict[str, Any], before: datetime) -> Any:
    for saved in saver.list(config):  # newest first
        if _when(saved.checkpoint) < before:
            return saved
    return None


def _when(checkpoint: dict[str, Any]) -> datetime:
    # Parsed, not compared as text: isoformat() leaves out a zero microsecond part.
    return datetime.fromisoformat(checkpoint["ts"])
