"""Greedy merging of small pieces into chunks, by binary search on prefix sums.

LangChain's ``_merge_splits`` walks the pieces one at a time, re-measuring and re-slicing
its window for every piece. The window rule it implements is simple, though:

- a chunk is emitted when adding the next piece (plus one separator) would exceed
  ``chunk_size``;
- the window then drops pieces from its front while it is longer than ``chunk_overlap``,
  or while the next piece still would not fit (and the window is not empty of length).

With ``prefix[k]`` = sum of (piece length + separator length) over the first ``k`` pieces,
the window of pieces ``[i, j)`` measures ``prefix[j] - prefix[i] - separator_len``, and both
rules become monotone conditions on ``prefix``: each chunk costs a few ``bisect`` calls
instead of a Python loop over its pieces. The windows are exactly LangChain's.
"""

from __future__ import annotations

import logging
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate

__all__ = ["merge_windows", "prefix_sums"]

logger = logging.getLogger("splitters")


def prefix_sums(lengths: Sequence[int], separator_len: int) -> list[int]:
    """``[0, l0+s, l0+l1+2s, ...]``: the running length of pieces each followed by a separator."""
    if separator_len:
        return list(accumulate(map(separator_len.__add__, lengths), initial=0))
    return list(accumulate(lengths, initial=0))


def merge_windows(
    prefix: list[int], separator_len: int, chunk_size: int, chunk_overlap: int
) -> Iterator[tuple[int, int]]:
    """Yield the half-open piece ranges ``(i, j)`` LangChain merges into chunks, in order.

    ``prefix`` comes from :func:`prefix_sums` (``len(prefix) == pieces + 1``). A window
    longer than ``chunk_size`` (a single piece too long to fit) is logged as a warning, as
    LangChain does.
    """
    count = len(prefix) - 1
    if count <= 0:
        return
    fits_after_start = separator_len + chunk_size
    start = 0
    last_emitted_end = 0
    while True:
        # First j (past everything already decided) where piece j no longer fits.
        end = bisect_right(prefix, prefix[start] + fits_after_start, start + 1) - 1
        if end <= last_emitted_end:
            end = last_emitted_end + 1
        if end >= count:
            yield start, count
            return
        if prefix[end] - prefix[start] - separator_len > chunk_size:
            logger.warning(
                "Created a chunk of size %d, which is longer than the specified %d",
                prefix[end] - prefix[start] - separator_len,
                chunk_size,
            )
        yield start, end
        window_end = prefix[end] - separator_len
        # Drop from the front while longer than the overlap...
        keep_overlap = bisect_left(prefix, window_end - chunk_overlap, start, end)
        # ...or while the next piece would not fit and the window still has length.
        next_fits = bisect_left(
            prefix, min(prefix[end + 1] - fits_after_start, window_end), start, end
        )
        start = keep_overlap if keep_overlap > next_fits else next_fits
        last_emitted_end = end
