"""One reading of an HTML page: its readable text, metadata, ``<base href>`` and links.

The page's events (start tag with attributes, end tag, text) go to one :class:`_PageReader`,
which applies the rules once: title, description and language for the metadata, and the
readable-text rules of :mod:`loaders._readable`. Two front ends produce those events:

- :func:`scan_page` streams an HTML string through html.parser without building a tree
  (about twice as fast); every loader that reads HTML text uses it (files and fetched
  pages alike, so the same page gives the same text wherever it comes from);
- :func:`scan_tree` walks a parsed BeautifulSoup tree, for pages parsed with another
  parser (lxml) or handed over as a soup (:func:`readable_text`, :func:`page_metadata`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from typing import Any

from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from bs4.element import CData, Declaration, Doctype, ProcessingInstruction

from loaders._readable import Attributes, TextBuilder, tag_attributes

__all__ = ["PageScan", "scan_page", "scan_tree", "html_to_text", "readable_text", "page_metadata"]

# The metadata a page gives, in this order, each only when present.
_METADATA_KEYS = ("title", "description", "language")
_DESCRIPTION = re.compile(r"^description$", re.I)
# Strings of a parsed tree that a browser does not show (html.parser drops them unseen).
_SKIPPED_STRINGS = (Comment, Declaration, Doctype, ProcessingInstruction, CData)
_NO_ATTRIBUTES: dict[str, str | None] = {}  # shared by every element without attributes


@dataclass
class PageScan:
    """What one reading of a page found: ``text`` (None unless asked for), the
    ``metadata`` of :func:`page_metadata`, the ``<base href>``, the ``<a>``/``<area>``
    hrefs in document order, the headings of ``text`` (``[offset, title, anchor]``
    each, see :class:`loaders._layout.Heading`) and its blocks (``[start, end, kind]``
    each, in the order they begin, see :class:`loaders._layout.Block`); both empty
    without text."""

    text: str | None
    metadata: dict[str, str]
    base_href: str | None
    links: list[str]
    headings: list[list] = field(default_factory=list)
    blocks: list[list] = field(default_factory=list)

    def structure(self) -> dict[str, list[list]]:
        """The ``headings`` and ``blocks`` metadata of the page's text, each key only when
        the page has any (see :class:`loaders.ReadableHTMLLoader`)."""
        found = {"headings": self.headings, "blocks": self.blocks}
        return {key: value for key, value in found.items() if value}


class _PageReader:
    """The page rules, fed by either front end: the first ``<title>``'s text (nested
    elements included), the first ``<meta name="description">``, the first ``<html
    lang>``, the first ``<base href>``, every link, and the readable text."""

    def __init__(self, *, text: bool, drop_chrome: bool) -> None:
        self.builder = TextBuilder() if text else None
        self.drop_chrome = drop_chrome
        self.metadata: dict[str, str] = {}
        self.base_href: str | None = None
        self.links: list[str] = []
        self.title: list[str] | None = None  # collecting while the first <title> is open
        self.title_depth = 0
        self.seen = {"title": False, "description": False, "html": False}

    def start(self, tag: str, attributes: Attributes) -> None:
        if tag in ("a", "area"):
            if "href" in attributes:
                self.links.append(attributes["href"] or "")
        elif tag == "title":
            if not self.seen["title"]:
                self.seen["title"] = True
                self.title = []
            if self.title is not None:
                self.title_depth += 1
        elif tag == "meta":
            name = attributes.get("name")
            if not self.seen["description"] and name is not None and _DESCRIPTION.search(name):
                self.seen["description"] = True
                if attributes.get("content") is not None:
                    self.metadata["description"] = str(attributes["content"]).strip()
        elif tag == "html":
            if not self.seen["html"]:
                self.seen["html"] = True
                if attributes.get("lang"):
                    self.metadata["language"] = str(attributes["lang"]).strip()
        elif tag == "base" and self.base_href is None and "href" in attributes:
            self.base_href = attributes["href"] or ""
        if self.builder is not None:
            self.builder.start(tag, attributes)

    def end(self, tag: str) -> None:
        if tag == "title" and self.title is not None:
            self.title_depth -= 1
            if self.title_depth <= 0:
                self.metadata["title"] = "".join(self.title).strip()
                self.title = None
        if self.builder is not None:
            self.builder.end(tag)

    def data(self, data: str) -> None:
        if self.title is not None:
            self.title.append(data)
        if self.builder is not None:
            self.builder.data(data)

    def result(self) -> PageScan:
        if self.title is not None:  # an unclosed <title>: its text runs to the end
            self.metadata["title"] = "".join(self.title).strip()
        ordered = {key: self.metadata[key] for key in _METADATA_KEYS if key in self.metadata}
        text, headings, blocks = self.builder.layout(drop_chrome=self.drop_chrome) if self.builder else (None, [], [])
        return PageScan(text=text, metadata=ordered, base_href=self.base_href, links=self.links,
                        headings=[heading.as_list() for heading in headings],
                        blocks=[block.as_list() for block in blocks])


# The tags most of a page is made of, in their plainest spelling: a name, then attributes
# whose values are double-quoted. html.parser reads them through its general, tolerant
# path (several regular expressions per tag and per attribute); these two patterns read
# them in one match each and give exactly the same events. Anything else (single quotes,
# bare values, odd spacing, "/>", names with other characters) takes the general path.
_PLAIN_START = re.compile(r'<([a-zA-Z][a-zA-Z0-9]*)((?: [a-zA-Z][-a-zA-Z0-9_:.]*="[^"<>]*")*)>')
_PLAIN_ATTRIBUTE = re.compile(r' ([a-zA-Z][-a-zA-Z0-9_:.]*)="([^"]*)"')
_PLAIN_END = re.compile(r"</([a-zA-Z][a-zA-Z0-9]*)>")
# Elements whose content html.parser reads as raw text (script, style; title and textarea
# in newer Pythons): their start tags always take the general path, which sets that mode.
_RAW_TEXT = frozenset({"script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes",
                       "noscript", "plaintext"}) | frozenset(HTMLParser.CDATA_CONTENT_ELEMENTS) | \
    frozenset(getattr(HTMLParser, "RCDATA_CONTENT_ELEMENTS", ()))


class _Stream(HTMLParser):
    def __init__(self, reader: _PageReader) -> None:
        super().__init__(convert_charrefs=True)
        self.reader = reader

    def parse_starttag(self, i: int) -> int:
        match = _PLAIN_START.match(self.rawdata, i)
        if match is None:
            return super().parse_starttag(i)  # type: ignore[misc]
        tag = match.group(1).lower()
        if tag in _RAW_TEXT:
            return super().parse_starttag(i)  # type: ignore[misc]  # the base switches its text mode
        self.lasttag = tag
        self._HTMLParser__starttag_text = match.group(0)  # type: ignore[attr-defined]  # as the base sets it
        attributes = match.group(2)
        if attributes:
            # html.parser lower-cases names and unescapes non-empty values (& only matters).
            self.handle_starttag(tag, [(name.lower(), unescape(value) if "&" in value else value)
                                       for name, value in _PLAIN_ATTRIBUTE.findall(attributes)])
        else:
            self.handle_starttag(tag, [])
        return match.end()

    def parse_endtag(self, i: int) -> int:
        match = _PLAIN_END.match(self.rawdata, i) if self.cdata_elem is None else None  # type: ignore[attr-defined]
        if match is None:
            return super().parse_endtag(i)  # type: ignore[misc]
        self.handle_endtag(match.group(1).lower())
        self.clear_cdata_mode()
        return match.end()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.reader.start(tag, dict(attrs) if attrs else _NO_ATTRIBUTES)

    def handle_endtag(self, tag: str) -> None:
        self.reader.end(tag)

    def handle_data(self, data: str) -> None:
        self.reader.data(data)


def scan_page(html: str, *, text: bool = True, drop_chrome: bool = True) -> PageScan:
    """Readable text, metadata, base and links of ``html`` in one html.parser pass,
    without building a tree. ``text=False`` skips the text (None); ``drop_chrome``
    (default True) leaves out navigation, sidebars, page headers and footers.

    >>> scan = scan_page('<title>T</title><nav>Menu</nav><p>Hi <a href="/x">there</a></p>')
    >>> scan.text, scan.metadata, scan.links
    ('Hi there', {'title': 'T'}, ['/x'])
    """
    reader = _PageReader(text=text, drop_chrome=drop_chrome)
    stream = _Stream(reader)
    stream.feed(html)
    stream.close()
    return reader.result()


def scan_tree(
    soup: BeautifulSoup | Tag, *, text: bool = True, drop_chrome: bool = True
) -> PageScan:
    """:func:`scan_page` of a parsed tree (or of one element of it), without changing it."""
    reader = _PageReader(text=text, drop_chrome=drop_chrome)
    # An explicit stack rather than recursion: real pages nest deeper than Python's limit.
    stack: list[Any] = [soup]
    while stack:
        node = stack.pop()
        if isinstance(node, str) and not isinstance(node, NavigableString):
            reader.end(node)  # the marker pushed when the element was entered
        elif isinstance(node, NavigableString):
            if not isinstance(node, _SKIPPED_STRINGS):
                reader.data(str(node))
        elif isinstance(node, BeautifulSoup):
            stack.extend(reversed(node.contents))  # the document, not an element
        elif isinstance(node, Tag):
            reader.start(node.name, tag_attributes(node))
            stack.append(node.name)  # its end (ignored for void elements such as <br>)
            stack.extend(reversed(node.contents))
    return reader.result()


def html_to_text(html: str, *, drop_chrome: bool = True) -> str:
    """The readable text of an HTML string, in one streaming pass (no tree built).

    >>> html_to_text("<script>x()</script><p>Hello <i>world</i></p>")
    'Hello world'
    """
    return scan_page(html, drop_chrome=drop_chrome).text or ""


def readable_text(soup: BeautifulSoup | Tag, *, drop_chrome: bool = True) -> str:
    """The readable text of a parsed page, in document order, without changing ``soup``.

    Drops what is never text (script, style, noscript, template, head, permalink marks
    such as Sphinx's ``¶``) and, with ``drop_chrome`` (default True), site chrome: nav,
    aside, page-level header and footer, navigation roles, Sphinx sidebars and related
    bars, DocBook navigation tables, breadcrumbs (see :func:`loaders._readable.element_kind`).
    Whitespace inside a block collapses to one space (kept verbatim in ``<pre>``);
    headings, paragraphs and other blocks are separated by a blank line, list items,
    table rows and ``<br>`` by one newline, and table cells by `` | ``. If dropping the
    chrome would leave nothing, the chrome is kept.

    >>> page = BeautifulSoup("<nav>Menu</nav><h1>Title</h1><p>One <b>two</b></p>", "html.parser")
    >>> readable_text(page)
    'Title\\n\\nOne two'
    """
    return scan_tree(soup, drop_chrome=drop_chrome).text or ""


def page_metadata(soup: BeautifulSoup | Tag) -> dict[str, str]:
    """``title``, ``description`` and ``language`` of a page, each only when the page has it.

    Values are stripped of surrounding whitespace. LangChain fills absent ones with
    placeholder strings ("No description found."); here an absent value is an absent key.

    >>> page = BeautifulSoup('<html lang="en"><title> Hi </title></html>', "html.parser")
    >>> page_metadata(page)
    {'title': 'Hi', 'language': 'en'}
    """
    return scan_tree(soup, text=False).metadata
