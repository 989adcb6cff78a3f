"""HTML files, parsed with beautifulsoup4."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from bs4 import BeautifulSoup

from loaders._files import decode, normalize_newlines, read_bytes
from loaders.base import BaseLoader
from rag import Document

__all__ = ["BSHTMLLoader"]


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
    ``<script>`` and ``<style>`` contents are not text.

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
