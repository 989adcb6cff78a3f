"""From fetched HTML to text: decoding, readable-text extraction and page metadata."""

from __future__ import annotations

import codecs
import logging
import re
from dataclasses import dataclass
from html.parser import HTMLParser
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
    "scan_page",
    "PageScan",
]

logger = logging.getLogger("loaders")

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


class _TextBuilder:
    """The readable-text rules, fed start/end/data events by a parsed tree or a stream.

    One set of rules serves both :func:`readable_text` (walking a BeautifulSoup tree) and
    :func:`scan_page` (html.parser events, no tree built: about twice as fast). Pieces
    inside chrome are flagged rather than dropped, so a page that is all chrome can
    still give its text.
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
    builder = _TextBuilder()
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


@dataclass
class PageScan:
    """What one pass over a page's HTML found: ``text`` (None unless asked for), the
    ``metadata`` of :func:`page_metadata`, the ``<base href>`` and the ``<a>``/``<area>``
    hrefs in document order."""

    text: str | None
    metadata: dict[str, str]
    base_href: str | None
    links: list[str]


class _Scanner(HTMLParser):
    def __init__(self, builder: _TextBuilder | None) -> None:
        super().__init__(convert_charrefs=True)
        self.builder = builder
        self.metadata: dict[str, str] = {}
        self.base_href: str | None = None
        self.links: list[str] = []
        self.title: list[str] | None = None  # collecting while the first <title> is open
        self.title_depth = 0
        self.seen = {"title": False, "description": False, "html": False}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("a", "area") or tag in ("meta", "html", "base", "title"):
            values = dict(attrs)
            if tag in ("a", "area"):
                if "href" in values:
                    self.links.append(values["href"] or "")
            elif tag == "title":
                if not self.seen["title"]:
                    self.seen["title"] = True
                    self.title = []
                if self.title is not None:
                    self.title_depth += 1
            elif tag == "meta":
                name = values.get("name")
                if not self.seen["description"] and name is not None and _DESCRIPTION.search(name):
                    self.seen["description"] = True
                    if values.get("content") is not None:
                        self.metadata["description"] = str(values["content"]).strip()
            elif tag == "html":
                if not self.seen["html"]:
                    self.seen["html"] = True
                    if values.get("lang"):
                        self.metadata["language"] = str(values["lang"]).strip()
            elif tag == "base" and self.base_href is None and "href" in values:
                self.base_href = values["href"] or ""
        if self.builder is not None:
            self.builder.start(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title" and self.title is not None:
            self.title_depth -= 1
            if self.title_depth <= 0:
                self.metadata["title"] = "".join(self.title).strip()
                self.title = None
        if self.builder is not None:
            self.builder.end(tag)

    def handle_data(self, data: str) -> None:
        if self.title is not None:
            self.title.append(data)
        if self.builder is not None:
            self.builder.data(data)


_DESCRIPTION = re.compile(r"^description$", re.I)


def scan_page(html: str, *, text: bool = True, drop_chrome: bool = True) -> PageScan:
    """Readable text (as :func:`readable_text` of the parsed page), metadata, base and
    links of ``html`` in one html.parser pass, without building a tree.

    >>> scan = scan_page('<title>T</title><nav>Menu</nav><p>Hi <a href="/x">there</a></p>')
    >>> scan.text, scan.metadata, scan.links
    ('Hi there', {'title': 'T'}, ['/x'])
    """
    builder = _TextBuilder() if text else None
    scanner = _Scanner(builder)
    scanner.feed(html)
    scanner.close()
    if scanner.title is not None:  # an unclosed <title>: its text runs to the end
        scanner.metadata["title"] = "".join(scanner.title).strip()
    ordered = {
        key: scanner.metadata[key]
        for key in ("title", "description", "language")
        if key in scanner.metadata
    }
    return PageScan(
        text=builder.text(drop_chrome=drop_chrome) if builder is not None else None,
        metadata=ordered,
        base_href=scanner.base_href,
        links=scanner.links,
    )


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
        if tag.name in UNREADABLE_TAGS
        or (drop_chrome and tag.name in CHROME_TAGS and is_chrome(tag))
    ]
    for tag in doomed:
        if not tag.decomposed:
            tag.decompose()
    return root


def html_to_text(html: str, *, drop_chrome: bool = True) -> str:
    """:func:`readable_text` of an HTML string, in one streaming pass (no tree built).

    >>> html_to_text("<script>x()</script><p>Hello <i>world</i></p>")
    'Hello world'
    """
    return scan_page(html, drop_chrome=drop_chrome).text or ""


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
