"""Griffe extension: the toolkit's docstrings, written for ``help()`` and Sphinx habits,
rendered as Markdown by mkdocstrings.

The docstrings use reST conventions (``code``, :class:`~pkg.Name`, ``::`` literal blocks
and doctest examples) that Markdown would misread: a doctest's ``[('human', 'hi')]`` looks
like a reference link, and an indented example would become a paragraph. The source stays
as it is (it reads well in a terminal); only the copy the API reference renders changes:

- doctest lines (``>>>`` and ``...`` with their output) become a ``pycon`` code block;
- a paragraph ending in ``::`` and the indented block after it become a ``python`` block;
- ````code```` becomes `code`, and a role such as :class:`~a.b.Name` becomes `Name`.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|func|meth|attr|mod|data|exc|obj|const|py:\w+):`~?([^`]+)`")
DOUBLE_BACKTICKS = re.compile(r"``([^`]+?)``")


class ReSTDocstrings(griffe.Extension):
    """Rewrites each docstring once, when griffe has loaded the object."""

    def on_instance(self, *, obj: griffe.Object, **_: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value)


def to_markdown(text: str) -> str:
    """The Markdown form of one docstring (see the module's docstring for the rules)."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    in_fence = False
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
            out.append(line)
            i += 1
            continue
        if in_fence:
            out.append(line)
            i += 1
            continue
        if stripped.startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].strip())
                i += 1
            out += [indent + "```pycon", *(indent + b for b in block), indent + "```"]
            continue
        if stripped.endswith("::") and not stripped.startswith(".."):
            indent = len(line) - len(line.lstrip())
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            block_start = j
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
                j += 1
            if block_start < j:
                head = line.rstrip()[:-2].rstrip()
                out.append(_inline(head + (":" if head and not head.endswith(":") else "")))
                pad = " " * indent
                body = textwrap.dedent("\n".join(lines[block_start:j])).rstrip("\n").splitlines()
                out += ["", pad + "```python", *(pad + b if b else "" for b in body), pad + "```", ""]
                i = j
                continue
        out.append(_inline(line))
        i += 1
    return "\n".join(out)


def _inline(line: str) -> str:
    line = ROLE.sub(lambda m: f"`{m.group(1).split('.')[-1] if m.group(0).count('~') else m.group(1)}`", line)
    return DOUBLE_BACKTICKS.sub(r"`\1`", line)
