"""How the readable-text pieces of a page become its text, with the offsets of its
headings and blocks.

:class:`loaders._readable.TextBuilder` turns a page's elements into a flat list of pieces
(text, breaks, cell separators, and markers where headings and blocks begin and end);
:func:`assemble` lays them out (blocks separated by blank lines, lines by newlines, cells
by `` | ``) and places each marker at a character offset of the result.
"""

from __future__ import annotations

__all__ = ["Heading", "Block", "BlockEnd", "Preformatted", "BLOCK_KINDS", "LINE_BREAK", "PARAGRAPH_BREAK",
           "CELL", "assemble"]

#: Pieces that are not text: a line break, a paragraph break (a blank line), a table cell.
LINE_BREAK, PARAGRAPH_BREAK, CELL = 1, 2, 3


class Heading:
    """A heading of the laid-out text: ``offset`` (characters from the start of the text
    where its line begins), ``title`` (its text on one line) and ``anchor`` (the HTML id a
    link can point to: the heading's own, else one on an ``<a>`` inside it, else that of
    the nearest enclosing element with one, as DocBook and Sphinx put it on the section;
    None when there is none)."""

    __slots__ = ("offset", "title", "anchor", "inherited", "empty")

    def __init__(self, anchor: str | None, inherited: str | None) -> None:
        self.offset, self.title = -1, ""
        self.anchor, self.inherited, self.empty = anchor, inherited, False

    def as_list(self) -> list:
        """``[offset, title, anchor]``: the JSON-friendly form kept in metadata."""
        return [self.offset, self.title, self.anchor if self.anchor is not None else self.inherited]


#: The structural kind of each element recorded as a block of the laid-out text (see
#: :class:`Block`); a table's caption is inside the table, so in its span.
BLOCK_KINDS: dict[str, str] = {
    **{f"h{level}": "heading" for level in range(1, 7)},
    "p": "paragraph", "pre": "code", "table": "table", "ul": "list", "ol": "list", "menu": "list",
    "li": "item", "dl": "definitions", "blockquote": "quote",
}


class Block:
    """A structural block of the laid-out text: ``kind`` (a value of :data:`BLOCK_KINDS`)
    and, once laid out, ``start`` and ``end`` (character offsets into the text, end
    exclusive; -1 until then). Blocks nest (a list holds its items) and are listed in
    the order they begin."""

    __slots__ = ("kind", "start", "end")

    def __init__(self, kind: str) -> None:
        self.kind, self.start, self.end = kind, -1, -1

    def as_list(self) -> list:
        """``[start, end, kind]``: the JSON-friendly form kept in metadata."""
        return [self.start, self.end, self.kind]


class BlockEnd:
    """Marks where a :class:`Block`'s element closes among the pieces."""

    __slots__ = ("block",)

    def __init__(self, block: Block) -> None:
        self.block = block


class Preformatted(str):
    """Text inside ``<pre>``: its spaces and line breaks are kept."""


def assemble(pieces: list) -> tuple[str, list[Heading], list[Block]]:
    blocks: list[tuple[str, bool]] = []  # (text, preformatted)
    separators: list[int] = []
    current: list[str] = []
    has_text = preformatted = False
    pending = 0
    marks: list[Heading] = []  # headings waiting for their first text
    heading_blocks: list[tuple[Heading, int]] = []  # each heading and the block it begins
    waiting: list[Block] = []  # blocks begun but without text yet
    spans: dict[Block, list[int]] = {}  # each block with text -> [first, last] laid-out block
    for piece in pieces:
        if isinstance(piece, Heading):
            if not piece.empty:
                marks.append(piece)
            continue
        if isinstance(piece, Block):
            waiting.append(piece)
            continue
        if isinstance(piece, BlockEnd):
            if piece.block in spans:
                # The laid-out block being built (when it has text) is this block's last.
                spans[piece.block][1] = len(blocks) if has_text else len(blocks) - 1
            elif piece.block in waiting:
                waiting.remove(piece.block)  # no text inside: not a block of the text
            continue
        if piece == CELL:
            # Cells are separated within a row; the row's first cell needs no separator.
            if has_text and not pending:
                current.append(" | ")
            continue
        if isinstance(piece, int):
            pending = max(pending, piece)
            continue
        if pending and has_text:
            blocks.append(("".join(current), preformatted))
            separators.append(pending)
            current, has_text, preformatted = [], False, False
        elif pending:
            current, preformatted = [], False  # only whitespace since the last block
        pending = 0
        current.append(piece)
        has_text = has_text or not piece.isspace()
        preformatted = preformatted or isinstance(piece, Preformatted)
        if marks and has_text:
            heading_blocks.extend((heading, len(blocks)) for heading in marks)
            marks = []
        if waiting and has_text:
            for block in waiting:
                spans[block] = [len(blocks), -1]
            waiting = []
    if has_text:
        blocks.append(("".join(current), preformatted))
    out: list[str] = []
    length = 0
    starts: dict[int, tuple[int, str]] = {}  # block -> (offset, its text on one line)
    ends: dict[int, int] = {}  # block -> the offset just past it
    for index, (block, is_pre) in enumerate(blocks):
        if is_pre:
            cleaned = "\n".join(line.rstrip() for line in block.split("\n")).strip("\n")
        else:
            lines = (line.strip(" \t") for line in block.split("\n"))
            cleaned = "\n".join(line for line in lines if line)
        if not cleaned:
            continue
        if out:
            out.append("\n\n" if separators[index - 1] == PARAGRAPH_BREAK else "\n")
            length += len(out[-1])
        starts[index] = (length, " ".join(cleaned.split()))
        out.append(cleaned)
        length += len(cleaned)
        ends[index] = length
    headings: list[Heading] = []
    for heading, index in heading_blocks:
        if index in starts:
            heading.offset, heading.title = starts[index]
            headings.append(heading)
    return "".join(out), headings, _placed(spans, starts, ends, len(blocks))


def _placed(spans: dict[Block, list[int]], starts: dict[int, tuple[int, str]], ends: dict[int, int],
            count: int) -> list[Block]:
    """The blocks that hold laid-out text, with their offsets, in the order they begin
    (an enclosing block before the blocks inside it)."""
    placed: list[Block] = []
    for block, (first, last) in spans.items():
        if last < 0:  # never closed (cut off at the end of the page): runs to the end
            last = count - 1
        # Laid-out blocks that cleaned to nothing have no offsets: use the nearest kept ones.
        while first <= last and first not in ends:
            first += 1
        while last >= first and last not in ends:
            last -= 1
        if first <= last:
            block.start, block.end = starts[first][0], ends[last]
            placed.append(block)
    placed.sort(key=lambda block: (block.start, -block.end))
    return placed
