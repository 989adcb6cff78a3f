"""The structural blocks of a Markdown file's text, as :func:`loaders.markdown_to_text`
lays it out: the same ``[start, end, kind]`` spans the HTML loaders record (see
:class:`loaders.ReadableHTMLLoader`), read from the line syntax of CommonMark's common
blocks (fenced and indented code, ATX and setext headings, lists and their items, block
quotes, pipe tables; everything else between blank lines is a paragraph).

Lines come tagged by the converter: ``"code"`` (inside a fence, one run per fence),
``"heading"``, or ``"text"`` (kept as written, classified here).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["markdown_blocks"]

_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_QUOTE = re.compile(r"^ {0,3}>")
_TABLE_DELIMITER = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_INDENTED_CODE = re.compile(r"^(?: {4}|\t)")
# A line indented this much after a blank line inside a list continues the item.
_CONTINUATION = re.compile(r"^(?: {2,}|\t)\S")


def markdown_blocks(lines: Sequence[str], roles: Sequence[tuple[str, int]]) -> list[list]:
    """``[start, end, kind]`` for each block of ``"\\n".join(lines)`` (offsets in
    characters, end exclusive), in the order they begin, a list before its items.
    ``roles[i]`` is ``(role, run)`` for ``lines[i]``: role ``"code"``, ``"heading"`` or
    ``"text"``; ``run`` tells consecutive fences (or headings) apart. Blocks without text
    are left out.

    >>> markdown_blocks(["Title", "", "- a", "- b"], [("heading", 0)] + [("text", 0)] * 3)
    [[0, 5, 'heading'], [7, 14, 'list'], [7, 10, 'item'], [11, 14, 'item']]
    """
    starts = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    blocks: list[list] = []

    def add(first: int, last: int, kind: str) -> None:
        # Trim blank lines at either end; a span of blank lines is no block.
        while first <= last and not lines[first].strip():
            first += 1
        while last >= first and not lines[last].strip():
            last -= 1
        if first <= last:
            blocks.append([starts[first], starts[last] + len(lines[last]), kind])

    i = 0
    count = len(lines)
    while i < count:
        role, run = roles[i]
        if role in ("code", "heading"):
            end = i
            while end + 1 < count and roles[end + 1] == (role, run):
                end += 1
            add(i, end, role)
            i = end + 1
            continue
        if not lines[i].strip():
            i += 1
            continue
        after_blank = i == 0 or not lines[i - 1].strip() or roles[i - 1][0] != "text"
        i = _text_group(lines, roles, i, after_blank, add)
    blocks.sort(key=lambda block: (block[0], -block[1]))
    return blocks


def _text_group(lines: Sequence[str], roles: Sequence[tuple[str, int]], i: int, after_blank: bool, add) -> int:
    """Record the block that begins at text line ``i``; the index of the line after it."""
    count = len(lines)

    def is_text(n: int) -> bool:
        return n < count and roles[n][0] == "text"

    line = lines[i]
    if _ITEM.match(line):
        return _list(lines, is_text, i, add)
    if after_blank and _INDENTED_CODE.match(line):
        end = i
        while is_text(end + 1) and (_INDENTED_CODE.match(lines[end + 1]) or not lines[end + 1].strip()):
            end += 1
        add(i, end, "code")
        return end + 1
    if _QUOTE.match(line):
        end = i
        while is_text(end + 1) and lines[end + 1].strip():
            end += 1
        add(i, end, "quote")
        return end + 1
    if "|" in line and is_text(i + 1) and _TABLE_DELIMITER.match(lines[i + 1]) and "-" in lines[i + 1]:
        end = i + 1
        while is_text(end + 1) and lines[end + 1].strip():
            end += 1
        add(i, end, "table")
        return end + 1
    end = i
    # A list or a quote may interrupt a paragraph (CommonMark); a blank line ends it.
    while is_text(end + 1) and lines[end + 1].strip() and not _ITEM.match(lines[end + 1]) \
            and not _QUOTE.match(lines[end + 1]):
        end += 1
    add(i, end, "paragraph")
    return end + 1


def _list(lines: Sequence[str], is_text, i: int, add) -> int:
    """Record the list beginning at item line ``i`` and its items."""
    items = [i]
    end = i
    n = i + 1
    while is_text(n):
        line = lines[n]
        if _ITEM.match(line):
            items.append(n)
        elif not line.strip():
            following = n + 1
            while is_text(following) and not lines[following].strip():
                following += 1
            # A blank line ends the list unless an item or an indented continuation follows.
            if not (is_text(following) and (_ITEM.match(lines[following]) or _CONTINUATION.match(lines[following]))):
                break
            n = following
            continue
        elif _QUOTE.match(line) and not line.startswith(" "):
            break
        end = n
        n += 1
    add(i, end, "list")
    bounds = items + [end + 1]
    for first, following in zip(bounds, bounds[1:]):
        add(first, following - 1, "item")
    return end + 1
