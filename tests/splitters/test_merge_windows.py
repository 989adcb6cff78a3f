"""The bisect merge yields exactly the windows of the one-piece-at-a-time rule."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from splitters._merge import merge_windows, prefix_sums


def _sequential_windows(lengths, separator_len, chunk_size, chunk_overlap):
    """The merge rule stated plainly, one piece at a time."""
    windows, first, total = [], 0, 0
    for index, length in enumerate(lengths):
        size = index - first
        if total + length + (separator_len if size else 0) > chunk_size and size:
            windows.append((first, index))
            while total > chunk_overlap or (
                total + length + (separator_len if index - first else 0) > chunk_size and total > 0
            ):
                total -= lengths[first] + (separator_len if index - first > 1 else 0)
                first += 1
        total += length + (separator_len if index - first else 0)
    if lengths:
        windows.append((first, len(lengths)))
    return windows


@settings(deadline=None, max_examples=100)
@given(
    lengths=st.lists(st.integers(0, 30), max_size=60),
    separator_len=st.integers(0, 3),
    chunk_size=st.integers(1, 60),
    overlap_fraction=st.floats(0, 1),
)
def test_windows_equal_the_sequential_rule(lengths, separator_len, chunk_size, overlap_fraction):
    chunk_overlap = int(chunk_size * overlap_fraction)
    windows = list(
        merge_windows(prefix_sums(lengths, separator_len), separator_len, chunk_size, chunk_overlap)
    )
    assert windows == _sequential_windows(lengths, separator_len, chunk_size, chunk_overlap)


def test_no_pieces_no_windows():
    assert list(merge_windows(prefix_sums([], 0), 0, 10, 0)) == []


def test_prefix_sums_count_one_separator_per_piece():
    assert prefix_sums([2, 3], 1) == [0, 3, 7]
