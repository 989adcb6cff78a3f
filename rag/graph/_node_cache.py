"""Node caching in the superstep loop: before a step runs, each due node with a
:class:`~rag.graph.types.CachePolicy` looks its input up in the compiled graph's cache; a
hit finishes the task with the stored update (the node does not run), and a node that
finished is stored once the step's nodes are done. A node that failed or paused is not
stored; one that paused is stored once an answer lets it finish, so the same input later
gets that answer without asking (as in LangGraph: the policy says the input decides the
result).

As LangGraph's: the entry is ``{"update": ..., "goto": [...]}`` under the node's namespace
(:func:`~rag.graph.cache.keys.node_namespace`) and the digest of ``key_func(node input)``;
a cached task's "updates" chunk carries ``"__metadata__": {"cached": True}``.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Generator, Optional

from rag.graph.cache.keys import digest, node_namespace
from rag.graph.types import CacheKey, CachePolicy

__all__ = ["lookup", "save", "update_chunk", "task_key"]

#: Tasks by full key: several tasks of one step may share one (two Sends of the same argument).
Keyed = dict[tuple[tuple[str, ...], str], list[tuple[Any, CacheKey]]]


def task_key(policy: CachePolicy, node_name: str, node: Any, value: Any) -> CacheKey:
    """The cache key of running ``node_name`` on ``value`` under ``policy``."""
    return CacheKey(node_namespace(node_name, node), digest(policy.key_func(value)), policy.ttl)


def lookup(loop: Any, tasks: list[Any], state: dict[str, Any]) -> Generator[Any, Any, Keyed]:
    """Ask the cache for ``tasks`` that have a policy (an ``IO`` effect); finish the hits
    (``done``, ``cached``). Returns every keyed task by its full key, for :func:`save`."""
    from rag.graph._loop import IO  # _loop imports this module

    policies: dict[str, CachePolicy] = getattr(loop.builder, "cache_policies", {})
    keyed: Keyed = {}
    for task in tasks:
        policy = policies.get(task.name)
        if policy is None:
            continue
        value = task.arg if task.push else state
        key = task_key(policy, task.name, loop.builder.nodes[task.name], value)
        keyed.setdefault((key.ns, key.key), []).append((task, key))
    if not keyed:
        return keyed
    found = yield IO(partial(loop.graph.cache.get, list(keyed)), blocking=loop.graph.cache.blocking_io)
    for full_key, entry in found.items():
        for task, _ in keyed[full_key]:
            task.update, task.goto = entry.get("update"), list(entry.get("goto") or [])
            # ``ran``: the step treats the hit as a node that finished in this invocation
            # (streamed, and kept with the checkpoint if the step pauses).
            task.done = task.ran = task.cached = True
    return keyed


def save(loop: Any, keyed: Keyed) -> Generator[Any, Any, None]:
    """Store the results of the keyed tasks that ran and finished (an ``IO`` effect)."""
    from rag.graph._loop import IO

    pairs = {}
    for full_key, tasks in keyed.items():
        finished = [(task, key) for task, key in tasks if task.done and not task.cached and task.error is None]
        if finished:
            task, key = finished[0]
            pairs[full_key] = ({"update": task.update, "goto": list(task.goto)}, key.ttl)
    if pairs:
        yield IO(partial(loop.graph.cache.set, pairs), blocking=loop.graph.cache.blocking_io)


def update_chunk(task: Any) -> dict[str, Any]:
    """A finished task's "updates" chunk: ``{node: update}``, marked when it came from the cache."""
    if getattr(task, "cached", False):
        return {task.name: task.update, "__metadata__": {"cached": True}}
    parts = getattr(task, "parts", None)  # a list of updates (Commands) is streamed as that list, as LangGraph's
    return {task.name: task.update if parts is None else parts}


def namespaces(graph: Any, nodes: Optional[list[str]]) -> list[tuple[str, ...]]:
    """The cache namespaces of ``nodes`` (None: every node) of a compiled graph; an unknown
    name raises naming it and the graph's nodes."""
    from rag.errors import ValidationError

    every = graph.builder.nodes
    chosen = list(every) if nodes is None else list(nodes)
    unknown = [name for name in chosen if name not in every]
    if unknown:
        raise ValidationError(f"clear_cache got {unknown}, which are not nodes; nodes are {list(every)}")
    return [node_namespace(name, every[name]) for name in chosen]
