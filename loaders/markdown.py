"""Markdown files, read as text with heading markers removed."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from loaders._files import read_text
from loaders._markdown_blocks import markdown_blocks
from loaders.base import BaseLoader
from rag import Document

__all__ = ["MarkdownLoader", "markdown_to_text"]

_ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_FRONT_MATTER_END = ("---", "...")


@dataclass
class MarkdownText:
    """The result of :func:`markdown_to_text`: ``headings`` (``[offset, title, None]``
    each) and ``blocks`` (``[start, end, kind]`` each) locate the structure in ``text``
    as :class:`loaders.ReadableHTMLLoader` does for a page."""

    text: str
    title: str
    front_matter: str | None
    headings: list[list] = field(default_factory=list)
    blocks: list[list] = field(default_factory=list)


def markdown_to_text(markdown: str) -> MarkdownText:
    """Remove heading markers and code fences; keep every other line as written.

    ATX headings (``## Setup ##``) and setext headings (a line underlined with ``===`` or
    ``---``) become plain lines; fence lines are dropped but code inside is kept verbatim
    and never read as headings. A YAML front matter block (``---`` on the first line) is
    taken out of the text and returned whole. ``title`` is the first heading's text, or
    ``""``.

    >>> markdown_to_text("# Guide\\n\\nRun it.").text
    'Guide\\n\\nRun it.'
    """
    lines = markdown.split("\n")
    front_matter = None
    if lines and lines[0].rstrip() == "---":
        for end in range(1, len(lines)):
            if lines[end].rstrip() in _FRONT_MATTER_END:
                front_matter = "\n".join(lines[1:end])
                lines = lines[end + 1 :]
                break
    kept: list[str] = []
    roles: list[tuple[str, int]] = []  # for each kept line: code, heading or text, and its run
    run = 0
    title = ""
    fence: str | None = None
    # Whether the last kept line is paragraph text, the only thing a setext underline can
    # turn into a heading (after code, a heading or a blank line, "---" is a rule).
    in_paragraph = False
    for line in lines:
        fence_match = _FENCE.match(line)
        if fence is not None:
            if _closes(fence, line):
                fence = None
            else:
                kept.append(line)
                roles.append(("code", run))
            continue
        if fence_match:
            fence = fence_match.group(1)
            run += 1
            in_paragraph = False
            continue
        heading = _ATX_HEADING.match(line)
        if heading:
            text = (heading.group(2) or "").strip()
            title = title or text
            kept.append(text)
            run += 1
            roles.append(("heading", run))
            in_paragraph = False
            continue
        if in_paragraph and _SETEXT_UNDERLINE.match(line):
            title = title or kept[-1].strip()
            run += 1
            # The paragraph's lines above the underline are the heading.
            first = len(kept) - 1
            while first > 0 and roles[first - 1][0] == "text" and kept[first - 1].strip():
                first -= 1
            roles[first:] = [("heading", run)] * (len(kept) - first)
            in_paragraph = False
            continue
        kept.append(line)
        roles.append(("text", run))
        in_paragraph = bool(line.strip()) and _is_paragraph_line(line)
    text = "\n".join(kept)
    blocks = markdown_blocks(kept, roles)
    headings = [[start, " ".join(text[start:end].split()), None] for start, end, kind in blocks if kind == "heading"]
    return MarkdownText(text, title, front_matter, headings, blocks)


def _closes(fence: str, line: str) -> bool:
    # A fence closes only with a run of the same character at least as long as the opener,
    # and nothing else on the line.
    stripped = line.strip()
    return (
        len(stripped) >= len(fence)
        and set(stripped) == {fence[0]}
        and len(line) - len(line.lstrip(" ")) <= 3
    )


def _is_paragraph_line(line: str) -> bool:
    # "- item" followed by "---" is a list then a rule, not a heading.
    stripped = line.lstrip()
    return not re.match(r"([-*+]|\d+[.)])(\s|$)|>", stripped)


class MarkdownLoader(BaseLoader):
    """One document with a Markdown file's text, headings kept as plain lines.

    LangChain's ``UnstructuredMarkdownLoader`` needs the unstructured package; this loader
    needs nothing. Inline markup (emphasis, links) is kept; use :class:`TextLoader` when a
    splitter needs the raw Markdown (for example to split on headings).

    Args:
        file_path: path to the file; kept as given in ``metadata["source"]``.
        encoding: keyword-only codec name; default None means UTF-8.
        autodetect_encoding: keyword-only; on a decode failure, detect the encoding.

    Metadata: ``source``, ``title`` (first heading, ``""`` if none), when the file
    starts with YAML front matter, ``front_matter`` (its raw text), and the text's
    structure as the HTML loaders give it: ``headings`` (``[offset, title, None]``;
    renderers disagree on anchors, so none is made up) and ``blocks`` (``[start, end,
    kind]``: heading, paragraph, code, table, list, item, quote), each when there is any.

    >>> MarkdownLoader("README.md").load()[0].metadata  # doctest: +SKIP
    {'source': 'README.md', 'title': 'Project'}
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        *,
        encoding: str | None = None,
        autodetect_encoding: bool = False,
    ) -> None:
        self.file_path = file_path
        self.encoding = encoding
        self.autodetect_encoding = autodetect_encoding

    def lazy_load(self) -> Iterator[Document]:
        """Yield the single document."""
        source = str(self.file_path)
        raw = read_text(self.file_path, encoding=self.encoding, autodetect_encoding=self.autodetect_encoding)
        parsed = markdown_to_text(raw)
        metadata = {"source": source, "title": parsed.title}
        if parsed.front_matter is not None:
            metadata["front_matter"] = parsed.front_matter
        if parsed.headings:
            metadata["headings"] = parsed.headings
        if parsed.blocks:
            metadata["blocks"] = parsed.blocks
        yield Document(parsed.text, metadata)
