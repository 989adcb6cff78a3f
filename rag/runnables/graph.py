"""The diagram of a chain: nodes and edges, drawn as ASCII boxes (``draw_ascii``).

The drawing follows LangChain's look (boxes joined by ``*`` lines, top to bottom) with a
small layered layout of our own: each node sits one layer below its deepest predecessor,
layers are centred, and edges are straight lines of ``*`` (``.`` for conditional edges).
Graphs with cycles (every agent loop) draw too: an edge back up to an earlier layer runs
along the right margin. No layout package is needed (LangChain needs ``grandalf`` and
refuses cycles). :meth:`Graph.draw_mermaid` gives Mermaid flowchart text and
:meth:`Graph.to_json` JSON, both as langchain-core 1.7 writes them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from rag.errors import ValidationError
from rag.runnables._mermaid import CurveStyle, NodeStyles

__all__ = ["Graph", "Node", "Edge", "CurveStyle", "NodeStyles"]

_BOX_HEIGHT = 3
_EDGE_ROWS = 3  # lines of "*" between two layers
_GAP = 4  # columns between boxes in one layer


@dataclass(frozen=True)
class Node:
    """A box: ``id`` (unique), ``name`` (shown), ``data`` (the runnable, or None),
    ``metadata`` (a graph node's ``add_node(..., metadata=...)``, or None)."""

    id: str
    name: str
    data: Any = None
    metadata: Optional[dict[str, Any]] = None

    def copy(self, *, id: Optional[str] = None, name: Optional[str] = None) -> "Node":
        return Node(id or self.id, name or self.name, self.data, self.metadata)


@dataclass(frozen=True)
class Edge:
    """An arrow from node id ``source`` to ``target``; ``data``: its label (None: none);
    ``conditional``: taken only sometimes (dotted). LangChain's field order."""

    source: str
    target: str
    data: Optional[str] = None
    conditional: bool = False

    def copy(self, *, source: Optional[str] = None, target: Optional[str] = None) -> "Edge":
        return Edge(source or self.source, target or self.target, self.data, self.conditional)


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

    def add_node(self, name: str, data: Any = None, *, id: Optional[str] = None,
                 metadata: Optional[dict[str, Any]] = None) -> Node:
        node = Node(id or uuid.uuid4().hex, name, data, metadata)
        if node.id in self.nodes:
            raise ValidationError(f"node id {node.id!r} is already in the graph")
        self.nodes[node.id] = node
        return node

    def add_edge(self, source: Node, target: Node, data: Optional[str] = None, conditional: bool = False) -> Edge:
        for node in (source, target):
            if node.id not in self.nodes:
                raise ValidationError(f"node {node.name!r} ({node.id}) is not in the graph; add it first")
        edge = Edge(source.id, target.id, data, conditional)
        self.edges.append(edge)
        return edge

    def remove_node(self, node: Node) -> None:
        self.nodes.pop(node.id)
        self.edges = [e for e in self.edges if node.id not in (e.source, e.target)]

    def extend(self, other: "Graph", *, prefix: str = "") -> tuple[Optional[Node], Optional[Node]]:
        """Add ``other``'s nodes and edges, their ids written ``prefix:id`` (no prefix when
        every id is a generated UUID); returns its (prefixed) first and last node. The two
        graphs are not joined: add the edges between them."""
        from rag.runnables._graph_json import is_uuid

        if all(is_uuid(node_id) for node_id in other.nodes):
            prefix = ""

        def prefixed(node_id: str) -> str:
            return f"{prefix}:{node_id}" if prefix else node_id

        self.nodes.update({prefixed(k): node.copy(id=prefixed(k)) for k, node in other.nodes.items()})
        self.edges.extend(e.copy(source=prefixed(e.source), target=prefixed(e.target)) for e in other.edges)
        first, last = other.first_node(), other.last_node()
        return (first.copy(id=prefixed(first.id)) if first else None,
                last.copy(id=prefixed(last.id)) if last else None)

    def reid(self) -> "Graph":
        """A copy whose generated (UUID) node ids are replaced by the node's name, numbered
        ``name_1``, ``name_2``... where names repeat; other ids are kept."""
        from rag.runnables._graph_json import is_uuid

        by_name: dict[str, list[str]] = {}
        for node in self.nodes.values():
            by_name.setdefault(node.name, []).append(node.id)
        label = {node_id: name if len(ids) == 1 else f"{name}_{i + 1}"
                 for name, ids in by_name.items() for i, node_id in enumerate(ids)}

        def new_id(node_id: str) -> str:
            return label[node_id] if is_uuid(node_id) else node_id

        return Graph(nodes={new_id(k): node.copy(id=new_id(k)) for k, node in self.nodes.items()},
                     edges=[e.copy(source=new_id(e.source), target=new_id(e.target)) for e in self.edges])

    def first_node(self, exclude: Sequence[str] = ()) -> Optional[Node]:
        """The only node without incoming edges, or None if there is not exactly one;
        nodes in ``exclude`` (ids) and their outgoing edges are left out."""
        targets = {e.target for e in self.edges if e.source not in exclude}
        found = [n for n in self.nodes.values() if n.id not in exclude and n.id not in targets]
        return found[0] if len(found) == 1 else None

    def last_node(self, exclude: Sequence[str] = ()) -> Optional[Node]:
        """The only node without outgoing edges, or None if there is not exactly one;
        nodes in ``exclude`` (ids) and their incoming edges are left out."""
        sources = {e.source for e in self.edges if e.target not in exclude}
        found = [n for n in self.nodes.values() if n.id not in exclude and n.id not in sources]
        return found[0] if len(found) == 1 else None

    def trim_first_node(self) -> None:
        """Drop the first node when it has one outgoing edge and one node would still be
        first without it (LangChain's rule)."""
        first = self.first_node()
        if first is not None and self.first_node(exclude=[first.id]) is not None \
                and len({e for e in self.edges if e.source == first.id}) == 1:
            self.remove_node(first)

    def trim_last_node(self) -> None:
        """Drop the last node when it has one incoming edge and one node would still be
        last without it (LangChain's rule)."""
        last = self.last_node()
        if last is not None and self.last_node(exclude=[last.id]) is not None \
                and len({e for e in self.edges if e.target == last.id}) == 1:
            self.remove_node(last)

    def __bool__(self) -> bool:
        """Whether the graph has any node."""
        return bool(self.nodes)

    def to_json(self, *, with_schemas: bool = False) -> dict[str, list[dict[str, Any]]]:
        """The graph as JSON-ready dicts, langchain-core's shape: ``{"nodes": [{"id",
        "type": "runnable" | "schema" | "unknown", "data", "metadata"?}], "edges":
        [{"source", "target", "data"?, "conditional"?}]}``; a runnable's ``data`` is
        ``{"id": <its serialised class path>, "name"}``; generated (UUID) ids become the
        node's position. ``with_schemas``: a pydantic class node gives its JSON schema
        (default: its name)."""
        from rag.runnables._graph_json import graph_json

        return graph_json(self, with_schemas=with_schemas)

    # -- drawing -------------------------------------------------------------------------
    def back_edges(self) -> list[Edge]:
        """Edges that close a cycle (found depth-first from the nodes in insertion order,
        sources first); without them the graph is acyclic."""
        outgoing: dict[str, list[Edge]] = {node_id: [] for node_id in self.nodes}
        for edge in self.edges:
            outgoing[edge.source].append(edge)
        state: dict[str, int] = {}  # 1: on the current path, 2: done
        back: list[Edge] = []
        targets = {e.target for e in self.edges}
        roots = [n for n in self.nodes if n not in targets] + list(self.nodes)
        for root in roots:
            if root in state:
                continue
            stack = [(root, iter(outgoing[root]))]
            state[root] = 1
            while stack:
                node_id, edges = stack[-1]
                step = next(edges, None)
                if step is None:
                    state[node_id] = 2
                    stack.pop()
                elif state.get(step.target) == 1:
                    back.append(step)
                elif step.target not in state:
                    state[step.target] = 1
                    stack.append((step.target, iter(outgoing[step.target])))
        return back

    def _layers(self) -> list[list[Node]]:
        depth: dict[str, int] = {}
        incoming: dict[str, list[str]] = {node_id: [] for node_id in self.nodes}
        back = {id(e) for e in self.back_edges()}
        for edge in self.edges:
            if id(edge) not in back:
                incoming[edge.target].append(edge.source)

        def depth_of(node_id: str) -> int:
            if node_id not in depth:
                parents = incoming[node_id]
                depth[node_id] = 1 + max((depth_of(p) for p in parents), default=-1)
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
        back = self.back_edges()
        ends = {e.source for e in back} | {e.target for e in back}
        # Nodes with an edge going back up sit rightmost in their layer, so the edge's way
        # out to the margin crosses no other box.
        layers = [sorted(layer, key=lambda n: n.id in ends) for layer in self._layers()]
        widths = [sum(len(n.name) + 4 for n in layer) + _GAP * (len(layer) - 1) for layer in layers]
        width = max(widths) + 3 * len(back)  # a margin lane per edge going back up
        inner_width = max(widths)
        height = len(layers) * (_BOX_HEIGHT + _EDGE_ROWS) - _EDGE_ROWS
        canvas = [[" "] * width for _ in range(height)]
        box: dict[str, tuple[int, int, int]] = {}  # id -> (left, top, box width)
        for level, layer in enumerate(layers):
            left = (inner_width - widths[level]) // 2
            for node in layer:
                box[node.id] = (left, level * (_BOX_HEIGHT + _EDGE_ROWS), len(node.name) + 4)
                left += len(node.name) + 4 + _GAP
        forward = [e for e in self.edges if all(e is not b for b in back)]
        for edge in forward:
            x0 = self._port(box, edge.source, [e.target for e in forward if e.source == edge.source], edge.target)
            x1 = self._port(box, edge.target, [e.source for e in forward if e.target == edge.target], edge.source)
            mark = "." if edge.conditional else "*"
            self._draw_edge(canvas, x0, box[edge.source][1] + _BOX_HEIGHT, x1, box[edge.target][1] - 1, mark)
        for lane, edge in enumerate(back):
            self._draw_back_edge(canvas, box[edge.source], box[edge.target], inner_width + 1 + 3 * lane,
                                 "." if edge.conditional else "*")
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
    def _draw_back_edge(canvas: list[list[str]], source: tuple[int, int, int], target: tuple[int, int, int],
                        lane: int, mark: str) -> None:
        """An edge to an earlier layer (or a node's edge to itself): out of the source's
        right side, up the margin ``lane``, into the target's right side (``<``)."""
        y0 = source[1] + (2 if source == target else 1)
        y1 = target[1] + (0 if source == target else 1)
        for col in range(source[0] + source[2], lane + 1):
            canvas[y0][col] = mark
        for row in range(min(y0, y1), max(y0, y1) + 1):
            canvas[row][lane] = mark
        for col in range(target[0] + target[2], lane):
            canvas[y1][col] = mark
        canvas[y1][target[0] + target[2]] = "<"

    @staticmethod
    def _draw_edge(canvas: list[list[str]], x0: int, y0: int, x1: int, y1: int, mark: str = "*") -> None:
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
                canvas[row][col] = mark
            previous = x

    def print_ascii(self) -> None:
        print(self.draw_ascii())  # noqa: T201

    def draw_mermaid(self, *, with_styles: bool = True, curve_style: CurveStyle = CurveStyle.LINEAR,
                     node_colors: Optional[NodeStyles] = None, wrap_label_n_words: int = 9,
                     frontmatter_config: Optional[dict[str, Any]] = None) -> str:
        """The graph as Mermaid flowchart text, as langchain-core writes it: ``-->`` edges,
        ``-.->`` conditional ones, labels on edges that have data; cycles are fine.

        ``with_styles`` (default True): also the YAML front matter (``curve_style``, merged
        into ``frontmatter_config``, e.g. ``{"config": {"theme": "neutral"}}``), one line
        per node (the only entry and exit drawn as stadiums) and the ``classDef`` styles
        ``node_colors`` gives (default :class:`NodeStyles`). Edge labels break every
        ``wrap_label_n_words`` words (default 9, at least 1). Node ids ``a:b`` (a subgraph
        drawn with ``get_graph(xray=True)``) are drawn inside ``subgraph a``.
        """
        from rag.runnables._mermaid import draw_mermaid

        graph = self.reid()
        first, last = graph.first_node(), graph.last_node()
        return draw_mermaid(graph.nodes, graph.edges, first_node=first.id if first else None,
                            last_node=last.id if last else None, with_styles=with_styles,
                            curve_style=curve_style, node_styles=node_colors,
                            wrap_label_n_words=wrap_label_n_words, frontmatter_config=frontmatter_config)
