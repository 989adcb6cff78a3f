"""Markdown split at headers: one Document per section, headers as metadata."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rag.documents import Document
from rag.errors import ValidationError
from splitters.base import check_text

__all__ = ["MarkdownHeaderTextSplitter"]

# LangChain joins the lines of a section with a Markdown hard line break.
_LINE_BREAK = "  \n"


@dataclass
class _Block:
    """Consecutive content lines under the same headers."""

    content: str
    metadata: dict[str, str]


@dataclass
class _Header:
    level: int
    name: str


@dataclass
class _State:
    blocks: list[_Block] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    open_headers: list[_Header] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)  # headers in force now
    line_metadata: dict[str, str] = field(default_factory=dict)  # as of the previous line

    def flush(self) -> None:
        if self.lines:
            self.blocks.append(_Block("\n".join(self.lines), dict(self.line_metadata)))
            self.lines.clear()


class MarkdownHeaderTextSplitter:
    """Split Markdown at the headers named in ``headers_to_split_on``.

    ``headers_to_split_on`` is a list of ``(marker, metadata_key)`` pairs such as
    ``[("#", "Header 1"), ("##", "Header 2")]``; a line is that header when it starts with the
    marker followed by a space (or nothing). Each Document holds the text under one set of
    headers, with ``metadata`` mapping each enclosing header's key to its title. Lines inside
    fenced code (```` ``` ```` or ``~~~``) are never headers.

    ``return_each_line`` (default False) gives one Document per block of lines instead of
    merging blocks under the same headers; ``strip_headers`` (default True) leaves header
    lines out of the content. ``custom_header_patterns`` maps markers such as ``"**"`` to a
    level, so ``**Title**`` lines count as headers.

    Output equals LangChain 1.1.3's, except that lines inside fenced code keep their
    indentation and tabs (LangChain strips every line and drops non-printable characters,
    which breaks indented code and Makefiles).

    >>> splitter = MarkdownHeaderTextSplitter([("#", "Header 1"), ("##", "Header 2")])
    >>> [(d.page_content, d.metadata) for d in splitter.split_text("# A\\nintro\\n## B\\nbody")]
    [('intro', {'Header 1': 'A'}), ('body', {'Header 1': 'A', 'Header 2': 'B'})]
    """

    def __init__(
        self,
        headers_to_split_on: list[tuple[str, str]],
        return_each_line: bool = False,
        strip_headers: bool = True,
        custom_header_patterns: dict[str, int] | None = None,
    ) -> None:
        pairs = list(headers_to_split_on)
        for pair in pairs:
            if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str) and pair[0]):
                raise ValidationError(
                    f"headers_to_split_on must be (marker, name) pairs like ('#', 'Header 1'), "
                    f"got {pair!r}"
                )
        # Longest marker first, so "##" is not taken for "#".
        self.headers_to_split_on = sorted(pairs, key=lambda pair: len(pair[0]), reverse=True)
        self.return_each_line = return_each_line
        self.strip_headers = strip_headers
        self.custom_header_patterns = dict(custom_header_patterns or {})
        self._custom_regexes = {
            marker: re.compile(
                f"^{re.escape(marker)}(?!{re.escape(marker)})(.+?)"
                f"(?<!{re.escape(marker)}){re.escape(marker)}$"
            )
            for marker in self.custom_header_patterns
        }

    def _custom_title(self, line: str, marker: str) -> str | None:
        regex = self._custom_regexes.get(marker)
        if regex is None or not regex.match(line):
            return None
        inner = regex.match(line).group(1).strip()  # type: ignore[union-attr]
        if inner and not all(char in marker for char in inner.replace(" ", "")):
            return line[len(marker) : -len(marker)].strip()
        return None

    def _header(self, line: str) -> tuple[str, str | None, int] | None:
        """``(title, metadata key, level)`` if ``line`` is one of our headers."""
        for marker, name in self.headers_to_split_on:
            if line.startswith(marker) and (len(line) == len(marker) or line[len(marker)] == " "):
                title = line[len(marker) :].strip()
            else:
                title = self._custom_title(line, marker)
                if title is None:
                    continue
            level = self.custom_header_patterns.get(marker, marker.count("#"))
            return title, name, level
        return None

    def split_text(self, text: str) -> list[Document]:
        """Split a Markdown string into Documents (see the class docstring)."""
        check_text(text)
        state = _State()
        fence = ""
        for raw_line in text.split("\n"):
            line = "".join(filter(str.isprintable, raw_line.strip()))
            if not fence:
                # A line with two ``` is inline code, not a fence.
                if line.startswith("```") and line.count("```") == 1:
                    fence = "```"
                    state.lines.append(line)
                    continue
                if line.startswith("~~~"):
                    fence = "~~~"
                    state.lines.append(line)
                    continue
            elif line.startswith(fence):
                fence = ""
            else:
                state.lines.append(raw_line.rstrip("\r"))
                continue
            self._take_line(state, line)
            state.line_metadata = dict(state.metadata)
        state.flush()
        if self.return_each_line:
            return [Document(block.content, block.metadata) for block in state.blocks]
        return self._aggregate(state.blocks)

    def _take_line(self, state: _State, line: str) -> None:
        header = self._header(line)
        if header is None:
            if line:
                state.lines.append(line)
            else:
                state.flush()  # a blank line ends a block
            return
        title, name, level = header
        if name is not None:
            while state.open_headers and state.open_headers[-1].level >= level:
                state.metadata.pop(state.open_headers.pop().name, None)
            state.open_headers.append(_Header(level, name))
            state.metadata[name] = title
        state.flush()
        if not self.strip_headers:
            state.lines.append(line)

    def _aggregate(self, blocks: list[_Block]) -> list[Document]:
        merged: list[_Block] = []
        for block in blocks:
            previous = merged[-1] if merged else None
            if previous is not None and previous.metadata == block.metadata:
                previous.content += _LINE_BREAK + block.content
            elif (
                previous is not None
                and not self.strip_headers
                and len(previous.metadata) < len(block.metadata)
                and previous.content.split("\n")[-1][:1] == "#"
            ):
                # A kept header line alone before its first sub-section joins that section.
                previous.content += _LINE_BREAK + block.content
                previous.metadata = block.metadata
            else:
                merged.append(_Block(block.content, block.metadata))
        return [Document(block.content, block.metadata) for block in merged]
