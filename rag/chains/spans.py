"""Answer units read from the block spans a loader recorded (``metadata["blocks"]``:
``[start, end, kind]``, offsets into the passage's text, kinds ``heading``, ``paragraph``,
``code``, ``table``, ``list``, ``item``, ``definitions``, ``quote``), instead of guessed
from blank lines and punctuation.

Headings are never quoted; paragraphs and quotes are cut into sentences; a code block,
table or list is one unit (up to :data:`~rag.chains.units.MAX_BLOCK_LINES` lines), owned
by the sentence just before it when that sentence introduces it (it ends with a colon or
without a full stop, or points at it: "the following"); a definition list is read as
terms and their sentences. Blocks nested in a quoted block (a list's items, a table's
paragraphs) are part of it. Text no block covers (a chunk cut inside a block, or text
loose in a ``div``) is read by the plain-text rules of :func:`~rag.chains.units.text_units`.
"""

from __future__ import annotations

import bisect
from dataclasses import replace
from typing import Any, Optional, Sequence

from rag.chains.units import (
    _CONTINUATION,
    _MIN_OPEN_WORDS,
    _WORD,
    Unit,
    UnitKind,
    _cut,
    _introduces,
    _is_contents,
    _is_title,
    _referenced_blocks,
    _sentences,
    caption_number,
    text_units,
)

__all__ = ["block_spans", "span_units"]

_PROSE = frozenset({"paragraph", "quote"})
_WHOLE: dict[str, UnitKind] = {"code": "code", "table": "table", "list": "list"}
KNOWN_KINDS = frozenset({"heading", "paragraph", "code", "table", "list", "item", "definitions", "quote"})


def block_spans(blocks: Any, length: int) -> Optional[list[tuple[int, int, str]]]:
    """``blocks`` (metadata) as sorted ``(start, end, kind)``, outer blocks before the ones
    they hold; None when it is not a list of ``[start, end, kind]`` inside ``[0, length]``
    with known kinds (metadata is the caller's: then the text is read without it)."""
    if not isinstance(blocks, (list, tuple)) or not blocks:
        return None
    spans = []
    for block in blocks:
        if (not isinstance(block, (list, tuple)) or len(block) < 3 or not all(isinstance(b, int) and not isinstance(b, bool)
                                                                             for b in block[:2])
                or not isinstance(block[2], str) or block[2] not in KNOWN_KINDS
                or not 0 <= block[0] <= block[1] <= length):
            return None
        spans.append((block[0], block[1], block[2]))
    return sorted(spans, key=lambda span: (span[0], -span[1]))


def _outer(spans: list[tuple[int, int, str]]) -> tuple[list[tuple[int, int, str]], list[tuple[int, int]]]:
    """The blocks read as units: headings, prose, and whole blocks, leaving out what a whole
    block holds (its items, its paragraphs); and the ranges of the definition lists, whose
    own blocks (a definition's paragraphs and examples) are read one by one."""
    kept: list[tuple[int, int, str]] = []
    definitions: list[tuple[int, int]] = []
    holder_end = -1
    for start, end, kind in spans:
        if start < holder_end:
            continue  # inside a table, list or code block already read whole
        if kind == "definitions":
            if definitions and start <= definitions[-1][1] + 2:
                # One list cut in two (a passage joined from chunks, a blank line apart): one range.
                definitions[-1] = (definitions[-1][0], max(end, definitions[-1][1]))
            else:
                definitions.append((start, end))
            continue
        if kind == "item":
            kind = "list"  # an item outside any list is a list of one
        kept.append((start, end, kind))
        if kind in _WHOLE:
            holder_end = end
    return kept, definitions


def _enclosing(ranges: Sequence[tuple[int, int]], first: int, last: int) -> Optional[int]:
    """The end of the range of ``ranges`` (sorted, not overlapping) that holds ``[first,
    last]``, or None; by bisection, as a page may hold thousands of definition lists."""
    index = bisect.bisect_right(ranges, (first, float("inf"))) - 1
    if index >= 0 and ranges[index][0] <= first and last <= ranges[index][1]:
        return ranges[index][1]
    return None


def _with_gaps(text: str, spans: list[tuple[int, int, str]],
               definitions: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int, str]]:
    """``spans`` with the stretches between them that hold text, as kind ``text``, or
    ``term`` inside a definition list (the terms are what no block of it covers)."""
    filled: list[tuple[int, int, str]] = []
    position = 0

    def gap(start: int, end: int) -> None:
        stretch = text[start:end]
        if stretch.strip():
            first, last = start + len(stretch) - len(stretch.lstrip()), start + len(stretch.rstrip())
            if _enclosing(definitions, first, last) is not None:
                filled.append((first, last, "term"))
            else:
                filled.append((start, end, "text"))

    for start, end, kind in spans:
        if start > position:
            gap(position, start)
        filled.append((start, end, kind))
        position = max(position, end)
    gap(position, len(text))
    return filled


# A definition list's term: a few short lines that do not end like a statement
# ("work_mem (integer)", "-a, --all", "Undo a commit and redo").
_TERM_LINES, _TERM_WORDS = 3, 16


def _is_term(stretch: str) -> bool:
    lines = [line.strip() for line in stretch.split("\n") if line.strip()]
    return 0 < len(lines) <= _TERM_LINES and all(len(line.split()) <= _TERM_WORDS and not line.endswith((".", "!", "?"))
                                                  for line in lines)


def _statements(block: str) -> bool:
    """Whether a list's items (lines) are statements ("This commits all other changes in
    the index."): every one of four words or more, most ending with a full stop; each can
    answer on its own, unlike a list of terms, values or steps written as fragments."""
    lines = [line.strip() for line in block.split("\n") if line.strip()]
    closed = sum(line.endswith((".", "!")) for line in lines)
    return bool(lines) and closed * 2 > len(lines) and all(len(_WORD.findall(line)) >= 4 for line in lines)


def _shifted(units: list[Unit], offset: int, first: int, block: int) -> list[Unit]:
    """Units of a slice as units of the whole: offsets moved by ``offset``, owners by
    ``first`` (the number of units before them), all in ``block``."""
    return [replace(unit, start=unit.start + offset, end=unit.end + offset, block=block,
                    owner=None if unit.owner is None else unit.owner + first) for unit in units]


def span_units(text: str, blocks: Any, headings: Optional[Sequence[Any]] = None,
               titles: Sequence[str] = ()) -> Optional[list[Unit]]:
    """The units of ``text`` read from its ``blocks`` (see the module docstring), in order;
    None when ``blocks`` is missing or not well formed. ``headings`` and ``titles`` as for
    :func:`~rag.chains.units.text_units` (they apply to the uncovered stretches).

    >>> text = "Run this:\\n\\nmake test\\n\\nIt is quick."
    >>> [(u.kind, u.text) for u in span_units(text, [[0, 9, "paragraph"], [11, 20, "code"], [22, 34, "paragraph"]])]
    [('sentence', 'Run this:'), ('code', 'make test'), ('sentence', 'It is quick.')]
    """
    spans = block_spans(blocks, len(text))
    if spans is None:
        return None
    units: list[Unit] = []
    last_sentence: Optional[int] = None  # the sentence a following block would belong to
    lead: Optional[int] = None  # sentences since the last heading
    caption = ""  # a short fragment just before a block: its caption ("Table 8.2. Numeric Types")
    named = {" ".join(title.split()) for title in titles if isinstance(title, str) and title.strip()}
    label, label_end = "", -1  # the definition list's term the next blocks define ("work_mem (integer)")
    term_start: Optional[int] = None  # where the term of the definition that has not begun yet starts
    outer, definitions = _outer(spans)
    for number, (start, end, kind) in enumerate(_with_gaps(text, outer, definitions)):
        if start >= label_end:
            label, term_start = "", None  # past the definition list: its term defines nothing here
        if kind == "term" and _is_term(text[start:end]):
            # A term is no answer: it labels its definition's sentences and blocks.
            label, caption, last_sentence = " ".join(text[start:end].split()), "", None
            label_end = _enclosing(definitions, start, end) or end
            term_start = start
            continue
        if (kind == "list" and _statements(text[start:end])
                and not (last_sentence is not None and _introduces(units[last_sentence].text))):
            kind = "paragraph"  # a list of statements no sentence announces reads as prose
        if kind in _PROSE and _is_title(text[start:end], named):
            kind = "heading"  # the page's title line ("CREATE INDEX \u2014 define a new index")
        if kind == "heading":
            lead, last_sentence, label = 0, None, ""
        elif kind in _PROSE:
            found = _sentences(text, start, end)
            if not found and term_start is not None and text[start:end].strip():
                # A definition written as a fragment ("require" / "only try an encrypted
                # connection") is quoted with its term, as a first sentence is.
                end = start + len(text[start:end].rstrip())
                quoted = " ".join(text[term_start:end].split())
                units.append(Unit("sentence", term_start, end, quoted, number, label=label, lead=lead))
                lead, term_start, last_sentence = None if lead is None else lead + 1, None, len(units) - 1
                continue
            if not found and len(_WORD.findall(text[start:end])) <= _MIN_OPEN_WORDS:
                # A short fragment (a caption) labels the block after it and keeps the
                # sentence that introduces that block.
                caption = " ".join(text[start:end].split())
                continue
            kept = False
            for s_start, s_end, flat in found:
                kept = not (_CONTINUATION.match(flat) or flat.endswith("?"))
                if kept and term_start is not None and not text[start:s_start].strip():
                    # A definition's first sentence is quoted with its term: "git cherry-pick
                    # master Apply the change ..." says what the command does; alone it does not.
                    quoted = " ".join(text[term_start:s_end].split())
                    units.append(Unit("sentence", term_start, s_end, quoted, number, label=label, lead=lead))
                    lead = None if lead is None else lead + 1
                elif kept:
                    units.append(Unit("sentence", s_start, s_end, flat, number, label=label, lead=lead))
                    lead = None if lead is None else lead + 1
                term_start = None
            last_sentence = len(units) - 1 if kept else None
        elif kind in _WHOLE:
            block_text = text[start:end].strip("\n")
            start += len(text[start:end]) - len(text[start:end].lstrip("\n"))
            if len(_WORD.findall(block_text)) < 2:
                last_sentence, caption, term_start = None, "", None
                continue
            owner = last_sentence if last_sentence is not None and _introduces(units[last_sentence].text) else None
            if kind == "list" and owner is None and _is_contents(block_text):
                last_sentence, caption, term_start = None, "", None
                continue
            quoted = _cut(block_text)
            first_line = block_text.split("\n", 1)[0].strip()
            named_by = caption or label
            unit = Unit(_WHOLE[kind], start, start + len(quoted), quoted, number, owner, label=named_by or first_line)
            # A caption or term labels its block; a first line only when it is a numbered
            # caption ("Table 13.2. Conflicting Lock Modes" inside the block).
            units.append(unit if named_by or caption_number(unit) else replace(unit, label=""))
            last_sentence = None
        else:  # uncovered text (or a term too long to be one): the plain-text rules, on the slice
            inner = text_units(text[start:end], _local(headings, start, end), titles)
            units.extend(_shifted(inner, start, len(units), number))
            last_sentence = len(units) - 1 if inner and inner[-1].kind == "sentence" else None
        caption, term_start = "", None
    return _referenced_blocks(units)


def _local(headings: Optional[Sequence[Any]], start: int, end: int) -> list[list[Any]]:
    """The ``headings`` that begin inside ``[start, end)``, with offsets relative to ``start``."""
    if not isinstance(headings, (list, tuple)):
        return []
    return [[h[0] - start, *h[1:]] for h in headings
            if isinstance(h, (list, tuple)) and h and isinstance(h[0], int) and start <= h[0] < end]
