"""Where each chunk sits in its document: the ``headings`` a loader found (``[offset, title,
anchor]`` each, offsets into the document's text, in order; see
:class:`loaders.ReadableHTMLLoader`) become each chunk's ``section`` and ``anchor`` and the
headings inside it; the ``blocks`` it found (``[start, end, kind]`` each) become the blocks
inside each chunk, clipped to it and re-based to its text."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any, Sequence

__all__ = ["HEADINGS", "BLOCKS", "chunk_position", "chunk_blocks", "with_positions", "join_blocks"]

#: The metadata key a loader lists headings under.
HEADINGS = "headings"
#: The metadata key a loader lists the structural blocks of the text under.
BLOCKS = "blocks"


def _valid(headings: Any) -> list[tuple[int, str, Any]]:
    """The well-formed entries of ``headings`` sorted by offset (a hand-made list may be
    neither; a malformed one gives no position rather than a failed split)."""
    if not isinstance(headings, (list, tuple)):
        return []
    rows = [(h[0], h[1], h[2]) for h in headings
            if isinstance(h, (list, tuple)) and len(h) == 3 and isinstance(h[0], int) and isinstance(h[1], str)]
    return sorted(rows, key=lambda row: row[0])


def chunk_position(headings: Any, start: int, length: int) -> dict[str, Any]:
    """The metadata a chunk of ``length`` characters at offset ``start`` of its document
    gets: ``section`` and ``anchor``, the last heading that begins at or before ``start``
    (anchor only when it has one), and ``headings``, those that begin inside the chunk
    with offsets relative to its text. Keys without a value are left out.

    >>> chunk_position([[0, "Intro", "intro"], [50, "Usage", None]], 10, 60)
    {'section': 'Intro', 'anchor': 'intro', 'headings': [[40, 'Usage', None]]}
    """
    rows = _valid(headings)
    offsets = [row[0] for row in rows]
    position: dict[str, Any] = {}
    before = bisect_right(offsets, start) - 1
    if before >= 0:
        position["section"] = rows[before][1]
        if rows[before][2] is not None:
            position["anchor"] = rows[before][2]
    inside = [[offset - start, title, anchor] for offset, title, anchor in rows[before + 1:]
              if offset < start + length]
    if inside:
        position[HEADINGS] = inside
    return position


def _valid_blocks(blocks: Any) -> list[tuple[int, int, str]]:
    """The well-formed ``[start, end, kind]`` entries of ``blocks`` (start < end) in the
    order they begin, an enclosing block first; a malformed list gives none."""
    if not isinstance(blocks, (list, tuple)):
        return []
    rows = [(b[0], b[1], b[2]) for b in blocks
            if isinstance(b, (list, tuple)) and len(b) == 3 and type(b[0]) is int and type(b[1]) is int
            and isinstance(b[2], str) and b[0] < b[1]]
    return sorted(rows, key=lambda row: (row[0], -row[1]))


def chunk_blocks(blocks: Any, spans: Sequence[tuple[int, int]]) -> list[list[list]]:
    """For each chunk span ``(start, length)`` (in document order, as a splitter gives
    them), the ``blocks`` that overlap it as ``[start, end, kind]`` relative to the
    chunk's text, clipped to it (a paragraph cut by the chunk boundary keeps the part
    inside). One sweep over the blocks: a 50 MB page's blocks are not scanned per chunk.

    >>> chunk_blocks([[0, 30, "list"], [0, 10, "item"], [11, 30, "item"]], [(0, 20), (15, 15)])
    [[[0, 20, 'list'], [0, 10, 'item'], [11, 20, 'item']], [[0, 15, 'list'], [0, 15, 'item']]]
    """
    rows = _valid_blocks(blocks)
    begins = [row[0] for row in rows]
    result: list[list[list]] = []
    passed = 0  # rows[:passed] begin before the current chunk
    open_rows: list[tuple[int, int, str]] = []  # those of them that may still reach into it
    previous = -1
    for start, length in spans:
        if start < previous:  # not in document order: sweep again from the beginning
            passed, open_rows = 0, []
        previous = start
        end = start + length
        while passed < len(rows) and rows[passed][0] < start:
            open_rows.append(rows[passed])
            passed += 1
        open_rows = [row for row in open_rows if row[1] > start]
        inside = rows[passed:bisect_left(begins, end, lo=passed)]
        result.append([[max(b_start, start) - start, min(b_end, end) - start, kind]
                       for b_start, b_end, kind in open_rows + inside])
    return result


def with_positions(metadata: dict, headings: Any, starts: Sequence[int], chunks: Sequence[str]) -> list[dict]:
    """``metadata`` for each chunk (``starts[i]`` its offset, ``chunks[i]`` its text) with its
    :func:`chunk_position` and, when the document lists ``blocks``, those inside it
    (:func:`chunk_blocks`; the key is left out of a chunk that holds none). The
    document's own ``headings`` and ``blocks`` lists are not copied."""
    base = {key: value for key, value in metadata.items() if key not in (HEADINGS, BLOCKS)}
    per_chunk = [{**base, **chunk_position(headings, start, len(chunk))} for start, chunk in zip(starts, chunks)]
    blocks = metadata.get(BLOCKS)
    if blocks is not None:
        for chunk_metadata, inside in zip(per_chunk, chunk_blocks(blocks, [(s, len(c)) for s, c in zip(starts, chunks)])):
            if inside:
                chunk_metadata[BLOCKS] = inside
    return per_chunk


def join_blocks(parts: Sequence[tuple[int, int, Any]]) -> list[list]:
    """The blocks of a text joined from overlapping chunks of one document: ``parts`` is
    ``(offset, length, blocks)`` for each chunk, in order of offset (``offset``: where the
    chunk begins in the joined text; ``length``: its length; ``blocks``: its ``blocks``
    metadata). A block the chunks before held already is listed once; a block cut by their
    end and continued by the next chunk becomes one span again.

    >>> join_blocks([(0, 10, [[0, 10, "paragraph"]]), (6, 14, [[0, 9, "paragraph"], [11, 14, "code"]])])
    [[0, 15, 'paragraph'], [17, 20, 'code']]
    """
    joined: list[list] = []
    text_end = 0  # where the text of the chunks so far ends
    for offset, length, blocks in parts:
        continued: set[int] = set()
        for start, end, kind in _valid_blocks(blocks):
            start, end = start + offset, end + offset
            if end <= text_end:
                continue  # within the text so far: the chunks before held it (whole or cut as here)
            # A block across the previous end was held cut at it: the same kind, ending
            # there and beginning at or before this one (outer blocks pair first).
            match = None if start > text_end else next(
                (n for n, row in enumerate(joined)
                 if n not in continued and row[2] == kind and row[1] == text_end and row[0] <= start), None)
            if match is None:
                joined.append([start, end, kind])
            else:
                joined[match][1] = end
                continued.add(match)
        text_end = max(text_end, offset + length)
    return sorted(joined, key=lambda row: (row[0], -row[1]))
