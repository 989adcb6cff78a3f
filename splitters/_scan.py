"""Merging by searching for cut points, for the common case of the recursive splitter.

When lengths are characters (``len``), separators are kept and the separator is a literal
that cannot overlap itself, a chunk is a slice of the source between two cut points, and the
merge rule of :mod:`splitters._merge` only ever needs the last cut point at or before some
position, or the first one after it. ``str.find``/``str.rfind`` answer those directly, so
the cost is a few C calls per chunk instead of Python work per word.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["scan_merge"]


def scan_merge(
    text: str,
    span_start: int,
    span_end: int,
    separator: str,
    keep: str,
    chunk_size: int,
    chunk_overlap: int,
    strip: bool,
    chunks: list[str],
    starts: list[int],
    too_long: Callable[[int, int], None],
) -> None:
    """Merge the pieces of ``text[span_start:span_end]`` cut at ``separator`` into chunks.

    ``keep`` is ``"start"`` or ``"end"``. Chunks and their offsets are appended to
    ``chunks``/``starts``; a piece of ``chunk_size`` or more is handed to
    ``too_long(piece_start, piece_end)`` in its place, as LangChain recurses into it.
    """
    width = len(separator)
    find = text.find
    rfind = text.rfind
    add_chunk = chunks.append
    add_start = starts.append
    # Cut points are span_start, span_end and one position per occurrence: its start when
    # separators begin pieces, its end when they end them. With occurrence p at cut
    # p + shift, "first cut after x" searches from x + after, "first cut at or after x"
    # from x + at, and "last cut at or before x" searches up to x + before (exclusive),
    # never below lowest.
    if keep == "start":
        shift, after, at, before, lowest = 0, 1, 0, width, span_start + 1
    else:
        shift, after, at, before, lowest = width, 1 - width, -width, 0, span_start

    window_start = window_end = span_start
    while True:
        if window_start == window_end:
            if window_end >= span_end:
                return
            low = window_end + after
            found = find(separator, low if low > span_start else span_start, span_end)
            piece_end = span_end if found < 0 else found + shift
            if piece_end - window_end >= chunk_size:
                too_long(window_end, piece_end)
                window_start = piece_end
            window_end = piece_end
            continue
        # Every piece up to the last cut within chunk_size of the window start fits.
        limit = window_start + chunk_size
        if limit >= span_end:
            window_end = span_end
        else:
            high = limit + before
            found = rfind(separator, lowest, high if high < span_end else span_end)
            if found >= 0 and found + shift > window_end:
                window_end = found + shift
        if window_end < span_end:
            low = window_end + after
            found = find(separator, low if low > span_start else span_start, span_end)
            piece_end = span_end if found < 0 else found + shift
        raw = text[window_start:window_end]
        if strip:
            stripped = raw.lstrip()
            if stripped:
                add_chunk(stripped.rstrip())
                add_start(window_start + len(raw) - len(stripped))
        else:
            add_chunk(raw)
            add_start(window_start)
        if window_end >= span_end:
            return
        if piece_end - window_end >= chunk_size:
            too_long(window_end, piece_end)
            window_start = window_end = piece_end
            continue
        # Keep at most chunk_overlap, and little enough that the next piece fits.
        threshold = window_end - chunk_overlap
        if piece_end - chunk_size > threshold:
            threshold = piece_end - chunk_size
        if threshold > window_start:
            low = threshold + at
            found = find(separator, low if low > span_start else span_start, span_end)
            window_start = span_end if found < 0 else found + shift
        window_end = piece_end
