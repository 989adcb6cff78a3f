"""From fetched HTML to text: decoding, readable-text extraction and page metadata."""

from __future__ import annotations

import codecs
import logging
import re
from typing import Any

from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from bs4.element import CData, Declaration, Doctype, ProcessingInstruction

from loaders._files import decode, normalize_newlines
from rag.errors import ValidationError

__all__ = [
    "decode_body",
    "readable_text",
    "html_to_text",
    "page_metadata",
    "UNREADABLE_TAGS",
    "CHROME_TAGS",
    "is_chrome",
    "strip_unreadable",
]

logger = logging.getLogger("loaders")

#: Never text: code, styling, fallbacks for disabled scripts, inert templates, embedded media.
UNREADABLE_TAGS = frozenset(
    {"script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object",
     "canvas", "select", "button"}
)
#: Site chrome, dropped by default. ``header``/``footer`` only count as chrome outside
#: ``article``/``main``/``section`` (where HTML makes them part of the content, e.g. an
#: article's ``<header><h1>``).
CHROME_TAGS = frozenset({"nav", "aside", "header", "footer"})
_CONTENT_SECTIONS = frozenset({"article", "main", "section"})

# Elements that end a line (one newline) and elements that end a paragraph (a blank line).
_LINE_TAGS = frozenset({"li", "tr", "dt", "dd", "option", "caption", "figcaption", "summary"})
_BLOCK_TAGS = frozenset(
    {"address", "article", "blockquote", "body", "center", "details", "dialog", "div", "dl",
     "fieldset", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
     "hgroup", "hr", "html", "legend", "main", "menu", "nav", "ol", "p", "pre", "section",
     "table", "tbody", "thead", "tfoot", "ul", "aside"}
)
_CELL_TAGS = frozenset({"td", "th"})
_SKIPPED_STRINGS = (Comment, Declaration, Doctype, ProcessingInstruction, CData)


class _Preformatted(str):
    """Text inside ``<pre>``: its spaces and line breaks are kept."""


_SPACES = re.compile(r"[ \t\n\r\f\v]+")
_LINE_BREAK, _PARAGRAPH_BREAK, _CELL = 1, 2, 3


def decode_body(
    content: bytes,
    *,
    source: str,
    header_charset: str | None,
    encoding: str | None,
    autoset_encoding: bool,
) -> str:
    """Decode a response body to text with ``\\n`` newlines.

    ``encoding`` (if given) wins and is applied strictly (ValidationError naming ``source``
    when the bytes do not fit). Otherwise, with ``autoset_encoding`` (the default), the
    HTTP ``charset`` is tried first, then a BOM, ``<meta charset>``, UTF-8 and Windows-1252,
    each strictly; bytes that fit none are decoded as UTF-8 with U+FFFD replacements and a
    logged warning. Without it, the HTTP charset (else UTF-8) is used with replacements.
    """
    if encoding is not None:
        return normalize_newlines(
            decode(content, source=source, encoding=encoding, autodetect_encoding=False)
        )
    charset = header_charset if header_charset and _known_codec(header_charset) else None
    if not autoset_encoding:
        return normalize_newlines(content.decode(charset or "utf-8", errors="replace"))
    try:
        return normalize_newlines(
            decode(content, source=source, encoding=charset, autodetect_encoding=True)
        )
    except ValidationError as exc:
        logger.warning("%s; decoded as UTF-8 with replacement characters", exc)
        return normalize_newlines(content.decode("utf-8", errors="replace"))


def _known_codec(name: str) -> bool:
    try:
        codecs.lookup(name)
    except LookupError:
        return False
    return True


def is_chrome(tag: Tag) -> bool:
    """True for nav/aside, and for header/footer outside article, main and section."""
    if tag.name in ("nav", "aside"):
        return True
    return not any(parent.name in _CONTENT_SECTIONS for parent in tag.parents)


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
    text = _walk(root, drop_chrome=drop_chrome)
    if not text and drop_chrome:
        text = _walk(root, drop_chrome=False)
    return text


def _walk(root: Tag, *, drop_chrome: bool) -> str:
    # An explicit stack rather than recursion: real pages nest deeper than Python's limit.
    pieces: list[str | int] = []
    stack: list[Any] = [root]
    pre_depth = 0
    while stack:
        node = stack.pop()
        if isinstance(node, int):  # a closing marker: the break after a block, or leaving <pre>
            if node < 0:
                pre_depth -= 1
            else:
                pieces.append(node)
            continue
        if isinstance(node, NavigableString):
            if isinstance(node, _SKIPPED_STRINGS):
                continue
            text = str(node)
            pieces.append(_Preformatted(text) if pre_depth else _SPACES.sub(" ", text))
            continue
        if not isinstance(node, Tag):
            continue
        name = node.name
        if name in UNREADABLE_TAGS or (drop_chrome and name in CHROME_TAGS and is_chrome(node)):
            continue
        if name == "br":
            pieces.append(_LINE_BREAK)
            continue
        if name in _CELL_TAGS:
            pieces.append(_CELL)
        after = (
            _PARAGRAPH_BREAK if name in _BLOCK_TAGS else _LINE_BREAK if name in _LINE_TAGS else 0
        )
        if after:
            pieces.append(after)
            stack.append(after)
        if name == "pre":
            pre_depth += 1
            stack.append(-1)
        stack.extend(reversed(node.contents))
    return _assemble(pieces)


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


def strip_unreadable(soup: BeautifulSoup, *, drop_chrome: bool = True) -> Tag:
    """Remove unreadable tags (and chrome) from ``soup`` in place; returns its body (or it).

    For ``get_text``-style extraction; :func:`readable_text` does not change the soup.
    """
    root = soup.body if soup.body is not None else soup
    doomed = [
        tag
        for tag in root.find_all(True)
        if tag.name in UNREADABLE_TAGS or (drop_chrome and tag.name in CHROME_TAGS and is_chrome(tag))
    ]
    for tag in doomed:
        if not tag.decomposed:
            tag.decompose()
    return root


def html_to_text(html: str, *, drop_chrome: bool = True, parser: str = "html.parser") -> str:
    """:func:`readable_text` of an HTML string: the default ``extractor`` of the crawler.

    >>> html_to_text("<script>x()</script><p>Hello <i>world</i></p>")
    'Hello world'
    """
    return readable_text(BeautifulSoup(html, parser), drop_chrome=drop_chrome)


def page_metadata(soup: BeautifulSoup) -> dict[str, str]:
    """``title``, ``description`` and ``language`` of a page, each only when the page has it.

    Values are stripped of surrounding whitespace. LangChain fills absent ones with
    placeholder strings ("No description found."); here an absent value is an absent key.

    >>> page = BeautifulSoup('<html lang="en"><title> Hi </title></html>', "html.parser")
    >>> page_metadata(page)
    {'title': 'Hi', 'language': 'en'}
    """
    metadata: dict[str, str] = {}
    title = soup.find("title")
    if title is not None:
        metadata["title"] = title.get_text().strip()
    description = soup.find("meta", attrs={"name": re.compile(r"^description$", re.I)})
    if isinstance(description, Tag) and description.get("content") is not None:
        metadata["description"] = str(description["content"]).strip()
    html = soup.find("html")
    if isinstance(html, Tag) and html.get("lang"):
        metadata["language"] = str(html["lang"]).strip()
    return metadata
