"""Which edges a graph's diagram shows, found as LangGraph finds them: a dry run of the
graph's steps over its trigger channels, with no node run and no state read.

Each node has writers: a plain edge writes the target's ``branch:to:<target>`` channel
every time the node runs; a join writes its barrier channel; a conditional edge with known
ends (a ``path_map``, or a ``Literal`` return type) and a node's ``Command`` destinations
"write" every end once, marked conditional and labelled with the path-map key. Steps run
as the real loop runs them (ephemeral channels, barriers, deferred nodes that wait for the
graph to finish) up to ``limit`` steps; an edge joins each writer to each node its write
triggered. A node triggered without a writer of this step (a deferred node) gets a dotted
edge from every node of the step before. The result is the same drawing LangGraph 1.2
gives, edge for edge (``get_graph().to_json()`` and ``draw_mermaid()`` are compared with
LangGraph's published snapshots).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Optional

from rag.graph.constants import END, START

__all__ = ["DrawnEdge", "StepEdges", "step_edges"]

#: (source, target, conditional, label)
DrawnEdge = tuple[str, str, bool, Optional[str]]
_Trigger = tuple[str, bool, Optional[str]]  # (channel, conditional, label)


def branch_channel(node: str) -> str:
    return f"branch:to:{node}"


@dataclass
class _Channel:
    """A trigger channel's state: ``kind`` is ``"value"`` (set by a write, cleared by a step
    without one), ``"after_finish"`` (a deferred node's: available once the graph would
    otherwise finish) or ``"barrier"`` / ``"barrier_after_finish"`` (a join: available once
    every one of ``names`` wrote)."""

    kind: str
    names: frozenset[str] = frozenset()
    has_value: bool = False
    finished: bool = False
    seen: set[str] = field(default_factory=set)

    def available(self) -> bool:
        if self.kind == "value":
            return self.has_value
        if self.kind == "after_finish":
            return self.has_value and self.finished
        complete = self.seen == self.names
        return complete and (self.finished or self.kind == "barrier")

    def update(self, values: list[Any]) -> bool:
        if self.kind in ("value", "after_finish"):
            if not values:
                if self.kind == "value" and self.has_value:
                    self.has_value = False
                    return True
                return False
            self.has_value, self.finished = True, False
            return True
        fresh = {v for v in values if v in self.names and v not in self.seen}
        self.seen |= fresh
        return bool(fresh)

    def consume(self) -> bool:
        if self.kind == "after_finish" and self.finished:
            self.has_value = self.finished = False
            return True
        if self.kind.startswith("barrier") and self.available():
            self.seen, self.finished = set(), False
            return True
        return False

    def finish(self) -> bool:
        if self.kind == "after_finish" and self.has_value and not self.finished:
            self.finished = True
            return True
        if self.kind == "barrier_after_finish" and self.seen == self.names and not self.finished:
            self.finished = True
            return True
        return False


@dataclass(frozen=True)
class _Writer:
    """One writer of a node: ``plain`` (channel, value) pairs written each run, ``static``
    (channel or END, label) pairs declared for drawing (written on the first run only)."""

    plain: tuple[tuple[str, Any], ...] = ()
    static: tuple[tuple[str, Optional[str]], ...] = ()


@dataclass
class StepEdges:
    """What the dry run found: the ``edges``, the nodes of the first step (``start``) and
    of the last one (``last``), and the ``deferred`` nodes."""

    edges: set[DrawnEdge]
    start: list[str]
    last: list[str]
    deferred: set[str]


def _writers(builder: Any) -> dict[str, list[_Writer]]:
    writers: dict[str, list[_Writer]] = {START: [_Writer()]}
    for name in builder.nodes:
        ends = getattr(builder, "destinations", {}).get(name) or {}
        writers[name] = [_Writer(static=tuple((t if t == END else branch_channel(t), label)
                                              for t, label in ends.items()))]
    for source, target in builder.edges:
        if target != END:
            writers[source].append(_Writer(plain=((branch_channel(target), None),)))
    for sources, target in builder.joins:
        if target != END:
            channel = f"join:{'+'.join(sources)}:{target}"
            for source in sources:
                writers[source].append(_Writer(plain=((channel, source),)))
    for source, branches in builder.branches.items():
        for branch in branches:
            if branch.path_map:
                ends = [(str(key), target) for key, target in branch.path_map.items()]
            else:
                ends = [(str(target), target) for target in branch.ends or ()]
            writers[source].append(_Writer(static=tuple((t if t == END else branch_channel(t), label)
                                                        for label, t in ends)))
    return writers


def _channels(builder: Any) -> tuple[dict[str, _Channel], dict[str, list[str]]]:
    """The trigger channels and each node's triggers."""
    deferred: set[str] = getattr(builder, "deferred", set())
    channels = {START: _Channel("value")}
    triggers: dict[str, list[str]] = {START: [START]}
    for name in builder.nodes:
        channels[branch_channel(name)] = _Channel("after_finish" if name in deferred else "value")
        triggers[name] = [branch_channel(name)]
    for sources, target in builder.joins:
        if target != END:
            channel = f"join:{'+'.join(sources)}:{target}"
            kind = "barrier_after_finish" if target in deferred else "barrier"
            channels[channel] = _Channel(kind, frozenset(sources))
            triggers[target].append(channel)
    return channels, triggers


class _Run:
    """The dry run's channels, versions and what each node has seen (LangGraph's
    ``apply_writes`` / ``prepare_next_tasks`` over trigger channels only)."""

    def __init__(self, builder: Any) -> None:
        self.channels, self.triggers = _channels(builder)
        self.trigger_to_nodes: dict[str, list[str]] = defaultdict(list)
        for node, channels in self.triggers.items():
            for channel in channels:
                self.trigger_to_nodes[channel].append(node)
        self.versions: dict[str, int] = {}
        self.seen: dict[str, dict[str, int]] = {}

    def apply(self, tasks: list[str], writes: dict[str, list[tuple[str, Any]]]) -> set[str]:
        bump_step = any(self.triggers.get(task) for task in tasks)
        for task in tasks:
            self.seen.setdefault(task, {}).update(
                {c: self.versions[c] for c in self.triggers.get(task, ()) if c in self.versions})
        version = max(self.versions.values(), default=0) + 1
        for channel in {c for task in tasks for c in self.triggers.get(task, ())}:
            if self.channels[channel].consume():
                self.versions[channel] = version
        pending: dict[str, list[Any]] = defaultdict(list)
        for task in tasks:
            for channel, value in writes.get(task, ()):
                if channel in self.channels:
                    pending[channel].append(value)
        updated: set[str] = set()
        for channel, values in pending.items():
            if self.channels[channel].update(values):
                self.versions[channel] = version
                if self.channels[channel].available():
                    updated.add(channel)
        if bump_step:
            for name, state in self.channels.items():
                if state.available() and name not in updated and state.update([]):
                    self.versions[name] = version
                    if state.available():
                        updated.add(name)
            if not updated:  # the graph would stop here: deferred nodes' channels open
                for name, state in self.channels.items():
                    if state.finish():
                        self.versions[name] = version
                        if state.available():
                            updated.add(name)
        return updated

    def next_tasks(self, updated: set[str]) -> list[str]:
        if updated:
            candidates: Any = sorted({n for c in updated for n in self.trigger_to_nodes.get(c, ())})
        elif not self.versions:
            candidates = ()
        else:
            candidates = list(self.triggers)
        return [node for node in candidates
                if any(self.channels[c].available() and self.versions.get(c, 0) > self.seen.get(node, {}).get(c, 0)
                       for c in self.triggers[node])]


def step_edges(builder: Any, limit: int = 250) -> StepEdges:
    """The dry run of ``builder`` (a :class:`rag.graph.StateGraph`); see the module."""
    writers = _writers(builder)
    run = _Run(builder)
    tasks = run.next_tasks(run.apply(["__input__"], {"__input__": [(START, {})]}))  # the input: no step
    start = list(tasks)
    edges: set[DrawnEdge] = set()
    sources: dict[str, set[_Trigger]] = {}
    step_sources: dict[str, set[_Trigger]] = {}
    declared: dict[str, set[_Trigger]] = defaultdict(set)
    static_seen: set[int] = set()
    for _ in range(-1, limit):
        if not tasks:
            break
        conditionals: dict[tuple[str, str, Any], Optional[str]] = {}
        writes: dict[str, list[tuple[str, Any]]] = {task: [] for task in tasks}
        for task in tasks:
            for writer in writers[task]:
                writes[task].extend(writer.plain)
                if id(writer) in static_seen or not writer.static:
                    continue
                static_seen.add(id(writer))
                for target, label in writer.static:
                    if target == END:  # never written: an edge at once
                        edges.add((task, END, True, label))
                rest = [(c, label) for c, label in writer.static if c != END]
                conditionals.update({(task, c, None): label for c, label in rest})
                declared[task].update((c, True, label) for c, label in rest)
                writes[task].extend((c, None) for c, _ in rest)
        step_sources = {}
        for task in tasks:
            found = {(c, (task, c, value or None) in conditionals, conditionals.get((task, c, value or None)))
                     for c, value in writes[task]}
            step_sources[task] = found | declared.get(task, set())
        sources.update(step_sources)
        trigger_to_sources: dict[str, set[tuple[str, bool, Optional[str]]]] = defaultdict(set)
        for source, found in sources.items():
            for channel, conditional, label in found:
                trigger_to_sources[channel].add((source, conditional, label))
        tasks = run.next_tasks(run.apply(tasks, writes))
        for task in tasks:
            added = False
            for trigger in sorted(run.triggers[task]):
                for source, conditional, label in list(trigger_to_sources[trigger]):
                    edges.add((source, task, conditional, label))
                    if (trigger, conditional, label) in step_sources.get(source, set()):
                        added = True
                    else:
                        sources[source].discard((trigger, conditional, label))
            if not added:  # triggered by an earlier step (a deferred node): from every node of this one
                edges.update((source, task, True, None) for source in step_sources)
    return StepEdges(edges, start, list(step_sources), set(getattr(builder, "deferred", set())))
