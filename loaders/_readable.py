"""What of an HTML page is readable text, and how its blocks are laid out.

The rules (tag vocabularies, :class:`TextBuilder`, the assembly of blocks) are written once
and fed by two front ends: :func:`readable_text` walks a parsed BeautifulSoup tree, and
:func:`loaders._page_scan.scan_page` streams html.parser events without building one.
"""

from __future__ import annotations

import re
from typing import Any

from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from bs4.element import CData, Declaration, Doctype, ProcessingInstruction

__all__ = [
    "readable_text",
    "strip_unreadable",
    "is_chrome",
    "TextBuilder",
    "UNREADABLE_TAGS",
    "CHROME_TAGS",
]

#: Never text: code, styling, script fallbacks, inert templates, the title (metadata), media.
UNREADABLE_TAGS = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "head",
        "title",
        "svg",
        "math",
        "iframe",
        "object",
        "canvas",
        "select",
        "button",
    }
)
#: Site chrome, dropped by default. ``header``/``footer`` only count as chrome outside
#: ``article``/``main``/``section`` (where HTML makes them part of the content, e.g. an
#: article's ``<header><h1>``).
CHROME_TAGS = frozenset({"nav", "aside", "header", "footer"})
_CONTENT_SECTIONS = frozenset({"article", "main", "section"})

# Elements that end a line (one newline) and elements that end a paragraph (a blank line).
_LINE_TAGS = frozenset({"li", "tr", "dt", "dd", "option", "caption", "figcaption", "summary"})
_BLOCK_TAGS = frozenset(
    {
        "address",
        "article",
        "blockquote",
        "body",
        "center",
        "details",
        "dialog",
        "div",
        "dl",
        "fieldset",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "html",
        "legend",
        "main",
        "menu",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "tbody",
        "thead",
        "tfoot",
        "ul",
        "aside",
    }
)
_CELL_TAGS = frozenset({"td", "th"})
_SKIPPED_STRINGS = (Comment, Declaration, Doctype, ProcessingInstruction, CData)


class _Preformatted(str):
    """Text inside ``<pre>``: its spaces and line breaks are kept."""


_SPACES = re.compile(r"[ \t\n\r\f\v]+")
_LINE_BREAK, _PARAGRAPH_BREAK, _CELL = 1, 2, 3

# Elements with no content and no end tag: never pushed on the open-element stack.
_VOID_TAGS = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
        "keygen",
    }
)


class TextBuilder:
    """The readable-text rules, fed start/end/data events by a parsed tree or a stream.

    One set of rules serves both :func:`readable_text` (walking a BeautifulSoup tree) and
    :func:`~loaders._page_scan.scan_page` (html.parser events, no tree built: about twice
    as fast). Pieces inside chrome are flagged rather than dropped, so a page that is all
    chrome can still give its text.
    """

    def __init__(self) -> None:
        self.pieces: list[str | int] = []
        self.in_chrome: list[bool] = []
        # (name, unreadable, chrome, break after) for each open element
        self.open: list[tuple[str, bool, bool, int]] = []
        self.skip = self.chrome = self.sections = self.pre = 0

    def _emit(self, piece: str | int) -> None:
        self.pieces.append(piece)
        self.in_chrome.append(self.chrome > 0)

    def start(self, name: str) -> None:
        if name in _VOID_TAGS:
            if name == "br" and not self.skip:
                self._emit(_LINE_BREAK)
            return
        unreadable = name in UNREADABLE_TAGS
        chrome = name in ("nav", "aside") or (name in ("header", "footer") and not self.sections)
        after = (
            _PARAGRAPH_BREAK if name in _BLOCK_TAGS else _LINE_BREAK if name in _LINE_TAGS else 0
        )
        self.open.append((name, unreadable, chrome, after))
        self.skip += unreadable
        self.chrome += chrome
        self.sections += name in _CONTENT_SECTIONS
        self.pre += name == "pre"
        if not self.skip:
            if name in _CELL_TAGS:
                self._emit(_CELL)
            if after:
                self._emit(after)

    def end(self, name: str) -> None:
        # As html.parser tree builders do: close up to the nearest open element of that
        # name, or ignore a stray end tag.
        if name in _VOID_TAGS or not any(entry[0] == name for entry in self.open):
            return
        while self.open:
            entry = self.open.pop()
            self._close(entry)
            if entry[0] == name:
                return

    def _close(self, entry: tuple[str, bool, bool, int]) -> None:
        name, unreadable, chrome, after = entry
        if after and not self.skip:
            self._emit(after)
        self.skip -= unreadable
        self.chrome -= chrome
        self.sections -= name in _CONTENT_SECTIONS
        self.pre -= name == "pre"

    def data(self, text: str) -> None:
        if not self.skip:
            self._emit(_Preformatted(text) if self.pre else _SPACES.sub(" ", text))

    def text(self, *, drop_chrome: bool) -> str:
        while self.open:
            self._close(self.open.pop())
        if drop_chrome:
            kept = [piece for piece, chrome in zip(self.pieces, self.in_chrome) if not chrome]
            text = _assemble(kept)
            if text or len(kept) == len(self.pieces):
                return text
        return _assemble(self.pieces)


def readable_text(soup: BeautifulSoup | Tag, *, drop_chrome: bool = True) -> str:
    """The readable text of a parsed page, in document order, without changing ``soup``.

    Drops :data:`UNREADABLE_TAGS` (script, style, noscript, template, head...) and, with
    ``drop_chrome`` (default True), :data:`CHROME_TAGS`. Whitespace inside a block collapses
    to one space (kept verbatim in ``<pre>``); headings, paragraphs and other blocks are
    separated by a blank line, list items, table rows and ``<br>`` by one newline, and
    table cells by `` | ``. If dropping the chrome would leave nothing, the chrome is kept.

    >>> page = BeautifulSoup("<nav>Menu</nav><h1>Title</h1><p>One <b>two</b></p>", "html.parser")
    >>> readable_text(page)
    'Title\\n\\nOne two'
    """
    root = soup.body if isinstance(soup, BeautifulSoup) and soup.body is not None else soup
    builder = TextBuilder()
    # An explicit stack rather than recursion: real pages nest deeper than Python's limit.
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, str) and not isinstance(node, NavigableString):
            builder.end(node)  # the marker pushed when the element was entered
        elif isinstance(node, NavigableString):
            if not isinstance(node, _SKIPPED_STRINGS):
                builder.data(str(node))
        elif isinstance(node, Tag):
            if node.name in UNREADABLE_TAGS:
                continue  # nothing inside can be text
            builder.start(node.name)
            if node.name not in _VOID_TAGS:
                stack.append(node.name)
                stack.extend(reversed(node.contents))
    return builder.text(drop_chrome=drop_chrome)


def _assemble(pieces: list[str | int]) -> str:
    blocks: list[tuple[str, bool]] = []  # (text, preformatted)
    separators: list[int] = []
    current: list[str] = []
    has_text = preformatted = False
    pending = 0
    for piece in pieces:
        if piece == _CELL:
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
        preformatted = preformatted or isinstance(piece, _Preformatted)
    if has_text:
        blocks.append(("".join(current), preformatted))
    out: list[str] = []
    for index, (block, is_pre) in enumerate(blocks):
        if is_pre:
            cleaned = "\n".join(line.rstrip() for line in block.split("\n")).strip("\n")
        else:
            lines = (line.strip(" \t") for line in block.split("\n"))
            cleaned = "\n".join(line for line in lines if line)
        if not cleaned:
            continue
        if out:
            out.append("\n\n" if separators[index - 1] == _PARAGRAPH_BREAK else "\n")
        out.append(cleaned)
    return "".join(out)


def is_chrome(tag: Tag) -> bool:
    """True for nav/aside, and for header/footer outside article, main and section."""
    if tag.name in ("nav", "aside"):
        return True
    return not any(parent.name in _CONTENT_SECTIONS for parent in tag.parents)


def strip_unreadable(soup: BeautifulSoup, *, drop_chrome: bool = True) -> Tag:
    """Remove unreadable tags (and chrome) from ``soup`` in place; returns its body (or it).

    For ``get_text``-style extraction; :func:`readable_text` does not change the soup.
    """
    root = soup.body if soup.body is not None else soup
    doomed = [
        tag
        for tag in root.find_all(True)
        if tag.name in UNREADABLE_TAGS
        or (drop_chrome and tag.name in CHROME_TAGS and is_chrome(tag))
    ]
    for tag in doomed:
        if not tag.decomposed:
            tag.decompose()
    return root

