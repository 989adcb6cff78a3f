"""A small progress bar on stderr, drawn only when stderr is a terminal."""

from __future__ import annotations

import sys
import time
from typing import IO, Optional

__all__ = ["Progress"]


class Progress:
    """``with Progress("embed", total) as bar: bar.advance(n)`` draws ``embed  40/100 [####......]``.

    Silent when ``stream`` is not a terminal (logs and pipes stay clean) or ``total`` is 0.
    """

    def __init__(self, stage: str, total: int, stream: Optional[IO[str]] = None, width: int = 30) -> None:
        self.stage, self.total, self.width = stage, max(int(total), 0), width
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self.enabled = self.total > 0 and hasattr(self.stream, "isatty") and self.stream.isatty()
        self._last_draw = 0.0

    def advance(self, count: int = 1) -> None:
        self.done = min(self.total, self.done + count)
        now = time.monotonic()
        if self.enabled and (now - self._last_draw > 0.1 or self.done == self.total):
            self._last_draw = now
            filled = int(self.width * self.done / self.total)
            bar = "#" * filled + "." * (self.width - filled)
            self.stream.write(f"\r{self.stage:<8} {self.done:>6}/{self.total:<6} [{bar}]")
            self.stream.flush()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
