"""A diagram as JSON (:meth:`rag.runnables.graph.Graph.to_json`), in langchain-core's shape:
``{"nodes": [{"id", "type", "data", "metadata"?}], "edges": [{"source", "target", "data"?,
"conditional"?}]}``, which LangGraph's tools (and its published test snapshots) read.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any
from uuid import UUID

if TYPE_CHECKING:
    from rag.runnables.graph import Graph, Node

__all__ = ["graph_json", "is_uuid", "node_display_name", "serialized_id"]


def is_uuid(value: str) -> bool:
    """Whether ``value`` parses as a UUID (such ids are generated, not names worth showing)."""
    try:
        UUID(value)
    except ValueError:
        return False
    return True


def serialized_id(data: Any) -> list[str]:
    """The class path LangChain serialises ``data`` under: its ``lc_id()`` when it has one
    (a class that stands for a LangChain/LangGraph one says which), else its module's dotted
    path and class name (langchain-core's ``to_json_not_implemented``)."""
    lc_id = getattr(type(data), "lc_id", None)
    if callable(lc_id):
        return list(lc_id())
    cls = type(data)
    return [*cls.__module__.split("."), cls.__name__]


def node_display_name(node_id: str, data: Any) -> str:
    """A node's shown name: its id, unless the id is a generated UUID and the node holds a
    runnable (its name, without a leading ``Runnable``) or a class (its name)."""
    if not is_uuid(node_id) or data is None:
        return node_id
    from rag.runnables.base import Runnable

    name = data.get_name() if isinstance(data, Runnable) else getattr(data, "__name__", type(data).__name__)
    return name[len("Runnable"):] if name.startswith("Runnable") else name


def _node_data(node: Node, with_schemas: bool) -> dict[str, Any]:
    from rag.runnables.base import Runnable

    data = node.data
    if data is None:
        out: dict[str, Any] = {}
    elif isinstance(data, Runnable):
        out = {"type": "runnable", "data": {"id": serialized_id(data), "name": node_display_name(node.id, data)}}
    elif inspect.isclass(data) and hasattr(data, "model_json_schema"):  # a pydantic model class
        out = {"type": "schema",
               "data": data.model_json_schema() if with_schemas else node_display_name(node.id, data)}
    else:
        out = {"type": "unknown", "data": node_display_name(node.id, data)}
    if node.metadata is not None:
        out["metadata"] = node.metadata
    return out


def graph_json(graph: Graph, *, with_schemas: bool = False) -> dict[str, list[dict[str, Any]]]:
    """``graph`` as JSON-ready dicts; generated (UUID) node ids become their position, so
    the output is the same from run to run."""
    stable = {node.id: index if is_uuid(node.id) else node.id for index, node in enumerate(graph.nodes.values())}
    edges = []
    for edge in graph.edges:
        item: dict[str, Any] = {"source": stable[edge.source], "target": stable[edge.target]}
        if edge.data is not None:
            item["data"] = edge.data
        if edge.conditional:
            item["conditional"] = True
        edges.append(item)
    nodes = [{"id": stable[node.id], **_node_data(node, with_schemas)} for node in graph.nodes.values()]
    return {"nodes": nodes, "edges": edges}
