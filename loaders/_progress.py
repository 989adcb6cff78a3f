"""The tqdm progress bar of the loaders that take ``show_progress`` (the ``progress`` extra)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rag._optional import require

__all__ = ["check_show_progress", "progress_bar"]


def check_show_progress(show_progress: bool) -> bool:
    """``show_progress`` as given; when True, MissingDependencyError now (in ``__init__``)
    if tqdm is not installed, naming ``pip install "ragpath[progress]"``."""
    if show_progress:
        _tqdm()
    return show_progress


@contextmanager
def progress_bar(show_progress: bool, *, total: int, unit: str) -> Iterator[Callable[[], None]]:
    """A function that advances a tqdm bar of ``total`` ``unit`` by one (a no-op when
    ``show_progress`` is False); the bar is closed when the block ends."""
    if not show_progress:
        yield lambda: None
        return
    bar = _tqdm().tqdm(total=total, unit=unit)
    try:
        yield lambda: bar.update(1)
    finally:
        bar.close()


def _tqdm():  # type: ignore[no-untyped-def]
    return require("tqdm", feature="show_progress", extra="progress")
