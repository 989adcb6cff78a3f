"""Pause Python's cyclic garbage collector around bulk object creation."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

__all__ = ["paused_gc"]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic collector inside the block, restoring its previous state after.

    Creating 100k Documents triggers the collector hundreds of times, and each pass walks
    every young object: measured as half the time of building a 100k-document store.
    Reference counting still frees memory meanwhile; only cycle detection waits.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
