"""Where a step goes next: the conditional edges asked (through the driver, so an async
path function is awaited on the run's loop) and the next step's entries from edges,
branches, ``Command.goto``, Sends and completed joins."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generator, Iterable, Optional

from rag.graph._effects import Decide
from rag.graph.constants import END
from rag.graph.types import Send

if TYPE_CHECKING:
    from rag.graph._loop import Loop

__all__ = ["decisions", "successors", "node_triggers"]


def node_triggers(nodes: Iterable[str], joins: Iterable[tuple[tuple[str, ...], str]]) -> dict[str, tuple[str, ...]]:
    """LangGraph's triggers of each node's tasks (the "tasks"/"debug" streams'
    ``triggers``, a node's ``langgraph_triggers``): its channel ``branch:to:<node>`` and,
    for each join (waiting edge) into it, ``join:<source>+<source>:<node>``, sorted."""
    triggers = {name: [f"branch:to:{name}"] for name in nodes}
    for sources, target in joins:
        if target in triggers:
            triggers[target].append(f"join:{'+'.join(sources)}:{target}")
    return {name: tuple(sorted(channels)) for name, channels in triggers.items()}


def decisions(loop: Loop, finished: list[tuple[str, list[Any], Optional[dict[str, Any]]]]) -> Generator[Any, Any, dict]:
    """The answers of the conditional edges of the ``finished`` nodes, by
    ``(index in finished, branch index)``, asked of the driver (see :class:`Decide`)."""
    decided: dict[tuple[int, int], Any] = {}
    for index, (name, _, view) in enumerate(finished):
        for number, branch in enumerate(loop.builder.branches.get(name, ())):
            state = dict(loop.values if view is None else view)
            decided[index, number] = yield Decide(branch, state, loop.node_config)
    return decided

def successors(loop: Loop, finished: list[tuple[str, list[Any], Optional[dict[str, Any]]]],
                decided: Optional[dict[tuple[int, int], Any]] = None) -> list[Any]:
    """Next step's entries: every Send in the order made, then each node once (edges,
    branches, goto, completed joins) sorted by name (LangGraph's task order, which is
    also the order of the "updates" chunks). ``finished``: ``(node, goto, state its
    branches read or None)``."""
    found: dict[str, None] = {}
    sends: list[Send] = []
    nodes = loop.builder.nodes
    for index, (name, goto, view) in enumerate(finished):
        for target in loop.graph.edges_from.get(name, ()):
            found[target] = None
        for number, branch in enumerate(loop.builder.branches.get(name, ())):
            if decided is not None:
                answer = decided[index, number]
            else:  # update_state: no driver, sync paths only
                answer = branch.decide(dict(loop.values if view is None else view), loop.node_config)
            for target in branch.resolve(answer, nodes):
                if isinstance(target, Send):
                    sends.append(target)
                else:
                    found[target] = None
        for target in goto:
            if isinstance(target, Send):
                sends.append(target)
            else:
                found[target] = None
        for sources, target in loop.graph.joins_from.get(name, ()):
            seen = loop.joins.setdefault(f"{'|'.join(sources)}>{target}", [])
            if name not in seen:
                seen.append(name)
    # A join is judged after every write of the step is in (as LangGraph's barrier
    # channel): a source that ran again in the step that completed it does not count
    # toward the join's next firing.
    for sources, target in loop.builder.joins:
        key = f"{'|'.join(sources)}>{target}"
        if key in loop.joins and set(loop.joins[key]) >= set(sources):
            found[target] = None
            del loop.joins[key]
    found.pop(END, None)
    return _defer(loop, sends, sorted(found))


#: Where the loop's checkpointed ``joins`` keeps the deferred nodes due but held back.
DEFERRED = "__defer__"


def _defer(loop: Loop, sends: list[Send], names: list[str]) -> list[Any]:
    """``add_node(..., defer=True)``: a due deferred node waits (across steps, in the
    checkpoint) until nothing else is due, then runs once (as LangGraph's)."""
    deferred = getattr(loop.builder, "deferred", ())
    held = loop.joins.get(DEFERRED, [])
    if not deferred and not held:
        return [*sends, *names]
    held = sorted({*held, *(name for name in names if name in deferred)})
    names = [name for name in names if name not in deferred]
    if sends or names:
        if held:
            loop.joins[DEFERRED] = held
        return [*sends, *names]
    loop.joins.pop(DEFERRED, None)
    return held
