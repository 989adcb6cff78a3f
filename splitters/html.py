"""HTML split at header tags (h1..h6): one Document per section, headers as metadata."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from rag.documents import Document
from rag._optional import require
from splitters.base import check_header_pairs, check_text

__all__ = ["HTMLHeaderTextSplitter"]

_HEADER_TAG = re.compile(r"^h[1-6]$")
#: What headers_to_split_on holds for the HTML splitters (shown when it is malformed).
HTML_HEADER_PAIRS = "(tag, name) pairs with tags h1..h6, like ('h1', 'Header 1')"


def _beautiful_soup():  # type: ignore[no-untyped-def]
    bs4 = require("bs4", feature="HTMLHeaderTextSplitter", packages=["beautifulsoup4"])
    return bs4.BeautifulSoup, bs4.Tag


class HTMLHeaderTextSplitter:
    """Split HTML at the header tags in ``headers_to_split_on``, on beautifulsoup4's stdlib parser.

    ``headers_to_split_on`` is a list of ``(tag, metadata_key)`` pairs such as
    ``[("h1", "Header 1"), ("h2", "Header 2")]``. Every header found becomes a Document of
    its own text; the text of the elements after it (each element's own strings, joined by
    spaces) is gathered into one Document per section, lines joined by ``"  \\n"``, with
    ``metadata`` mapping each header in force to its text. A header stops being in force at
    a header of the same or a higher level, or when the walk leaves the element that
    contained it. ``return_each_element=True`` gives one Document per element instead.

    Output equals LangChain 1.1.3's ``HTMLHeaderTextSplitter`` (which also uses the stdlib
    ``html.parser``); ``split_text_from_url`` is not provided: fetch the page yourself.

    >>> splitter = HTMLHeaderTextSplitter([("h1", "Header 1")])
    >>> [(d.page_content, d.metadata) for d in splitter.split_text("<h1>Intro</h1><p>Hi</p>")]
    [('Intro', {'Header 1': 'Intro'}), ('Hi', {'Header 1': 'Intro'})]
    """

    def __init__(
        self, headers_to_split_on: list[tuple[str, str]], return_each_element: bool = False
    ) -> None:
        pairs = check_header_pairs(headers_to_split_on, _HEADER_TAG.match, HTML_HEADER_PAIRS)
        self.headers_to_split_on = sorted(pairs, key=lambda pair: int(pair[0][1:]))
        self.header_mapping = dict(self.headers_to_split_on)
        self.header_tags = [tag for tag, _ in self.headers_to_split_on]
        self.return_each_element = return_each_element

    def split_text(self, text: str) -> list[Document]:
        """Split an HTML string into Documents (see the class docstring)."""
        return list(self._documents(check_text(text)))

    def split_text_from_file(self, file: str | Path | IO[str]) -> list[Document]:
        """Split the HTML in a file, given as a path (read as UTF-8) or an open text file."""
        if isinstance(file, (str, Path)):
            html = Path(file).read_text(encoding="utf-8")
        else:
            html = file.read()
        return self.split_text(html)

    def _documents(self, html: str) -> Iterator[Document]:
        beautiful_soup, tag_type = _beautiful_soup()
        soup = beautiful_soup(html, "html.parser")
        root = soup.body or soup
        # metadata key -> (header text, level, depth in the tree)
        in_force: dict[str, tuple[str, int, int]] = {}
        section: list[str] = []

        def headers() -> dict[str, str]:
            return {name: value[0] for name, value in in_force.items()}

        def close_section() -> Iterator[Document]:
            """The section gathered so far, if it holds text; starts a new one."""
            text = "  \n".join(line for line in section if line.strip())
            section.clear()
            if text.strip():
                yield Document(text, headers())

        # Depth-first, in document order, without recursion (deep pages are fine).
        stack = [root]
        while stack:
            node = stack.pop()
            stack.extend(child for child in reversed(list(node.children)) if isinstance(child, tag_type))
            tag = getattr(node, "name", None)
            if not tag:
                continue
            own_strings = (str(s).strip() for s in node.find_all(string=True, recursive=False))
            node_text = " ".join(s for s in own_strings if s)
            if not node_text:
                continue
            depth = len(list(node.parents))
            if tag in self.header_mapping:
                if not self.return_each_element:
                    yield from close_section()
                level = int(tag[1:])
                for name in [n for n, (_, lvl, _) in in_force.items() if lvl >= level]:
                    del in_force[name]
                in_force[self.header_mapping[tag]] = (node_text, level, depth)
                yield Document(node_text, headers())
                continue
            for name in [n for n, (_, _, d) in in_force.items() if depth < d]:
                del in_force[name]
            if self.return_each_element:
                yield Document(node_text, headers())
            else:
                section.append(node_text)
        if not self.return_each_element:
            yield from close_section()
