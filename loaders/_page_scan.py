"""One html.parser pass over a page: its metadata, ``<base href>``, links and (optionally)
its readable text, without building a tree; :func:`page_metadata` reads the same metadata
from a parsed BeautifulSoup tree."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

from bs4 import BeautifulSoup, Tag

from loaders._readable import TextBuilder

__all__ = ["PageScan", "scan_page", "html_to_text", "page_metadata"]

# The metadata a page gives, in this order, each only when present (in both readers).
_METADATA_KEYS = ("title", "description", "language")
_DESCRIPTION = re.compile(r"^description$", re.I)


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
    def __init__(self, builder: TextBuilder | None) -> None:
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


def scan_page(html: str, *, text: bool = True, drop_chrome: bool = True) -> PageScan:
    """Readable text (as :func:`~loaders._readable.readable_text` of the parsed page),
    metadata, base and links of ``html`` in one html.parser pass, without building a tree.

    >>> scan = scan_page('<title>T</title><nav>Menu</nav><p>Hi <a href="/x">there</a></p>')
    >>> scan.text, scan.metadata, scan.links
    ('Hi there', {'title': 'T'}, ['/x'])
    """
    builder = TextBuilder() if text else None
    scanner = _Scanner(builder)
    scanner.feed(html)
    scanner.close()
    if scanner.title is not None:  # an unclosed <title>: its text runs to the end
        scanner.metadata["title"] = "".join(scanner.title).strip()
    ordered = {
        key: scanner.metadata[key]
        for key in _METADATA_KEYS
        if key in scanner.metadata
    }
    return PageScan(
        text=builder.text(drop_chrome=drop_chrome) if builder is not None else None,
        metadata=ordered,
        base_href=scanner.base_href,
        links=scanner.links,
    )


def html_to_text(html: str, *, drop_chrome: bool = True) -> str:
    """:func:`~loaders._readable.readable_text` of an HTML string, in one streaming pass
    (no tree built).

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
    description = soup.find("meta", attrs={"name": _DESCRIPTION})
    if isinstance(description, Tag) and description.get("content") is not None:
        metadata["description"] = str(description["content"]).strip()
    html = soup.find("html")
    if isinstance(html, Tag) and html.get("lang"):
        metadata["language"] = str(html["lang"]).strip()
    return metadata
