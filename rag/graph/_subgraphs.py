"""Subgraphs: a compiled graph run as a node of another graph, or invoked inside one.

As LangGraph's, a graph that runs inside a node of a running graph (the *parent*):

- keeps its checkpoints in the parent's saver, under the parent's thread, in its own
  checkpoint namespace: ``"node:task_id"`` (nested: ``"a:id1|b:id2"``); a second call of a
  subgraph by the same task adds ``"|1"``, ``"|2"``...;
- ``compile(checkpointer=None)`` (the default): *stateless*, each parent task starts it
  afresh, but a pause inside it is kept so a resume continues where it paused;
  ``compile(checkpointer=True)``: *stateful*, its checkpoints are kept under the
  namespace without task ids, so its state accumulates over the parent's invocations;
  ``compile(checkpointer=False)``: never checkpointed (no pause possible inside it);
- an ``interrupt()`` inside it pauses the parent (the parent's task records the
  subgraph's interrupts) and the parent's ``Command(resume=...)`` reaches it;
- a node returning ``Command(graph=Command.PARENT, ...)`` hands that command to the
  parent's task running the subgraph, as if that task had returned it;
- with the parent's ``stream(..., subgraphs=True)``, its chunks reach the parent's stream
  tagged with its namespace.

Deliberate differences: a subgraph *added as a node* that was compiled with a saver of its
own, inside a parent that has one, is refused (LangGraph silently uses the parent's); a
graph with a saver of its own *invoked inside* a node runs on its own, under the thread
its config names (LangGraph moves it into the parent's saver and thread).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator, Optional

from rag.errors import ValidationError
from rag.graph._calls import CALL_KEY, CallSlot
from rag.graph._effects import Emit
from rag.graph.errors import GraphInterrupt, ParentCommand
from rag.graph.constants import INTERRUPT
from rag.graph.types import CURRENT_TASK, Command, PregelTask

__all__ = ["NS_SEP", "NS_END", "Link", "Nested", "ParentCommand", "link_of", "task_ns", "stateful_ns",
           "child_config", "saver_of", "resume_input", "relay", "arelay", "nested_sink", "out_chunk", "task_states", "subgraphs_of",
           "pause_chunks"]

_ROOT = "__root__"  # rag.graph._schemas.ROOT: the one channel of a non-dict state

#: Separates the levels of a checkpoint namespace, and a node's name from its task id (LangGraph's).
NS_SEP, NS_END = "|", ":"


@dataclass(frozen=True)
class Nested:
    """A chunk of a subgraph's stream on its way to the parent's ``stream(subgraphs=True)``;
    ``ns``: the subgraph's namespace, one ``"node:task_id"`` per level."""

    ns: tuple[str, ...]
    mode: str
    chunk: Any


@dataclass
class Link:
    """How a graph running inside a parent's task is tied to it."""

    parent: Any  # the parent's rag.graph._loop.Loop
    task: Any  # the parent's Task the subgraph runs in
    saver: Any  # the saver its checkpoints go to (None: not checkpointed)
    ns: str  # its namespace as streamed and handed to its nodes (with task ids)
    store_ns: str  # where its checkpoints are kept (stateful: without task ids)
    resuming: bool  # the parent's task paused inside it before: continue where it paused
    paused: bool = False  # this run stopped at an interrupt() or a breakpoint

    @property
    def forward(self) -> Optional[Callable[[tuple[str, ...], Any], None]]:
        """Where its chunks go for the parent's ``stream(subgraphs=True)`` (None: nowhere)."""
        return getattr(self.parent, "nested", None)


def task_ns(prefix: str, name: str, task_id: str) -> str:
    """The namespace of a task of a graph whose own namespace is ``prefix``."""
    own = f"{name}{NS_END}{task_id}"
    return f"{prefix}{NS_SEP}{own}" if prefix else own


def stateful_ns(ns: str) -> str:
    """``ns`` without its task ids (numbered repeat calls kept): where a
    ``checkpointer=True`` subgraph keeps its one history per thread."""
    return NS_SEP.join(part.split(NS_END)[0] for part in ns.split(NS_SEP))


def link_of(graph: Any) -> Optional[Link]:
    """The link of ``graph`` to the graph whose node is running it in this thread (or
    asyncio task), or None when it runs on its own."""
    scope = CURRENT_TASK.get()
    if scope is None or scope.config is None:
        return None
    slot = (scope.config.get("configurable") or {}).get(CALL_KEY)
    if not isinstance(slot, CallSlot):
        return None
    parent, task = slot.loop, slot.task
    own = graph.checkpointer
    if getattr(graph.builder, "direct_input", False):
        return None  # an @entrypoint: rag.graph._func_graph runs it as part of its caller
    declared = parent.builder.nodes.get(task.name) is graph
    if own not in (None, True, False) and not declared:
        return None  # a graph with a saver of its own, invoked inside a node: it runs on its own thread
    if own not in (None, True, False) and parent.saver is not None:
        raise ValidationError(
            f"subgraph {task.name!r} was compiled with a checkpointer of its own, but its parent graph has one: "
            "compile the subgraph with checkpointer=None (its checkpoints go to the parent's saver, under the "
            "parent's thread) or checkpointer=True (to keep its state across the parent's invocations)"
        )
    base = task.config["configurable"].get("checkpoint_ns") or task_ns(parent.ns, task.name, task.id)
    calls = getattr(scope, "subgraph_calls", 0)  # per attempt of the task, as LangGraph's scratchpad
    scope.subgraph_calls = calls + 1
    ns = f"{base}{NS_SEP}{calls}" if calls else base
    if own is False:
        saver = None
    elif own is None or own is True:
        saver = parent.saver
    else:
        saver = own
    resuming = task.paused and not task.done
    if own is True:  # one history per thread: streamed and nested under the namespace without task ids
        ns = stateful_ns(ns)
    return Link(parent, task, saver, ns, ns, resuming)


def saver_of(graph: Any, link: Optional[Link]) -> Any:
    """The saver a run of ``graph`` checkpoints with (None: none)."""
    if link is not None:
        return link.saver
    if graph.checkpointer is True:
        raise ValidationError("checkpointer=True means 'keep my state in my parent's saver': it cannot be used for "
                              "a root graph; compile it with a saver (InMemorySaver(), SqliteSaver...) instead")
    return None if graph.checkpointer is False else graph.checkpointer


def child_config(link: Link, config: Optional[dict[str, Any]]) -> dict[str, Any]:
    """The subgraph's run config: the parent task's (as LangGraph's, a graph invoked inside
    a node without a config inherits the node's), its own on top, its thread and namespace."""
    merged = {**link.task.config, **(config or {})}
    configurable = {**(link.task.config.get("configurable") or {}), **((config or {}).get("configurable") or {})}
    configurable.pop("checkpoint_id", None)  # the parent's checkpoint: not one of the subgraph's
    configurable["checkpoint_ns"] = link.store_ns
    if link.parent.thread is not None:
        configurable["thread_id"] = link.parent.thread[0]
    merged["configurable"] = configurable
    merged["metadata"] = {**(link.task.config.get("metadata") or {}), **((config or {}).get("metadata") or {})}
    return merged


def resume_input(link: Link, input: Any, saved: Any, channels: Any) -> Any:
    """What the subgraph runs with: its own input, of which it takes the keys it has
    (``channels``; a subgraph is typically handed its parent's state, as LangGraph's),
    or (when the parent's task paused in it and is run again) None or
    ``Command(resume=...)`` to continue its saved pause."""
    if isinstance(input, dict) and _ROOT not in channels:  # (a root-typed state takes its input whole)
        input = {key: value for key, value in input.items() if key in channels}
    if not link.resuming or saved is None or not saved.checkpoint.get("next"):
        return input
    task = link.task
    answers = task.resume[len(task.resume) - task.answered:] if task.answered else []
    if not answers:
        return None
    value = getattr(link.parent, "resume_value", None)
    ids = {pause.id for pause in task.interrupts}
    if isinstance(value, dict):  # answers by interrupt id: those of its own pauses, by id
        mine = {key: answer for key, answer in value.items() if key in ids}
        if mine:
            return Command(resume=mine)
    return Command(resume=answers[-1])


def subgraphs_of(graph: Any, namespace: Optional[str] = None, recurse: bool = False) -> Iterator[tuple[str, Any]]:
    """LangGraph's ``get_subgraphs``: ``(namespace, compiled graph)`` for each node that is
    a compiled graph; ``namespace``: only the one it names (whole ``|``-separated
    segments, task ids dropped); ``recurse``: their subgraphs too, namespaced ``a|b``."""
    from rag.graph.pregel import CompiledStateGraph

    wanted = None if namespace is None else stateful_ns(namespace)
    for name, node in graph.builder.nodes.items():
        if not isinstance(node, CompiledStateGraph):
            continue
        if wanted is None or wanted == name:
            yield name, node
        if recurse and (wanted is None or wanted.startswith(name + NS_SEP)):
            rest = None if wanted is None else wanted[len(name) + 1:]
            for child_ns, child in subgraphs_of(node, rest, recurse):
                yield f"{name}{NS_SEP}{child_ns}", child


def task_states(graph: Any, saver: Any, config: dict[str, Any], tasks: tuple[PregelTask, ...],
                recurse: bool) -> tuple[PregelTask, ...]:
    """``tasks`` with ``state`` set for those that ran a subgraph (declared, or invoked
    inside the node): its snapshot with ``recurse`` (``get_state(subgraphs=True)``), else
    the config that reads it (as LangGraph's)."""
    from rag.graph.checkpoint.base import thread_of

    thread_id, prefix, _ = thread_of(config)
    out = []
    for task in tasks:
        node = graph.builder.nodes.get(task.name)
        ns = task_ns(prefix, task.name, task.id)
        child_graph = node if hasattr(node, "_snapshot") else None
        store_ns = stateful_ns(ns) if child_graph is not None and child_graph.checkpointer is True else ns
        sub = {"configurable": {"thread_id": thread_id, "checkpoint_ns": store_ns}}
        if child_graph is None and saver.get_tuple(sub) is None:
            # A graph invoked inside the node: stateless (under the task's namespace) or
            # checkpointer=True (under the one without task ids), or none at all.
            sub = {"configurable": {"thread_id": thread_id, "checkpoint_ns": stateful_ns(ns)}}
            if saver.get_tuple(sub) is None:
                out.append(task)
                continue
        if not recurse:
            out.append(replace(task, state={"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}))
            continue
        if child_graph is not None:
            state = child_graph._snapshot(saver.get_tuple(sub), sub, pending=True)
            state = replace(state, tasks=task_states(child_graph, saver, {"configurable": {
                "thread_id": thread_id, "checkpoint_ns": ns}}, state.tasks, True))
        else:
            state = _plain_snapshot(saver.get_tuple(sub))
        out.append(replace(task, state=state))
    return tuple(out)


def _plain_snapshot(saved: Any) -> Any:
    """The snapshot of a graph invoked inside a node (its graph is not known here): its
    checkpoint's values and due nodes as saved."""
    from rag.graph.types import StateSnapshot

    checkpoint = saved.checkpoint
    names = tuple(getattr(entry, "node", entry) for entry in checkpoint.get("next", []))
    return StateSnapshot(dict(checkpoint["channel_values"]), names, saved.config, saved.metadata,
                         checkpoint.get("ts"), saved.parent_config, (), ())


def pause_chunks(loop: Any, tasks: list[Any]) -> Iterator[Emit]:
    """The chunks of a step that paused (as LangGraph's): for each node that asked,
    ``"updates"`` ``{"__interrupt__": its interrupts}`` and ``"values"``: the state the step
    started from with them. Then, from the root graph only (a subgraph's pause is the root's
    to report): the state with the updates of the nodes that did finish, if any, and for a
    pause that asked nothing (a breakpoint inside a subgraph) ``{"__interrupt__": ()}``."""
    asking = [task for task in tasks if not task.done and task.interrupts]
    for task in asking:
        yield Emit("updates", {INTERRUPT: tuple(task.interrupts)})
        yield Emit("values", {**loop.state(), INTERRUPT: tuple(task.interrupts)})
    if loop.link is None and any(task.done and task.update for task in tasks):
        yield Emit("values", loop.shown)
    if not asking:  # (a subgraph's marks it paused, see _passing; only the root's is streamed)
        yield Emit("updates", {INTERRUPT: loop.interrupts})


def _ns_tuple(loop: Any) -> tuple[str, ...]:
    return tuple(loop.ns.split(NS_SEP)) if loop.ns else ()


def _passing(loop: Any, emit: Any) -> Any:
    if type(emit) is not Nested and loop.link is not None:
        if emit.mode == "updates" and INTERRUPT in emit.chunk:
            loop.link.paused = True  # an interrupt() or a breakpoint stopped it
            if not emit.chunk[INTERRUPT]:  # a breakpoint: only the root's stream shows it (as LangGraph's)
                return emit
        if loop.nested is not None:
            loop.nested(_ns_tuple(loop), emit)
    return emit


def _ended(loop: Any, exc: Optional[ParentCommand]) -> None:
    if exc is not None:
        if loop.link is not None and not exc.for_parent:
            exc.for_parent = True  # its parent's task settles it (rag.graph._drive)
        raise exc
    if loop.link is not None and loop.link.paused:
        raise GraphInterrupt(loop.interrupts)  # (none: a breakpoint; the parent's task waits all the same)


def relay(loop: Any, emits: Iterator[Any]) -> Iterator[Any]:
    """``emits`` of a run, each also passed to the parent's ``stream(subgraphs=True)``
    when ``loop`` runs as a subgraph; at the end a pause becomes the parent task's
    (:class:`GraphInterrupt`), and a :class:`ParentCommand` is marked for the parent."""
    try:
        for emit in emits:
            yield _passing(loop, emit)
    except ParentCommand as exc:
        _ended(loop, exc)
    _ended(loop, None)


async def arelay(loop: Any, emits: Any) -> Any:
    """Async :func:`relay`."""
    try:
        async for emit in emits:
            yield _passing(loop, emit)
    except ParentCommand as exc:
        _ended(loop, exc)
    _ended(loop, None)


def nested_sink(live: Any) -> Callable[[tuple[str, ...], Any], None]:
    """A root graph's sink for its subgraphs' chunks (``stream(subgraphs=True)``)."""
    return lambda ns, emit: live.sink(Nested(ns, emit.mode, emit.chunk))


def out_chunk(emit: Any, chunk: Any, single: bool, subgraphs: bool) -> Any:
    """A stream's item: the chunk, ``(mode, chunk)`` for several modes; with
    ``subgraphs=True`` the namespace first (``()`` for the graph's own chunks)."""
    if not subgraphs:
        return chunk if single else (emit.mode, chunk)
    ns = emit.ns if type(emit) is Nested else ()
    return (ns, chunk) if single else (ns, emit.mode, chunk)


def graph_for_namespace(graph: Any, config: Any, *, saver: Any = None, for_update: bool = False) -> Any:
    """The graph whose state a config's ``checkpoint_ns`` addresses: the subgraph it
    names (lent ``saver`` when given), else ``graph`` (a namespace of a graph invoked
    inside a node is read with ``graph``'s keys, as LangGraph's). ``for_update``: a
    namespace naming no subgraph is refused, as writing ``graph``'s keys into it would
    corrupt it."""
    ns = ((config or {}).get("configurable") or {}).get("checkpoint_ns")
    if not ns:
        return graph
    for _, found in subgraphs_of(graph, ns, recurse=True):
        if saver is None:
            return found
        lent = copy.copy(found)
        lent.checkpointer = saver
        return lent
    if for_update:
        recast = NS_SEP.join(part.split(NS_END)[0] for part in ns.split(NS_SEP) if not part.isdigit())
        raise ValidationError(f"Subgraph {recast} not found: checkpoint_ns {ns!r} names no subgraph declared as a "
                              f"node of this graph (its subgraphs: {[name for name, _ in subgraphs_of(graph, recurse=True)]}), "
                              "so its state cannot be updated with this graph's keys")
    return graph
