"""Markdown split at headers, fenced code blocks and horizontal rules, whitespace kept."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rag.documents import Document
from splitters.base import check_header_pairs, check_text

__all__ = ["ExperimentalMarkdownSyntaxTextSplitter"]

_DEFAULT_HEADERS = {"#" * level: f"Header {level}" for level in range(1, 7)}
_HEADER = re.compile(r"(#{1,6}) (.*)")
_FENCE = re.compile(r"(?:```|~~~)(.*)")
_RULE = re.compile(r"(?:\*\*\*+|---+|___+)\n")
# Only lines starting with one of these can be a header, a fence or a rule.
_MARKUP_STARTS = frozenset("#`~*-_")


class ExperimentalMarkdownSyntaxTextSplitter:
    """Split Markdown into sections, code blocks and rule-separated parts, keeping whitespace.

    Lines are read as ``str.splitlines(keepends=True)`` reads them. A new Document starts at

    - a header line: ``#`` to ``######`` then a space, for the markers named in
      ``headers_to_split_on`` (``(marker, metadata_key)`` pairs; default all six levels as
      ``"Header 1"`` .. ``"Header 6"``). The header's text goes into ``metadata`` under its
      key, along with the enclosing headers' (a header ends those of its level and deeper);
    - a fenced code block (a line starting with ```` ``` ```` or ``~~~``, up to and including
      the next such line): one Document of its own, with ``metadata["Code"]`` the text after
      the opening fence (the language, ``""`` if none);
    - a horizontal rule line (``***``, ``---`` or ``___``, three or more, then a newline),
      which is dropped.

    Content keeps the source's exact text, newlines and indentation included; Documents
    that would be empty or whitespace only are skipped. ``strip_headers`` (default True)
    leaves header lines out; with False each header line starts its section's content.
    ``return_each_line`` (default False) gives one Document per non-blank line instead.

    Output equals LangChain 1.1.3's ``ExperimentalMarkdownSyntaxTextSplitter``, except that a
    code block never closed runs to the end of the text (CommonMark's rule); LangChain drops
    the whole rest of the document there. Each call returns a new list (LangChain returns
    one it clears on the next call).

    >>> splitter = ExperimentalMarkdownSyntaxTextSplitter()
    >>> text = "# Intro\\nHello\\n```py\\nx = 1\\n```\\n---\\nBye\\n"
    >>> [(d.page_content, d.metadata) for d in splitter.split_text(text)]
    [('Hello\\n', {'Header 1': 'Intro'}), ('```py\\nx = 1\\n```\\n', {'Code': 'py', 'Header 1': 'Intro'}), ('Bye\\n', {'Header 1': 'Intro'})]
    """

    def __init__(
        self,
        headers_to_split_on: Sequence[tuple[str, str]] | None = None,
        return_each_line: bool = False,
        strip_headers: bool = True,
    ) -> None:
        if headers_to_split_on:
            pairs = check_header_pairs(headers_to_split_on, _DEFAULT_HEADERS.__contains__,
                                       "(marker, name) pairs with markers '#' to '######', like ('#', 'Header 1')")
            self.splittable_headers: dict[str, Any] = dict(pairs)
        else:
            self.splittable_headers = dict(_DEFAULT_HEADERS)
        self.return_each_line = return_each_line
        self.strip_headers = strip_headers

    def split_text(self, text: str) -> list[Document]:
        """Split a Markdown string into Documents (see the class docstring)."""
        check_text(text)
        chunks = self._chunks(text)
        if self.return_each_line:
            return [
                Document(line, dict(metadata))
                for content, metadata in chunks
                for line in content.splitlines()
                if line and not line.isspace()
            ]
        return [Document(content, metadata) for content, metadata in chunks]

    def _chunks(self, text: str) -> list[tuple[str, dict[str, Any]]]:
        """(content, metadata) of each non-blank chunk, in order."""
        lines = text.splitlines(keepends=True)
        splittable = self.splittable_headers
        header_stack: list[tuple[int, str]] = []
        chunks: list[tuple[str, dict[str, Any]]] = []
        # The chunk being gathered is text[chunk_start:position].
        chunk_start = position = 0

        def complete(start: int, end: int, metadata: dict[str, Any]) -> None:
            content = text[start:end]
            if content and not content.isspace():
                for depth, title in header_stack:
                    key = splittable.get("#" * depth)
                    if key is not None:
                        metadata[key] = title
                chunks.append((content, metadata))

        index, count = 0, len(lines)
        while index < count:
            line = lines[index]
            index += 1
            line_start = position
            position += len(line)
            if line[:1] not in _MARKUP_STARTS:
                continue
            header = _HEADER.match(line)
            if header is not None and header.group(1) in splittable:
                complete(chunk_start, line_start, {})
                chunk_start = line_start if not self.strip_headers else position
                depth = len(header.group(1))
                for level, (open_depth, _) in enumerate(header_stack):
                    if open_depth >= depth:
                        del header_stack[level:]
                        break
                header_stack.append((depth, header.group(2)))
                continue
            fence = _FENCE.match(line)
            if fence is not None:
                complete(chunk_start, line_start, {})
                # Any fence line closes the block; none means it runs to the end.
                while index < count:
                    closing = lines[index]
                    index += 1
                    position += len(closing)
                    if closing.startswith(("```", "~~~")):
                        break
                complete(line_start, position, {"Code": fence.group(1)})
                chunk_start = position
                continue
            if _RULE.match(line):
                complete(chunk_start, line_start, {})
                chunk_start = position
        complete(chunk_start, position, {})
        return chunks
