"""Length functions: recognising ``len`` and caching the lengths of repeated pieces."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["CachedLength"]


class CachedLength(dict):  # type: ignore[type-arg]
    """A length function that measures each distinct short string once.

    Splitting at spaces produces the same words over and over; tokenising each once and
    looking it up afterwards is much faster than calling the tokenizer per piece (and
    faster than batch-encoding many tiny pieces). It subclasses ``dict`` so a hit is a
    C-level lookup: ``map(cached.__getitem__, pieces)`` never enters Python for a hit.

    Only strings of at most ``max_key_chars`` characters are remembered (long spans are
    rarely repeated and would pin memory); the table is emptied when it holds
    ``max_entries`` strings. ``measure`` must be pure: same string, same length.

    >>> lengths = CachedLength(len)
    >>> lengths("hello"), len(lengths)
    (5, 1)
    """

    __slots__ = ("measure", "max_entries", "max_key_chars")

    def __init__(
        self,
        measure: Callable[[str], int],
        *,
        max_entries: int = 1 << 18,
        max_key_chars: int = 256,
    ) -> None:
        super().__init__()
        self.measure = measure
        self.max_entries = max_entries
        self.max_key_chars = max_key_chars

    def compute(self, text: str) -> int:
        """The length of ``text``, without consulting or filling the cache."""
        return self.measure(text)

    def __missing__(self, text: str) -> int:
        length = self.compute(text)
        if len(text) <= self.max_key_chars:
            if len(self) >= self.max_entries:
                self.clear()
            self[text] = length
        return length

    def __call__(self, text: str) -> int:
        return self[text]

    # dict equality would make two caches "equal" by content; identity is what matters here.
    __eq__ = object.__eq__  # type: ignore[assignment]
    __hash__ = object.__hash__  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"CachedLength({self.measure!r}, cached={len(self)})"
