"""HTML split into sections at header tags (and large-font elements), as LangChain's."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any

from rag.documents import Document
from rag.errors import InvalidTypeError, ValidationError
from splitters._libxml2 import page_strings, parse_like_libxml2
from splitters._soup import Element
from splitters.base import check_header_pairs, check_text
from splitters.html import HTML_HEADER_PAIRS
from splitters.character import RecursiveCharacterTextSplitter

__all__ = ["HTMLSectionSplitter"]

_HEADER_TAG = re.compile(r"^h[1-6]$")
# XPath 1.0's number(): optional whitespace, an optional minus, digits with one dot.
_XPATH_NUMBER = re.compile(r"[ \t\r\n]*(-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))[ \t\r\n]*")
_TITLE = "#TITLE#"


def _large_font(style: str) -> bool:
    """LangChain's XSLT test: the number between ``font-size:`` and ``px`` is above 20."""
    _, found, after = style.partition("font-size:")
    before, found_px, _ = after.partition("px")
    if not found or not found_px:
        return False
    number = _XPATH_NUMBER.fullmatch(before)
    return number is not None and float(number.group(1)) > 20


def _convert_large_fonts(root: Element) -> None:
    """Rename every element whose style sets a font size above 20px to ``h1``."""
    stack = [root]
    while stack:
        element = stack.pop()
        style = element.attrs.get("style")
        if style is not None and "font-size" in style and _large_font(style):
            element.name = "h1"
        stack.extend(child for child in element.children if type(child) is Element)  # type: ignore[misc]


class HTMLSectionSplitter:
    """Split HTML into one Document per section, a section starting at each header tag.

    ``headers_to_split_on`` is a list of ``(tag, metadata_key)`` pairs with tags ``h1`` to
    ``h6``, e.g. ``[("h1", "Header 1"), ("h2", "Header 2")]``. Any element whose ``style``
    sets ``font-size`` above 20px counts as an ``h1``. Each section's ``page_content`` is
    the text from its header (included) to the next header, strings joined by spaces with
    the line breaks between block elements kept; its ``metadata`` is
    ``{metadata_key: header text}``. Text before the first header forms a section titled
    ``"#TITLE#"`` under the ``h1`` key, which :meth:`create_documents` and
    :meth:`split_documents` replace with the input's ``metadata["Title"]`` when it has one.
    Other keyword arguments (``chunk_size``, ``chunk_overlap``...) configure the
    :class:`RecursiveCharacterTextSplitter` that :meth:`split_documents` applies to the
    sections (its defaults: 4000 and 200 characters).

    Output equals LangChain 1.1.3's ``HTMLSectionSplitter``, which needs lxml: that one
    parses with libxml2, rewrites the page with an XSLT, serialises it and parses it again
    with BeautifulSoup. Here libxml2's tree construction and serializer are reproduced over
    the standard library's tokenizer (see ``splitters._libxml2``), without lxml. Where
    LangChain fails, this returns something: an empty or comment-only page gives ``[]``
    (LangChain raises ValueError), text before the first header with no ``h1`` pair gets
    empty metadata (LangChain raises KeyError), and a missing ``"Title"`` leaves
    ``"#TITLE#"`` (LangChain raises KeyError). Markup the two tokenizers read differently
    (tags inside ``textarea`` or ``title``, broken comments) may differ.

    >>> splitter = HTMLSectionSplitter([("h1", "Header 1"), ("h2", "Header 2")])
    >>> html = "<h1>Intro</h1><p>Hello</p><h2>Details</h2><p>More</p>"
    >>> [(d.page_content, d.metadata) for d in splitter.split_text(html)]
    [('Intro \\n Hello', {'Header 1': 'Intro'}), ('Details \\n More', {'Header 2': 'Details'})]
    """

    def __init__(self, headers_to_split_on: Sequence[tuple[str, str]], **kwargs: Any) -> None:
        pairs = check_header_pairs(headers_to_split_on, _HEADER_TAG.match, HTML_HEADER_PAIRS)
        self.headers_to_split_on = dict(pairs)
        self.kwargs = kwargs
        # Built now so that bad chunking arguments fail here, not at the first split.
        self._splitter = RecursiveCharacterTextSplitter(**kwargs)

    def split_text(self, text: str) -> list[Document]:
        """Split an HTML string into one Document per section (see the class docstring)."""
        return [
            Document(content, {self.headers_to_split_on[tag]: header} if tag in self.headers_to_split_on else {})
            for header, content, tag in self._sections(check_text(text))
        ]

    def split_text_from_file(self, file: str | Path | IO[str]) -> list[Document]:
        """Split the HTML in a file, given as a path (read as UTF-8) or an open text file."""
        if isinstance(file, (str, Path)):
            return self.split_text(Path(file).read_text(encoding="utf-8"))
        return self.split_text(file.read())

    def create_documents(
        self, texts: Sequence[str], metadatas: Sequence[dict[Any, Any]] | None = None
    ) -> list[Document]:
        """Split each text into sections; each carries (a copy of) its text's metadata, with
        ``"#TITLE#"`` replaced by that metadata's ``"Title"`` when present."""
        if isinstance(texts, str):
            raise InvalidTypeError(f"texts must be a list of str, got a str: {texts!r:.80}")
        if metadatas is not None and len(metadatas) != len(texts):
            raise ValidationError(
                f"metadatas has {len(metadatas)} entries but texts has {len(texts)}; "
                f"give one metadata dict per text"
            )
        documents = []
        for position, text in enumerate(texts):
            base = metadatas[position] if metadatas else {}
            for section in self.split_text(text):
                metadata = copy.deepcopy(base)
                own = {
                    key: metadata["Title"] if value == _TITLE and "Title" in metadata else value
                    for key, value in section.metadata.items()
                }
                documents.append(Document(section.page_content, {**metadata, **own}))
        return documents

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        """Split each Document into sections, then the sections into chunks with the
        :class:`RecursiveCharacterTextSplitter` configured by this splitter's keyword
        arguments."""
        documents = list(documents)
        sections = self.create_documents(
            [document.page_content for document in documents],
            [document.metadata for document in documents],
        )
        return self._splitter.split_documents(sections)

    def _sections(self, html: str) -> list[tuple[str, str, str]]:
        """(header text, content, tag) of each section with text, as LangChain finds them."""
        root = parse_like_libxml2(html)
        _convert_large_fonts(root)
        wanted = set(self.headers_to_split_on) | {"body"}
        starts: list[tuple[int, Element]] = []
        ends: dict[int, int] = {}

        def on_element(element: Element, index: int, starting: bool) -> None:
            if element.name in wanted:
                if starting:
                    starts.append((index, element))
                else:
                    ends[id(element)] = index

        strings, plain = page_strings(root, on_element)
        sections = []
        for number, (start, element) in enumerate(starts):
            end = starts[number + 1][0] if number + 1 < len(starts) else len(strings)
            content = " ".join(strings[start:end]).strip()
            if not content:
                continue
            if number == 0:
                sections.append((_TITLE, content, "h1"))
                continue
            stop = ends[id(element)]
            text = "".join(s for s, is_plain in zip(strings[start:stop], plain[start:stop]) if is_plain)
            sections.append((text.strip(), content, element.name))
        return sections
