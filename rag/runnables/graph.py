"""The diagram of a chain: nodes and edges, drawn as ASCII boxes (``draw_ascii``).

The drawing follows LangChain's look (boxes joined by ``*`` lines, top to bottom) with a
small layered layout of our own: each node sits one layer below its deepest predecessor,
layers are centred, and edges are straight lines of ``*``. No layout package is needed
(LangChain needs ``grandalf``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Optional

from rag.errors import ValidationError

__all__ = ["Graph", "Node", "Edge"]

_BOX_HEIGHT = 3
_EDGE_ROWS = 3  # lines of "*" between two layers
_GAP = 4  # columns between boxes in one layer


@dataclass(frozen=True)
class Node:
    """A box: ``id`` (unique), ``name`` (shown), ``data`` (the runnable, or None)."""

    id: str
    name: str
    data: Any = None


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    conditional: bool = False


@dataclass
class Graph:
    """Nodes in insertion order and the edges between them.

    >>> g = Graph()
    >>> a, b = g.add_node("In"), g.add_node("Out")
    >>> g.add_edge(a, b) and print(g.draw_ascii())
    +----+
    | In |
    +----+
       *
       *
       *
    +-----+
    | Out |
    +-----+
    """

    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)

    def add_node(self, name: str, data: Any = None, *, id: Optional[str] = None) -> Node:
        node = Node(id or uuid.uuid4().hex, name, data)
        if node.id in self.nodes:
            raise ValidationError(f"node id {node.id!r} is already in the graph")
        self.nodes[node.id] = node
        return node

    def add_edge(self, source: Node, target: Node, conditional: bool = False) -> Edge:
        for node in (source, target):
            if node.id not in self.nodes:
                raise ValidationError(f"node {node.name!r} ({node.id}) is not in the graph; add it first")
        edge = Edge(source.id, target.id, conditional)
        self.edges.append(edge)
        return edge

    def remove_node(self, node: Node) -> None:
        self.nodes.pop(node.id)
        self.edges = [e for e in self.edges if node.id not in (e.source, e.target)]

    def extend(self, other: "Graph") -> tuple[Optional[Node], Optional[Node]]:
        """Add ``other``'s nodes and edges; returns its first and last node."""
        self.nodes.update(other.nodes)
        self.edges.extend(other.edges)
        return other.first_node(), other.last_node()

    def first_node(self) -> Optional[Node]:
        """The only node without incoming edges, or None if there is not exactly one."""
        targets = {e.target for e in self.edges}
        found = [n for n in self.nodes.values() if n.id not in targets]
        return found[0] if len(found) == 1 else None

    def last_node(self) -> Optional[Node]:
        """The only node without outgoing edges, or None if there is not exactly one."""
        sources = {e.source for e in self.edges}
        found = [n for n in self.nodes.values() if n.id not in sources]
        return found[0] if len(found) == 1 else None

    def trim_first_node(self) -> None:
        """Drop the first node when one node would still be first without it."""
        first = self.first_node()
        if first is not None and len(self.nodes) > 1 and sum(e.source == first.id for e in self.edges) == 1:
            self.remove_node(first)

    def trim_last_node(self) -> None:
        """Drop the last node when one node would still be last without it."""
        last = self.last_node()
        if last is not None and len(self.nodes) > 1 and sum(e.target == last.id for e in self.edges) == 1:
            self.remove_node(last)

    # -- drawing -------------------------------------------------------------------------
    def _layers(self) -> list[list[Node]]:
        depth: dict[str, int] = {}
        incoming: dict[str, list[str]] = {node_id: [] for node_id in self.nodes}
        for edge in self.edges:
            incoming[edge.target].append(edge.source)

        def depth_of(node_id: str, visiting: frozenset[str] = frozenset()) -> int:
            if node_id not in depth:
                if node_id in visiting:
                    raise ValidationError("draw_ascii needs a graph without cycles")
                parents = incoming[node_id]
                depth[node_id] = 1 + max((depth_of(p, visiting | {node_id}) for p in parents), default=-1)
            return depth[node_id]

        layers: list[list[Node]] = []
        for node in self.nodes.values():
            level = depth_of(node.id)
            while len(layers) <= level:
                layers.append([])
            layers[level].append(node)
        return layers

    def draw_ascii(self) -> str:
        """The graph as ASCII boxes, top (inputs) to bottom (outputs)."""
        if not self.nodes:
            return ""
        layers = self._layers()
        widths = [sum(len(n.name) + 4 for n in layer) + _GAP * (len(layer) - 1) for layer in layers]
        width = max(widths)
        height = len(layers) * (_BOX_HEIGHT + _EDGE_ROWS) - _EDGE_ROWS
        canvas = [[" "] * width for _ in range(height)]
        box: dict[str, tuple[int, int, int]] = {}  # id -> (left, top, box width)
        for level, layer in enumerate(layers):
            left = (width - widths[level]) // 2
            for node in layer:
                box[node.id] = (left, level * (_BOX_HEIGHT + _EDGE_ROWS), len(node.name) + 4)
                left += len(node.name) + 4 + _GAP
        for edge in self.edges:
            x0 = self._port(box, edge.source, [e.target for e in self.edges if e.source == edge.source], edge.target)
            x1 = self._port(box, edge.target, [e.source for e in self.edges if e.target == edge.target], edge.source)
            self._draw_edge(canvas, x0, box[edge.source][1] + _BOX_HEIGHT, x1, box[edge.target][1] - 1)
        for node in self.nodes.values():
            left, top, box_width = box[node.id]
            border = "+" + "-" * (box_width - 2) + "+"
            for row, text in ((top, border), (top + 1, f"| {node.name} |"), (top + 2, border)):
                canvas[row][left:left + box_width] = list(text)
        return "\n".join("".join(row).rstrip() for row in canvas)

    @staticmethod
    def _port(box: dict[str, tuple[int, int, int]], node_id: str, others: list[str], other: str) -> int:
        """The column where an edge leaves or enters a box: edges spread evenly along the
        box's width, ordered by where their other end is, so fans do not overlap."""
        left, _, width = box[node_id]
        if len(others) == 1:
            return left + width // 2
        ordered = sorted(others, key=lambda node: box[node][0])
        return left + (ordered.index(other) + 1) * width // (len(others) + 1)

    @staticmethod
    def _draw_edge(canvas: list[list[str]], x0: int, y0: int, x1: int, y1: int) -> None:
        if y1 < y0:  # an edge upwards (never made by chains): leave it undrawn
            return
        if abs(x1 - x0) <= 1:  # centring rounding: keep nearly vertical lines straight
            x0 = x1
        previous = x0
        for row in range(y0, y1 + 1):
            x = x0 if y1 == y0 else round(x0 + (x1 - x0) * (row - y0) / (y1 - y0))
            step = 1 if x >= previous else -1
            # Fill the columns crossed on this row so slanted lines stay connected.
            for col in range(previous + step if row > y0 and x != previous else x, x + step, step):
                canvas[row][col] = "*"
            previous = x

    def print_ascii(self) -> None:
        print(self.draw_ascii())  # noqa: T201
