"""HTML files: LangChain's ``BSHTMLLoader`` (all text, via beautifulsoup4) and
:class:`ReadableHTMLLoader` (the main content, as the web loaders read pages)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from bs4 import BeautifulSoup

from loaders._charset import decode_body
from loaders._files import decode, normalize_newlines, read_bytes
from loaders._page_scan import scan_page
from loaders.base import BaseLoader
from rag import Document

__all__ = ["BSHTMLLoader", "ReadableHTMLLoader", "HTML_SUFFIXES"]

#: File suffixes (lower case) of HTML pages, read by :class:`ReadableHTMLLoader`.
HTML_SUFFIXES = (".html", ".htm", ".xhtml")


class BSHTMLLoader(BaseLoader):
    """One document with an HTML file's visible text and its ``title``, as LangChain's.

    Args:
        file_path: path to the file; kept as given in ``metadata["source"]``.
        open_encoding: codec name. Default None lets beautifulsoup4 find it (BOM,
            ``<meta charset>``, UTF-8, Windows-1252) rather than using the locale.
        bs_kwargs: keyword arguments for ``BeautifulSoup``. Default
            ``{"features": "html.parser"}``, the standard-library parser; LangChain
            defaults to lxml and fails without it.
        get_text_separator: string placed between text fragments. Default ``""``.

    Metadata: ``source`` and ``title`` (the ``<title>`` text stripped of surrounding
    whitespace, ``""`` when absent; LangChain gives ``"None"`` for an empty or nested title).
    ``<script>`` and ``<style>`` contents are not text; everything else is, site chrome
    included (navigation, sidebars, footers, ``¶`` permalinks), as in LangChain. For the
    page's main content use :class:`ReadableHTMLLoader`.

    >>> BSHTMLLoader("page.html", get_text_separator="\\n").load()  # doctest: +SKIP
    [Document(page_content='Welcome\\nHello', metadata={'source': 'page.html', 'title': 'Welcome'})]
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        open_encoding: str | None = None,
        bs_kwargs: dict[str, Any] | None = None,
        get_text_separator: str = "",
    ) -> None:
        self.file_path = file_path
        self.open_encoding = open_encoding
        self.bs_kwargs = {"features": "html.parser"} if bs_kwargs is None else dict(bs_kwargs)
        self.get_text_separator = get_text_separator

    def lazy_load(self) -> Iterator[Document]:
        """Yield the single document."""
        source = str(self.file_path)
        data = read_bytes(self.file_path)
        markup: str | bytes = data
        if self.open_encoding is not None:
            markup = decode(
                data, source=source, encoding=self.open_encoding, autodetect_encoding=False
            )
        soup = BeautifulSoup(markup, **self.bs_kwargs)
        title = soup.title.get_text().strip() if soup.title is not None else ""
        text = normalize_newlines(soup.get_text(self.get_text_separator))
        yield Document(text, {"source": source, "title": title})


class ReadableHTMLLoader(BaseLoader):
    """One document with an HTML file's main content: the text a crawl of the same page
    gives (:class:`WebBaseLoader`, :class:`RecursiveUrlLoader`), from the same engine.

    Left out: scripts, styles, the head, permalink marks (Sphinx's ``¶``) and, with
    ``drop_chrome``, site chrome: ``nav``, ``aside``, page-level ``header``/``footer``,
    navigation roles, Sphinx sidebars and related bars, DocBook's Prev/Up/Next tables,
    breadcrumbs. Blocks are separated by blank lines, list items and rows by newlines,
    table cells by `` | ``; ``<pre>`` keeps its layout.

    Args:
        file_path: path to the file; kept as given in ``metadata["source"]``.
        open_encoding: codec name, applied strictly. Default None: a BOM, then
            ``<meta charset>``, UTF-8 and Windows-1252 (as for a fetched page without a
            charset header).
        drop_chrome: keyword-only; leave out site chrome. Default True (a page that is
            only chrome keeps it rather than giving nothing).

    Metadata: ``source``, then ``title``, ``description`` and ``language`` (``<html
    lang>``) when the page has them, as the web loaders give; and ``headings`` when the
    page has any: ``[offset, title, anchor]`` for each ``<h1>``-``<h6>`` in the text, in
    order (``offset`` in characters into ``page_content``; ``anchor`` the HTML id that
    links to it, its own or its section's, or None). The splitters turn it into each
    chunk's ``section`` and ``anchor`` (see :class:`splitters.TextSplitter`). And
    ``blocks`` when the page has text: ``[start, end, kind]`` for each structural block,
    in the order they begin (``start``/``end`` character offsets into ``page_content``,
    end exclusive; blocks nest, a list before its items). ``kind`` is one of
    ``"heading"`` (``<h1>``-``<h6>``), ``"paragraph"`` (``<p>``), ``"code"``
    (``<pre>``), ``"table"`` (its caption included), ``"list"`` (``<ul>``, ``<ol>``),
    ``"item"`` (``<li>``), ``"definitions"`` (``<dl>``) or ``"quote"``
    (``<blockquote>``); text outside these elements (a bare ``<div>``'s) is in no
    block. The splitters give each chunk those inside it, re-based to the chunk.

    >>> ReadableHTMLLoader("library/venv.html").load()  # doctest: +SKIP
    [Document(page_content='venv — Creation of virtual environments\n\n...',
              metadata={'source': 'library/venv.html', 'title': 'venv — ...', 'language': 'en'})]
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        open_encoding: str | None = None,
        *,
        drop_chrome: bool = True,
    ) -> None:
        self.file_path = file_path
        self.open_encoding = open_encoding
        self.drop_chrome = drop_chrome

    def lazy_load(self) -> Iterator[Document]:
        """Yield the single document."""
        source = str(self.file_path)
        html = decode_body(
            read_bytes(self.file_path),
            source=source,
            header_charset=None,
            encoding=self.open_encoding,
            autoset_encoding=True,
        )
        scan = scan_page(html, drop_chrome=self.drop_chrome)
        metadata: dict[str, Any] = {"source": source, **scan.metadata, **scan.structure()}
        yield Document(scan.text or "", metadata)
