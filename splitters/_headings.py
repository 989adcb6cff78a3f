"""Where each chunk sits in its document: the ``headings`` a loader found (``[offset, title,
anchor]`` each, offsets into the document's text, in order; see
:class:`loaders.ReadableHTMLLoader`) become each chunk's ``section`` and ``anchor`` and the
headings inside it."""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, Sequence

__all__ = ["HEADINGS", "chunk_position"]

#: The metadata key a loader lists headings under.
HEADINGS = "headings"


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


def with_positions(metadata: dict, headings: Sequence, starts: Sequence[int], chunks: Sequence[str]) -> list[dict]:
    """``metadata`` for each chunk (``starts[i]`` its offset, ``chunks[i]`` its text) with its
    :func:`chunk_position`; the document's own ``headings`` list is not copied."""
    base = {key: value for key, value in metadata.items() if key != HEADINGS}
    return [{**base, **chunk_position(headings, start, len(chunk))} for start, chunk in zip(starts, chunks)]
