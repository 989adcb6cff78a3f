"""Mermaid flowchart text for a :class:`~rag.runnables.graph.Graph`, as langchain-core
1.7's ``draw_mermaid`` writes it (so LangGraph's published drawings match byte for byte):
an optional YAML front matter, ``graph TD;``, one line per node (``with_styles`` only) and
per edge, subgraphs for node ids of the form ``parent:child`` (LangGraph's ``xray``), and
three ``classDef`` styles.
"""

from __future__ import annotations

import re
import string
from dataclasses import asdict, dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Optional

from rag.errors import ValidationError

if TYPE_CHECKING:
    from rag.runnables.graph import Edge, Node

__all__ = ["CurveStyle", "NodeStyles", "draw_mermaid"]


class CurveStyle(Enum):
    """How Mermaid draws edges (its ``flowchart.curve`` setting); LangChain's members."""

    BASIS = "basis"
    BUMP_X = "bumpX"
    BUMP_Y = "bumpY"
    CARDINAL = "cardinal"
    CATMULL_ROM = "catmullRom"
    LINEAR = "linear"
    MONOTONE_X = "monotoneX"
    MONOTONE_Y = "monotoneY"
    NATURAL = "natural"
    STEP = "step"
    STEP_AFTER = "stepAfter"
    STEP_BEFORE = "stepBefore"


@dataclass
class NodeStyles:
    """CSS of the three node classes: every node (``default``), the graph's only entry
    (``first``) and its only exit (``last``); LangChain's defaults."""

    default: str = "fill:#f2f0ff,line-height:1.2"
    first: str = "fill-opacity:0"
    last: str = "fill:#bfb6fc"


_MARKDOWN_SPECIAL = tuple("*_`")  # a name starting and ending with one is wrapped in <p>
_LABEL_ESCAPES = {"[": "#91;", "]": "#93;", "(": "#40;", ")": "#41;", "{": "#123;", "}": "#125;",
                  '"': "#quot;", "<": "#60;", ">": "#62;", "|": "#124;"}
_SAFE_ID_CHARS = frozenset(string.ascii_letters + string.digits + "_-")


def safe_id(node_id: str) -> str:
    """A Mermaid node id: ``[A-Za-z0-9_-]`` kept, any other character written as a
    backslash and its lowercase hex code point (``a b`` -> ``a\\20b``), so ids stay unique."""
    return "".join(ch if ch in _SAFE_ID_CHARS else "\\" + format(ord(ch), "x") for ch in node_id)


def _escape_label(text: str) -> str:
    text = text.replace("#", "#35;")
    for char, entity in _LABEL_ESCAPES.items():
        text = text.replace(char, entity)
    return text


def _metadata_lines(metadata: dict[str, Any]) -> list[str]:
    """``key = value`` for each scalar (or list of scalars) metadata value; others are left out."""
    scalars = (str, int, float, bool)
    lines = []
    for key, value in metadata.items():
        if isinstance(value, scalars):
            text = str(value)
        elif isinstance(value, (list, tuple, set)) and all(isinstance(item, scalars) for item in value):
            items = [str(item) for item in value]
            text = ", ".join(sorted(items) if isinstance(value, set) else items)
        else:
            continue
        lines.append(_escape_label(f"{key} = {text}"))
    return lines


# -- YAML front matter (a small emitter: PyYAML is not a dependency) ----------------------
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/]*( [A-Za-z0-9_.\-/]+)*\Z")
# Words YAML 1.1 reads as booleans or null (PyYAML quotes them): they stay strings only quoted.
_YAML_WORDS = {variant for word in ("yes", "no", "true", "false", "on", "off", "null")
               for variant in (word, word.title(), word.upper())}


def _yaml_scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    if _PLAIN.match(text) and text not in _YAML_WORDS:
        return text
    return "'" + text.replace("'", "''") + "'"


def yaml_block(value: dict[str, Any], indent: int = 0) -> str:
    """``value`` as block YAML with sorted keys, as ``yaml.dump(value,
    default_flow_style=False)`` writes the front matter Mermaid reads (strings that are not
    plain words are single-quoted)."""
    if not isinstance(value, dict):
        raise ValidationError(f"frontmatter_config must be a dict, got {type(value).__name__}")
    pad = " " * indent
    out = []
    for key in sorted(value, key=str):
        item = value[key]
        if isinstance(item, dict) and item:
            out.append(f"{pad}{_yaml_scalar(key)}:\n{yaml_block(item, indent + 2)}")
        elif isinstance(item, (list, tuple)) and item:
            out.append(f"{pad}{_yaml_scalar(key)}:\n" + "".join(f"{pad}- {_yaml_scalar(v)}\n" for v in item))
        else:
            empty = "{}" if isinstance(item, dict) else "[]" if isinstance(item, (list, tuple)) else None
            out.append(f"{pad}{_yaml_scalar(key)}: {empty or _yaml_scalar(item)}\n")
    return "".join(out)


# -- the flowchart --------------------------------------------------------------------------
def draw_mermaid(nodes: dict[str, Node], edges: list[Edge], *, first_node: Optional[str] = None,
                 last_node: Optional[str] = None, with_styles: bool = True,
                 curve_style: CurveStyle = CurveStyle.LINEAR, node_styles: Optional[NodeStyles] = None,
                 wrap_label_n_words: int = 9, frontmatter_config: Optional[dict[str, Any]] = None) -> str:
    """Mermaid text for ``nodes`` (id -> node) and ``edges``; see :meth:`Graph.draw_mermaid`."""
    if not isinstance(curve_style, CurveStyle):
        raise ValidationError(f"curve_style must be a CurveStyle, got {curve_style!r}")
    if isinstance(wrap_label_n_words, bool) or not isinstance(wrap_label_n_words, int) or wrap_label_n_words < 1:
        raise ValidationError(f"wrap_label_n_words must be a positive int, got {wrap_label_n_words!r}")
    if frontmatter_config is not None and not isinstance(frontmatter_config, dict):
        raise ValidationError(f"frontmatter_config must be a dict, got {type(frontmatter_config).__name__}")
    out: list[str] = []
    if with_styles:
        given = frontmatter_config or {}
        config = dict(given.get("config") or {})
        config["flowchart"] = {**(config.get("flowchart") or {}), "curve": curve_style.value}
        out.append("---\n" + yaml_block({**given, "config": config}) + "---\n")
    out.append("graph TD;\n")

    # A node id "a:b:c" belongs to subgraph "a:b" (its deepest level) and is drawn there.
    in_subgraph: dict[str, dict[str, Node]] = {}
    top_level: dict[str, Node] = {}
    for key, node in nodes.items():
        if ":" in key:
            in_subgraph.setdefault(key.rsplit(":", 1)[0], {})[key] = node
        else:
            top_level[key] = node
    shapes = {key: shape for key, shape in ((first_node, "{0}([{1}]):::first"),
                                            (last_node, "{0}([{1}]):::last")) if key is not None}

    def render(key: str, node: Node) -> str:
        name = node.name.split(":")[-1]
        label = f"<p>{name}</p>" if name.startswith(_MARKDOWN_SPECIAL) and name.endswith(_MARKDOWN_SPECIAL) \
            else name
        lines = _metadata_lines(node.metadata or {})
        if lines:
            label = f"{label}<hr/><small><em>" + "\n".join(lines) + "</em></small>"
        return "\t" + shapes.get(key, "{0}({1})").format(safe_id(key), label) + "\n"

    if with_styles:
        out.extend(render(key, node) for key, node in top_level.items())

    # Edges grouped by the subgraph both ends share (their common id prefix).
    groups: dict[str, list[Edge]] = {}
    for edge in edges:
        common = [s for s, t in zip(edge.source.split(":"), edge.target.split(":")) if s == t]
        groups.setdefault(":".join(common), []).append(edge)
    seen: set[str] = set()

    def edge_line(edge: Edge) -> str:
        if edge.data is None:
            arrow = " -.-> " if edge.conditional else " --> "
        else:
            words = str(edge.data).split()
            label = str(edge.data)
            if len(words) > wrap_label_n_words:
                label = "&nbsp<br>&nbsp".join(" ".join(words[i:i + wrap_label_n_words])
                                               for i in range(0, len(words), wrap_label_n_words))
            arrow = f" -. &nbsp;{label}&nbsp; .-> " if edge.conditional else f" -- &nbsp;{label}&nbsp; --> "
        return f"\t{safe_id(edge.source)}{arrow}{safe_id(edge.target)};\n"

    def add_subgraph(group: list[Edge], prefix: str) -> None:
        self_loop = len(group) == 1 and group[0].source == group[0].target
        if prefix and not self_loop:
            name = prefix.rsplit(":", 1)[-1]
            if name in seen:
                raise ValidationError(f"Found duplicate subgraph {name!r} -- this likely means that you're reusing "
                                      "a subgraph node with the same name; give subgraph nodes unique names")
            seen.add(name)
            out.append(f"\tsubgraph {name}\n")
            if with_styles:
                out.extend(render(key, node) for key, node in in_subgraph.get(prefix, {}).items())
        out.extend(edge_line(edge) for edge in group)
        for nested, nested_edges in groups.items():  # first-level nested subgraphs only
            if nested.startswith(prefix + ":") and nested != prefix and ":" not in nested[len(prefix) + 1:]:
                add_subgraph(nested_edges, nested)
        if prefix and not self_loop:
            out.append("\tend\n")

    add_subgraph(groups.get("", []), "")
    for prefix, group in groups.items():
        if prefix and ":" not in prefix:
            add_subgraph(group, prefix)
            seen.add(prefix)
    if with_styles:  # subgraphs without an edge inside them still show their nodes
        for prefix, members in in_subgraph.items():
            if ":" not in prefix and prefix not in seen:
                out.append(f"\tsubgraph {prefix}\n")
                out.extend(render(key, node) for key, node in members.items())
                out.append("\tend\n")
                seen.add(prefix)
        out.extend(f"\tclassDef {name} {style}\n" for name, style in asdict(node_styles or NodeStyles()).items())
    return "".join(out)
