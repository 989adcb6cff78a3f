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

from dataclasses import replace
from typing import Any, Optional, Sequence

from rag.chains.units import (
    _CONTINUATION,
    _WORD,
    Unit,
    UnitKind,
    _cut,
    _introduces,
    _is_contents,
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
                or block[2] not in KNOWN_KINDS or not 0 <= block[0] <= block[1] <= length):
            return None
        spans.append((block[0], block[1], block[2]))
    return sorted(spans, key=lambda span: (span[0], -span[1]))


def _outer(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The blocks read as units: headings, prose, and whole blocks, leaving out what a whole
    block or definition list holds (its items, its paragraphs)."""
    kept: list[tuple[int, int, str]] = []
    holder_end = -1
    for start, end, kind in spans:
        if start < holder_end:
            continue  # inside a table, list, code block or definition list already read whole
        if kind == "item":
            kind = "list"  # an item outside any list is a list of one
        kept.append((start, end, kind))
        if kind in _WHOLE or kind == "definitions":
            holder_end = end
    return kept


def _with_gaps(text: str, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """``spans`` with the stretches between them that hold text, as kind ``text``."""
    filled: list[tuple[int, int, str]] = []
    position = 0
    for start, end, kind in spans:
        if start > position and text[position:start].strip():
            filled.append((position, start, "text"))
        filled.append((start, end, kind))
        position = max(position, end)
    if text[position:].strip():
        filled.append((position, len(text), "text"))
    return filled


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
    for number, (start, end, kind) in enumerate(_with_gaps(text, _outer(spans))):
        if kind == "heading":
            lead, last_sentence = 0, None
        elif kind in _PROSE:
            kept = False
            for s_start, s_end, flat in _sentences(text, start, end):
                kept = not (_CONTINUATION.match(flat) or flat.endswith("?"))
                if kept:
                    units.append(Unit("sentence", s_start, s_end, flat, number, lead=lead))
                    lead = None if lead is None else lead + 1
            last_sentence = len(units) - 1 if kept else None
        elif kind in _WHOLE:
            block_text = text[start:end].strip("\n")
            start += len(text[start:end]) - len(text[start:end].lstrip("\n"))
            if len(_WORD.findall(block_text)) < 2:
                last_sentence = None
                continue
            owner = last_sentence if last_sentence is not None and _introduces(units[last_sentence].text) else None
            if kind == "list" and owner is None and _is_contents(block_text):
                last_sentence = None
                continue
            quoted = _cut(block_text)
            first_line = block_text.split("\n", 1)[0].strip()
            unit = Unit(_WHOLE[kind], start, start + len(quoted), quoted, number, owner, label=first_line)
            # Only a numbered caption ("Table 13.2. Conflicting Lock Modes") is kept as a label.
            units.append(unit if caption_number(unit) else replace(unit, label=""))
            last_sentence = None
        else:  # a definition list or uncovered text: the plain-text rules, on the slice
            inner = text_units(text[start:end], _local(headings, start, end), titles)
            units.extend(_shifted(inner, start, len(units), number))
            last_sentence = len(units) - 1 if inner and inner[-1].kind == "sentence" else None
    return _referenced_blocks(units)


def _local(headings: Optional[Sequence[Any]], start: int, end: int) -> list[list[Any]]:
    """The ``headings`` that begin inside ``[start, end)``, with offsets relative to ``start``."""
    if not isinstance(headings, (list, tuple)):
        return []
    return [[h[0] - start, *h[1:]] for h in headings
            if isinstance(h, (list, tuple)) and h and isinstance(h[0], int) and start <= h[0] < end]
