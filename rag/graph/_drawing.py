"""A compiled graph's diagram (``get_graph()``), as LangGraph 1.2 draws it: ``__start__``,
the nodes in the order they were added, ``__end__``; the edges a dry run of the steps finds
(:mod:`rag.graph._draw_steps`), sorted; an edge to ``__end__`` from each node reached that
leads nowhere. With ``xray``, a node that is a compiled graph is replaced by that graph's
own diagram, its node ids prefixed ``node:`` (Mermaid draws them as a subgraph).

One difference: where an unlabelled edge and a labelled one join the same two nodes (a
``Command`` destination beside a path map), LangGraph 1.2 raises ``TypeError`` sorting them;
here the unlabelled one is drawn.
"""

from __future__ import annotations

from typing import Any, Optional, Union, cast

from rag.graph._draw_steps import step_edges
from rag.graph.constants import END, START
from rag.graph._node_runnable import NodeRunnable
from rag.runnables.graph import Graph, Node

__all__ = ["draw_graph"]


def _identity(value: Any) -> Any:
    return value


def _add_edge(graph: Graph, source: str, target: str, data: Optional[str] = None, conditional: bool = False) -> None:
    """An edge, unless one already joins ``source`` to ``target``; ``__end__`` is added the
    first time an edge reaches it."""
    if any(e.source == source and e.target == target for e in graph.edges):
        return
    if target == END and END not in graph.nodes:
        graph.add_node(END, id=END)
    graph.add_edge(graph.nodes[source], graph.nodes[target], data, conditional)


def _metadata(compiled: Any, name: str, node: Any, deferred: set[str]) -> Optional[dict[str, Any]]:
    metadata = dict(getattr(compiled.builder, "node_metadata", {}).get(name) or {})
    if name in deferred:
        metadata["defer"] = True
    before = name in (compiled.interrupt_before_nodes or ())
    after = name in (compiled.interrupt_after_nodes or ())
    if before or after:
        metadata["__interrupt"] = ",".join(when for when, on in (("before", before), ("after", after)) if on)
    tools = getattr(node, "tools_by_name", None)
    if isinstance(tools, dict) and tools:
        metadata["__tools"] = list(tools)
    return metadata or None


def draw_graph(compiled: Any, *, xray: Union[bool, int] = False, config: Any = None) -> Graph:
    """The diagram of ``compiled`` (a :class:`rag.graph.CompiledStateGraph`); ``xray``:
    draw compiled-graph nodes as their own diagrams (True: all the way down; an int:
    that many levels)."""
    builder = compiled.builder
    found = step_edges(builder)
    graph = Graph()
    graph.add_node(START, NodeRunnable(_identity, name=START), id=START)
    for name, node in builder.nodes.items():
        graph.add_node(name, node, id=name, metadata=_metadata(compiled, name, node, found.deferred))
    for source, target, conditional, label in sorted(found.edges, key=lambda e: (*e[:3], e[3] or "")):
        _add_edge(graph, source, target, None if label == target else label, conditional)
    termini = {e[1] for e in found.edges if e[1] != END} - {e[0] for e in found.edges}
    if termini:
        for source in sorted(termini):
            _add_edge(graph, source, END)
    elif len(found.last) == 1 and not any(e[1] == END for e in found.edges):
        _add_edge(graph, found.last[0], END, conditional=True)
    if xray:
        deeper = xray if isinstance(xray, bool) or xray <= 0 else xray - 1
        for name, child in compiled.get_subgraphs():
            _inline(graph, name, child.get_graph(config, xray=deeper))
    return graph


def _inline(graph: Graph, name: str, child: Graph) -> None:
    """Replace node ``name`` by ``child``'s nodes (ids ``name:id``), its entry and exit
    dropped where one edge joins them, and the edges into and out of ``name`` moved to the
    child's first and last node."""
    if len(child.nodes) <= 1 or name not in graph.nodes or not child.first_node() or not child.last_node():
        return
    child.trim_first_node()
    child.trim_last_node()
    graph.nodes.pop(name)
    first, last = graph.extend(child, prefix=name)
    entry, exit_ = cast(Node, first).id, cast(Node, last).id  # trimming keeps one of each
    graph.edges = [e.copy(source=exit_ if e.source == name else None, target=entry if e.target == name else None)
                   for e in graph.edges]
