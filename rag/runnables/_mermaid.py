"""Mermaid flowchart text for a :class:`~rag.runnables.graph.Graph` (LangGraph's layout:
a front-matter config, ``graph TD;``, one line per node and edge, three class styles)."""

from __future__ import annotations

import re

import rag.runnables  # type hints: rag.runnables.graph imports this module

__all__ = ["draw_mermaid"]

_HEADER = "---\nconfig:\n  flowchart:\n    curve: linear\n---\ngraph TD;"
_STYLES = ("\tclassDef default fill:#f2f0ff,line-height:1.2\n"
           "\tclassDef first fill-opacity:0\n"
           "\tclassDef last fill:#bfb6fc")


def _safe_ids(graph: rag.runnables.graph.Graph) -> dict[str, str]:
    """A Mermaid-safe, unique id per node, from its name (``my node`` -> ``my_node``)."""
    ids: dict[str, str] = {}
    used: set[str] = set()
    for node in graph.nodes.values():
        base = re.sub(r"[^0-9A-Za-z_]", "_", node.name) or "node"
        candidate, n = base, 1
        while candidate in used:
            n += 1
            candidate = f"{base}_{n}"
        used.add(candidate)
        ids[node.id] = candidate
    return ids


def _label(name: str) -> str:
    return name.replace('"', "#quot;")


def draw_mermaid(graph: rag.runnables.graph.Graph) -> str:
    ids = _safe_ids(graph)
    first, last = graph.first_node(), graph.last_node()
    lines = [_HEADER]
    for node in graph.nodes.values():
        if first is not None and node.id == first.id:
            lines.append(f"\t{ids[node.id]}([\"<p>{_label(node.name)}</p>\"]):::first")
        elif last is not None and node.id == last.id:
            lines.append(f"\t{ids[node.id]}([\"<p>{_label(node.name)}</p>\"]):::last")
        else:
            lines.append(f"\t{ids[node.id]}(\"{_label(node.name)}\")")
    for edge in graph.edges:
        arrow = "-.->" if edge.conditional else "-->"
        if edge.data is not None:  # a labelled edge, drawn as LangGraph draws it
            arrow = f"-. &nbsp;{_label(str(edge.data))}&nbsp; .->" if edge.conditional else \
                f"-- &nbsp;{_label(str(edge.data))}&nbsp; -->"
        lines.append(f"\t{ids[edge.source]} {arrow} {ids[edge.target]};")
    lines.append(_STYLES)
    return "\n".join(lines) + "\n"
