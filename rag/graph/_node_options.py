"""What ``add_node``'s options mean, checked once (:class:`~rag.graph.state_graph.StateGraph`
keeps the results): ``destinations`` (where a node returning ``Command(goto=...)`` may go,
given or read from a ``-> Command[Literal["a", "b"]]`` annotation, for drawings), ``defer``
and ``metadata``; and the graph's input as a dict update (see :mod:`rag.graph._schemas`)."""

from __future__ import annotations

import inspect
import typing
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from rag.errors import ValidationError
from rag.graph._schemas import ROOT, StateShape, instance_update

__all__ = ["NodeOptions", "node_options", "command_ends", "graph_input"]


@dataclass(frozen=True)
class NodeOptions:
    """A node's checked options: ``destinations`` maps node name to edge label (None: no
    label; an empty dict: none declared)."""

    defer: bool
    destinations: dict[str, Optional[str]]
    metadata: Optional[dict[str, Any]]


def command_ends(action: Any) -> Optional[tuple[str, ...]]:
    """Nodes named by a ``-> Command[Literal["a", "b"]]`` return annotation (LangGraph's
    way to declare where a node returning a Command may go)."""
    from rag.graph.types import Command

    try:
        hint = typing.get_type_hints(action if inspect.isroutine(action) else action.__call__).get("return")
    except Exception:  # unresolvable annotations: destinations unknown
        return None
    if typing.get_origin(hint) is Command:
        args = typing.get_args(hint)
        if args and typing.get_origin(args[0]) is typing.Literal:
            return tuple(str(v) for v in typing.get_args(args[0]))
    return None


def node_options(node: str, action: Any, defer: Any, destinations: Any, metadata: Any) -> NodeOptions:
    """The options of node ``node`` checked; raises naming the node and the bad value."""
    if metadata is not None and not isinstance(metadata, dict):
        raise ValidationError(f"metadata of node {node!r} must be a dict, got {type(metadata).__name__}")
    if not isinstance(defer, bool):
        raise ValidationError(f"defer of node {node!r} must be True or False, got {defer!r}")
    if destinations is None:
        ends = command_ends(action)
        found: dict[str, Optional[str]] = {name: None for name in ends} if ends else {}
    elif isinstance(destinations, dict):
        found = {str(k): (None if v is None else str(v)) for k, v in destinations.items()}
    elif isinstance(destinations, (tuple, list)) and all(isinstance(d, str) for d in destinations):
        found = {name: None for name in destinations}
    else:
        raise ValidationError(f"destinations of node {node!r} must be a tuple of node names or a dict from "
                              f"node name to edge label, got {destinations!r:.80}")
    return NodeOptions(defer, found, dict(metadata) if metadata else None)


def graph_input(shape: StateShape, channels: Mapping[str, Any], value: Any) -> Any:
    """The graph's input as a dict update: a root state's value wrapped, a model or
    dataclass instance as its fields; a dict's keys of channels outside the input schema
    ``shape`` (default: the state schema) are ignored, as LangGraph's."""
    if shape.kind == "root":
        return {ROOT: value}
    if isinstance(value, dict):
        if len(shape.keys) == len(channels):
            return value
        # Keys of private channels are not input (LangGraph ignores them); a key of no
        # channel at all stays, to be refused by name (a typo, not a private key).
        return {key: item for key, item in value.items() if key in shape.keys or key not in channels}
    if value is not None and not isinstance(value, (str, bytes)) and hasattr(value, "__dict__") and \
            not callable(value):
        return instance_update(value, shape.keys)
    return value
