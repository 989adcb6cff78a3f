"""Merging by searching for cut points, for the common case of the recursive splitter.

When lengths are characters (``len``), separators are kept and the separator is a literal
that cannot overlap itself, a chunk is a slice of the source between two cut points, and the
merge rule of :mod:`splitters._merge` only ever needs the last cut point at or before some
position, or the first one at or after it. ``str.find``/``str.rfind`` answer those directly,
so the cost is a few C calls per chunk instead of Python work per word.
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

    # Cut points are span_start, span_end and one position per occurrence: its start when
    # separators begin pieces, its end when they end them.
    if keep == "start":

        def first_after(position: int) -> int:
            found = find(separator, position + 1, span_end)
            return span_end if found < 0 else found

        def first_at_or_after(position: int) -> int:
            found = find(separator, position, span_end)
            return span_end if found < 0 else found

        def last_at_or_before(position: int) -> int:
            if position >= span_end:
                return span_end
            found = rfind(separator, span_start + 1, min(position + width, span_end))
            return span_start if found < 0 else found

    else:

        def first_after(position: int) -> int:
            found = find(separator, max(position - width + 1, span_start), span_end)
            return span_end if found < 0 else found + width

        def first_at_or_after(position: int) -> int:
            found = find(separator, max(position - width, span_start), span_end)
            return span_end if found < 0 else found + width

        def last_at_or_before(position: int) -> int:
            if position >= span_end:
                return span_end
            found = rfind(separator, span_start, position)
            return span_start if found < 0 else found + width

    def emit(first: int, stop: int) -> None:
        raw = text[first:stop]
        if strip:
            chunk = raw.strip()
            if not chunk:
                return
            if raw[0].isspace():
                first += len(raw) - len(raw.lstrip())
            raw = chunk
        chunks.append(raw)
        starts.append(first)

    window_start = window_end = span_start
    while True:
        if window_start == window_end:
            if window_end >= span_end:
                return
            piece_end = first_after(window_end)
            if piece_end - window_end >= chunk_size:
                too_long(window_end, piece_end)
                window_start = window_end = piece_end
            else:
                window_end = piece_end
            continue
        # Every piece up to the last cut within chunk_size of the window start fits.
        window_end = max(window_end, last_at_or_before(window_start + chunk_size))
        if window_end >= span_end:
            emit(window_start, window_end)
            return
        piece_end = first_after(window_end)
        emit(window_start, window_end)
        if piece_end - window_end >= chunk_size:
            too_long(window_end, piece_end)
            window_start = window_end = piece_end
            continue
        # Keep at most chunk_overlap, and little enough that the next piece fits.
        threshold = max(window_end - chunk_overlap, piece_end - chunk_size)
        if threshold > window_start:
            window_start = first_at_or_after(threshold)
        window_end = piece_end
