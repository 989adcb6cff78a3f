"""What of an HTML page is readable text, and how its blocks are laid out.

The rules are written once: :func:`element_kind` says which elements are never text
(scripts, styles, permalink marks) and which are site chrome (navigation, sidebars,
page headers and footers, breadcrumbs), and :class:`TextBuilder` turns the rest into the
pieces :func:`loaders._layout.assemble` lays out (the text, with where its headings and
structural blocks are). Two front ends in :mod:`loaders._page_scan` feed them the same events: a walk over a
parsed BeautifulSoup tree and a streaming html.parser pass (no tree built).
:func:`strip_unreadable` applies the same element rules to a soup, for ``get_text``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from bs4 import BeautifulSoup, Tag

from loaders._layout import (
    BLOCK_KINDS,
    CELL,
    LINE_BREAK,
    PARAGRAPH_BREAK,
    Block,
    BlockEnd,
    Heading,
    Preformatted,
    assemble,
)

__all__ = [
    "element_kind",
    "tag_attributes",
    "is_permalink_mark",
    "strip_unreadable",
    "is_chrome",
    "TextBuilder",
    "Heading",
    "Block",
    "BLOCK_KINDS",
    "Attributes",
    "UNREADABLE_TAGS",
    "CHROME_TAGS",
    "CHROME_CLASSES",
    "CHROME_ROLES",
    "PERMALINK_CLASSES",
]

Attributes = Mapping[str, "str | None"]
"""An element's attributes, names lower-cased, multi-valued ones (``class``) space-joined."""

#: Never text: code, styling, script fallbacks, inert templates, the title (metadata), media.
UNREADABLE_TAGS = frozenset(
    {
        "script", "style", "noscript", "template", "head", "title", "svg", "math", "iframe",
        "object", "canvas", "select", "button",
    }
)
#: Site chrome, dropped by default. ``header``/``footer`` only count as chrome outside
#: ``article``/``main``/``section`` (where HTML makes them part of the content, e.g. an
#: article's ``<header><h1>``).
CHROME_TAGS = frozenset({"nav", "aside", "header", "footer"})
_CONTENT_SECTIONS = frozenset({"article", "main", "section"})

# ARIA landmark roles of chrome; ``banner`` and ``contentinfo`` are the page header and
# footer, so like ``<header>``/``<footer>`` they are content inside a section.
_PAGE_LEVEL_ROLES = frozenset({"banner", "contentinfo"})
_NAVIGATION_ROLES = frozenset({"navigation", "search", "complementary"})
#: ARIA roles that make an element chrome (Sphinx marks its sidebar ``role="navigation"``).
CHROME_ROLES = _NAVIGATION_ROLES | _PAGE_LEVEL_ROLES

#: Class names of chrome that generators put in plain ``<div>``s rather than ``<nav>``,
#: each seen in real output: Sphinx (``sphinxsidebar``; ``related``: the top and bottom
#: "index | modules | next | previous | Python >> ..." bars), Sphinx's Read
#: the Docs theme (side menu, breadcrumbs, previous/next buttons, version menu), DocBook
#: XSL's chunked HTML (``navheader``/``navfooter``: the "Prev Up Home Next" tables, as in
#: PostgreSQL's manual), and the conventional breadcrumb classes (Bootstrap and others).
CHROME_CLASSES = frozenset(
    {
        "sphinxsidebar", "related", "wy-nav-side", "wy-breadcrumbs",
        "rst-footer-buttons", "rst-versions", "navheader", "navfooter", "breadcrumb",
        "breadcrumbs",
    }
)
# Class or id "footer" (Sphinx's copyright block; AsciiDoc's "Last updated ..." in git's
# manual pages) is page-level as <footer> is: chrome, except inside a section.
_FOOTER = "footer"

#: Classes of permalink anchors (the ``¶`` after Sphinx and MkDocs headings): never text.
PERMALINK_CLASSES = frozenset({"headerlink"})
# Other generators mark permalinks only by their text: an in-page link that is just one of
# these signs is a permalink, whatever its class.
_PERMALINK_MARKS = frozenset({"\u00b6", "\u00a7", "#", "\U0001f517"})  # ¶ § # 🔗

# Elements that end a line (one newline) and elements that end a paragraph (a blank line).
_LINE_TAGS = frozenset({"li", "tr", "dt", "dd", "option", "caption", "figcaption", "summary"})
_BLOCK_TAGS = frozenset(
    {
        "address", "article", "blockquote", "body", "center", "details", "dialog", "div", "dl",
        "fieldset", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
        "hgroup", "hr", "html", "legend", "main", "menu", "nav", "ol", "p", "pre", "section",
        "table", "tbody", "thead", "tfoot", "ul", "aside",
    }
)
_CELL_TAGS = frozenset({"td", "th"})


_HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


_SPACES = re.compile(r"[ \t\n\r\f\v]+")

# Elements with no content and no end tag: never pushed on the open-element stack.
_VOID_TAGS = frozenset(
    {
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
        "source", "track", "wbr", "keygen",
    }
)


def element_kind(name: str, attributes: Attributes, *, in_section: bool) -> tuple[bool, bool]:
    """``(unreadable, chrome)`` for an element named ``name`` (lower case).

    Unreadable: :data:`UNREADABLE_TAGS` and permalink anchors (:data:`PERMALINK_CLASSES`);
    nothing inside is ever text. Chrome: ``nav``, ``aside``, a :data:`CHROME_ROLES` role,
    a :data:`CHROME_CLASSES` class or an ``aria-label`` naming a breadcrumb; and, when not
    ``in_section`` (inside article, main or section), ``header``, ``footer``, the
    ``banner``/``contentinfo`` roles and class or id ``footer``.

    >>> element_kind("div", {"class": "sphinxsidebar"}, in_section=False)
    (False, True)
    """
    if name in UNREADABLE_TAGS:
        return True, False
    page_level = name in ("header", "footer")
    chrome = name in ("nav", "aside")
    if attributes:  # most elements have none: decided by name alone
        classes = (attributes.get("class") or "").split()
        if not PERMALINK_CLASSES.isdisjoint(classes):
            return True, False
        role = (attributes.get("role") or "").strip().lower()
        chrome = (
            chrome
            or role in _NAVIGATION_ROLES
            or not CHROME_CLASSES.isdisjoint(classes)
            or "breadcrumb" in (attributes.get("aria-label") or "").lower()
        )
        page_level = (
            page_level
            or role in _PAGE_LEVEL_ROLES
            or _FOOTER in classes
            or attributes.get("id") == _FOOTER
        )
    return False, chrome or (page_level and not in_section)


def is_permalink_mark(text: str) -> bool:
    """True when an in-page link's whole text is a permalink sign (``¶``, ``§``, ``#``)."""
    return text.strip() in _PERMALINK_MARKS


def tag_attributes(tag: Tag) -> dict[str, str | None]:
    """A BeautifulSoup tag's attributes as :data:`Attributes` (class lists space-joined)."""
    return {
        name: " ".join(value) if isinstance(value, list) else value
        for name, value in tag.attrs.items()
    }


class TextBuilder:
    """The readable-text rules, fed start/end/data events by a parsed tree or a stream.

    One set of rules serves both front ends of :mod:`loaders._page_scan` (a BeautifulSoup
    tree walk, and html.parser events with no tree built: about twice as fast). Pieces
    inside chrome are flagged rather than dropped, so a page that is all chrome can still
    give its text.
    """

    def __init__(self) -> None:
        self.pieces: list[str | int] = []
        self.in_chrome: list[bool] = []
        # (name, unreadable, chrome, break after, where an in-page link's text starts or
        # -1) for each open element
        self.open: list[tuple[str, bool, bool, int, int]] = []
        self.open_names: dict[str, int] = {}  # how many of each name are open (end tags)
        self.skip = self.chrome = self.sections = self.pre = 0
        self.ids: list[str] = []  # ids of the open elements that have one, outermost first
        self.id_depths: list[int] = []  # the depth of self.open at which each was opened
        self.headings: list[tuple[Heading, int]] = []  # open headings and where their pieces start
        self.blocks: list[tuple[int, Block]] = []  # open blocks and the depth of self.open they were opened at

    def _emit(self, piece: str | int) -> None:
        self.pieces.append(piece)
        self.in_chrome.append(self.chrome > 0)

    def start(self, name: str, attributes: Attributes | None = None) -> None:
        if name in _VOID_TAGS:
            if name == "br" and not self.skip:
                self._emit(LINE_BREAK)
            return
        attributes = attributes or {}
        unreadable, chrome = element_kind(name, attributes, in_section=self.sections > 0)
        after = (
            PARAGRAPH_BREAK if name in _BLOCK_TAGS else LINE_BREAK if name in _LINE_TAGS else 0
        )
        # An in-page link is a permalink if its text turns out to be a mark: see _close.
        in_page = name == "a" and (attributes.get("href") or "").startswith("#")
        own_id = attributes.get("id") or (attributes.get("name") if name == "a" else None)
        if own_id and self.headings and self.headings[-1][0].anchor is None:
            self.headings[-1][0].anchor = own_id  # an <a id> inside a heading names it
        self.open.append((name, unreadable, chrome, after, len(self.pieces) if in_page else -1))
        self.open_names[name] = self.open_names.get(name, 0) + 1
        self.skip += unreadable
        self.chrome += chrome
        self.sections += name in _CONTENT_SECTIONS
        self.pre += name == "pre"
        if not self.skip:
            if name in _CELL_TAGS:
                self._emit(CELL)
            if after:
                self._emit(after)
            if name in _HEADING_TAGS:
                heading = Heading(attributes.get("id") or None, self.ids[-1] if self.ids else None)
                self.headings.append((heading, len(self.pieces)))
                self._emit(heading)  # laid out as nothing; marks where the heading begins
            kind = BLOCK_KINDS.get(name)
            if kind is not None:
                block = Block(kind)
                self.blocks.append((len(self.open), block))
                self._emit(block)  # laid out as nothing; marks where the block begins
        if own_id:
            self.ids.append(own_id)
            self.id_depths.append(len(self.open))

    def end(self, name: str) -> None:
        # As html.parser tree builders do: close up to the nearest open element of that
        # name, or ignore a stray end tag.
        if not self.open_names.get(name):  # void elements are never open
            return
        while self.open:
            entry = self.open.pop()
            self._close(entry)
            if entry[0] == name:
                return

    def _close(self, entry: tuple[str, bool, bool, int, int]) -> None:
        name, unreadable, chrome, after, link_start = entry
        if self.id_depths and self.id_depths[-1] == len(self.open) + 1:
            self.ids.pop(), self.id_depths.pop()
        if name in _HEADING_TAGS and not self.skip and self.headings:
            heading, start = self.headings.pop()
            # A heading with no text (an empty <h2>, or only a permalink mark) marks nothing.
            heading.empty = not any(isinstance(p, str) and not p.isspace() for p in self.pieces[start:])
        self.open_names[name] -= 1
        if link_start >= 0:
            inside = "".join(p for p in self.pieces[link_start:] if isinstance(p, str))
            if is_permalink_mark(inside):
                del self.pieces[link_start:], self.in_chrome[link_start:]
        if self.blocks and self.blocks[-1][0] == len(self.open) + 1:
            # Emitted even when this element made everything inside unreadable: the end
            # must reach _assemble, which drops a block that never got any text.
            self._emit(BlockEnd(self.blocks.pop()[1]))
        if after and not self.skip:
            self._emit(after)
        self.skip -= unreadable
        self.chrome -= chrome
        self.sections -= name in _CONTENT_SECTIONS
        self.pre -= name == "pre"

    def data(self, text: str) -> None:
        if not self.skip:
            self._emit(Preformatted(text) if self.pre else _SPACES.sub(" ", text))

    def text(self, *, drop_chrome: bool) -> str:
        """The text laid out; with ``drop_chrome``, without chrome unless that is all."""
        return self.layout(drop_chrome=drop_chrome)[0]

    def layout(self, *, drop_chrome: bool) -> tuple[str, list[Heading], list[Block]]:
        """The text laid out (as :meth:`text`), its headings in order with their offsets,
        and its blocks (:class:`Block`) in the order they begin."""
        while self.open:
            self._close(self.open.pop())
        if drop_chrome:
            kept = [piece for piece, chrome in zip(self.pieces, self.in_chrome) if not chrome]
            text, headings, blocks = assemble(kept)
            if text or len(kept) == len(self.pieces):
                return text, headings, blocks
        return assemble(self.pieces)




def is_chrome(tag: Tag) -> bool:
    """True when :func:`element_kind` calls ``tag`` chrome (in its place in the tree)."""
    in_section = any(parent.name in _CONTENT_SECTIONS for parent in tag.parents)
    return element_kind(tag.name, tag_attributes(tag), in_section=in_section)[1]


def _is_unreadable(tag: Tag) -> bool:
    if element_kind(tag.name, tag_attributes(tag), in_section=False)[0]:
        return True
    href = tag.get("href")
    return (
        tag.name == "a"
        and isinstance(href, str)
        and href.startswith("#")
        and is_permalink_mark(tag.get_text())
    )


def strip_unreadable(soup: BeautifulSoup, *, drop_chrome: bool = True) -> Tag:
    """Remove unreadable tags (and chrome) from ``soup`` in place; returns its body (or it).

    For ``get_text``-style extraction; the readable text of :mod:`loaders._page_scan`
    does not change the soup.
    """
    root = soup.body if soup.body is not None else soup
    doomed = [
        tag
        for tag in root.find_all(True)
        if _is_unreadable(tag) or (drop_chrome and is_chrome(tag))
    ]
    for tag in doomed:
        if not tag.decomposed:
            tag.decompose()
    return root
