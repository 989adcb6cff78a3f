"""A node's return value given as a list of updates and Commands (what LangGraph's ToolNode
returns when a tool answered with a ``Command``), combined into the one Command a task
records: the updates in order (a key two items set to lists gets both lists, which is what
applying them in turn does for ``add_messages`` and list-concatenating reducers), the gotos
one after another."""

from __future__ import annotations

from typing import Any, Mapping, Optional

from rag.graph.errors import InvalidUpdateError
from rag.graph.types import Command

__all__ = ["is_update_list", "combine_updates", "pairs_as_updates", "reported_result"]


def is_update_list(output: Any) -> bool:
    """Whether ``output`` is a non-empty list of state-update dicts and Commands."""
    return isinstance(output, list) and bool(output) and all(isinstance(item, (dict, Command)) for item in output) \
        and any(isinstance(item, Command) for item in output)


def pairs_as_updates(update: Any) -> Optional[list[dict[str, Any]]]:
    """A ``Command(update=[(key, value), ...])`` (LangGraph's writes in order, a key
    possibly more than once) as one single-key update per write; None for anything else."""
    if isinstance(update, (list, tuple)) and update and all(
            isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str) for pair in update):
        return [{key: value} for key, value in update]
    return None


def combine_updates(node: str, output: list[Any], channels: Optional[Mapping[str, Any]] = None) -> Command:
    """One Command doing what the items of ``output`` do, in order. ``channels`` (the
    graph's, see :mod:`rag.graph.state`): a key with a reducer written twice combines the
    two values through it (``operator.add`` on str, a custom merge...)."""
    update: dict[str, Any] = {}
    goto: list[Any] = []
    for item in output:
        if isinstance(item, Command):
            if item.graph is not None or item.has_resume:
                raise InvalidUpdateError(
                    f"node {node!r} returned a list holding {item!r}; in a list, a Command may carry only "
                    "update= and goto= (graph= and resume= are not supported there)"
                )
            values, goto = item.update or {}, [*goto, *item.goto_list()]
        else:
            values = item
        if not isinstance(values, dict):
            raise InvalidUpdateError(f"node {node!r} returned a Command whose update is {type(values).__name__} "
                                     f"{values!r:.80}; it must be a dict of state updates")
        for key, value in values.items():
            if key not in update:
                update[key] = value
            elif isinstance(update[key], list) and isinstance(value, list):
                update[key] = [*update[key], *value]
            elif channels is not None and key in channels and channels[key].reducer is not None:
                update[key] = channels[key].reducer(update[key], value)
            else:
                raise InvalidUpdateError(
                    f"node {node!r} returned several updates of {key!r} in one list ({update[key]!r:.40} and "
                    f"{value!r:.40}); only list values (such as messages) can be combined"
                )
    return Command(update=update or None, goto=goto)


def reported_result(update: Optional[Mapping[str, Any]], parts: Optional[list[Any]]) -> dict[str, Any]:
    """A task's result as LangGraph reports it (the "tasks"/"debug" streams, the history):
    its update, except that a key the task wrote more than once (a list of updates or
    ``Command(update=[(key, value), ...])``) shows each write: ``{"$writes": [value, ...]}``."""
    if not parts:
        return dict(update or {})
    writes: dict[str, list[Any]] = {}
    for part in parts:
        for key, value in (part or {}).items():
            writes.setdefault(key, []).append(value)
    return {key: values[0] if len(values) == 1 else {"$writes": values} for key, values in writes.items()}
