"""What a caller sees of a run's channel values: what ``invoke`` returns (the output
schema's keys), what the "values" stream and snapshots show (every key of the state), and
a stream chunk as it is yielded or printed. A root state (``StateGraph(list[str])``, see
:mod:`rag.graph._schemas`) is shown as its value itself, never as ``{"__root__": value}``."""

from __future__ import annotations

from typing import Any

from rag.graph._schemas import ROOT
from rag.graph.constants import INTERRUPT

__all__ = ["shown", "visible", "visible_chunk"]


def visible_chunk(graph: Any, emit: Any) -> Any:
    """``emit``'s chunk as the caller sees it: "values" through :func:`visible`, and a root
    state's "updates" as the values the nodes returned (not ``{"__root__": value}``)."""
    if emit.mode == "values":
        return visible(graph, emit.chunk)
    shape = getattr(graph.builder, "shape", None)
    if emit.mode != "updates" or shape is None or shape.kind != "root" or not isinstance(emit.chunk, dict):
        return emit.chunk

    def unwrap(update: Any) -> Any:
        if isinstance(update, list):
            return [unwrap(item) for item in update]
        return update[ROOT] if isinstance(update, dict) and ROOT in update else update

    return {node: unwrap(update) for node, update in emit.chunk.items()}


def visible(graph: Any, values: Any) -> Any:
    """The channel values as the "values" stream and snapshots show them (LangGraph's
    stream channels): every key of the state, private ones included; a root state's value
    itself. What ``invoke`` returns is :func:`shown`, the output schema's keys."""
    shape = getattr(graph.builder, "output_shape", None)
    if shape is not None and shape.kind == "root":
        return shown(graph, values)
    return values


def shown(graph: Any, values: Any) -> Any:
    """What a caller sees of the channel values (returned, streamed as "values", in
    snapshots): the output schema's keys, so private keys stay inside; a root state's
    value itself."""
    shape = getattr(graph.builder, "output_shape", None)
    if shape is None or not isinstance(values, dict):
        return values
    if shape.kind == "root":  # paused: only the interrupts, as LangGraph's (the value cannot hold them)
        return {INTERRUPT: values[INTERRUPT]} if INTERRUPT in values else values.get(ROOT)
    if len(shape.keys) == len(graph.builder.channels):
        return values  # the output schema covers every channel: nothing to hide
    result = shape.output(values)
    if INTERRUPT in values:
        result[INTERRUPT] = values[INTERRUPT]
    return result
