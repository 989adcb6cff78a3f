"""Progress bars on stderr, drawn only when stderr is a terminal."""

from __future__ import annotations

import sys
import time
from typing import IO, Optional

__all__ = ["ProgressBars"]


class ProgressBars:
    """A ``progress(stage, done, total)`` callback (see :meth:`rag.index.Index.update`)
    drawing one bar per stage, ``embed  40/100 [####......]``, at most ten times a second.

    Silent when ``stream`` is not a terminal (logs and pipes stay clean).
    """

    def __init__(self, stream: Optional[IO[str]] = None, width: int = 30) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._stage: Optional[str] = None
        self._began = self._last_draw = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        """``total`` <= 0: unknown (a count and a rate are shown, no bar)."""
        if not self.enabled:
            return
        if stage != self._stage:
            self.close()
            self._stage, self._began = stage, time.monotonic()
        now = time.monotonic()
        if now - self._last_draw <= 0.1 and not (0 < total <= done):
            return
        self._last_draw = now
        rate = done / max(now - self._began, 1e-9)
        if total <= 0:
            self.stream.write(f"\r{stage:<8} {done:>6} ({rate:.1f}/s)")
        else:
            filled = int(self.width * min(done, total) / total)
            bar = "#" * filled + "." * (self.width - filled)
            eta = (total - done) / rate if rate > 0 else 0.0
            self.stream.write(f"\r{stage:<8} {done:>6}/{total:<6} [{bar}] {rate:.1f}/s, {eta:.0f} s left")
        self.stream.flush()

    def close(self) -> None:
        """End the current bar's line."""
        if self.enabled and self._stage is not None:
            self.stream.write("\n")
            self.stream.flush()
        self._stage = None
