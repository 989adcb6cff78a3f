"""A compiled graph's diagram (``get_graph()``): ``__start__``, the nodes, ``__end__``,
edges, joins, conditional edges and a node's ``Command`` destinations (dotted in Mermaid)."""

from __future__ import annotations

from typing import Any

from rag.graph.constants import END, START
from rag.runnables.graph import Graph

__all__ = ["draw_graph"]


def draw_graph(builder: Any) -> Graph:
    """The diagram of ``builder`` (a :class:`rag.graph.StateGraph`)."""
    graph = Graph()
    ids = {START: graph.add_node(START, id=START)}
    for name, node in builder.nodes.items():
        ids[name] = graph.add_node(name, node, id=name,
                                   metadata=getattr(builder, "node_metadata", {}).get(name))
    ids[END] = graph.add_node(END, id=END)
    for source, target in builder.edges:
        graph.add_edge(ids[source], ids[target])
    for sources, target in builder.joins:
        for source in sources:
            graph.add_edge(ids[source], ids[target])
    for source, branches in builder.branches.items():
        for branch in branches:
            ends = branch.ends if branch.ends is not None else (*builder.nodes, END)
            for target in dict.fromkeys(ends):
                graph.add_edge(ids[source], ids[target], conditional=True)
    # Where a node returning Command(goto=...) may go (add_node(destinations=...) or a
    # -> Command[Literal[...]] annotation), and a node with no way out ends the run.
    for source, destinations in getattr(builder, "destinations", {}).items():
        for target, label in destinations.items():
            graph.add_edge(ids[source], ids[target], label, conditional=True)
    leaving = {edge.source for edge in graph.edges}
    for name in builder.nodes:
        if name not in leaving:
            graph.add_edge(ids[name], ids[END])
    if not any(e.target == END for e in graph.edges):
        graph.remove_node(ids[END])
    return graph
