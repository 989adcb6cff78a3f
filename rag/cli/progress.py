"""Progress on stderr: a redrawn bar on a terminal, a plain line every few seconds elsewhere."""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass
from typing import IO, Callable, Optional

__all__ = ["ProgressBars"]

#: Seconds between two plain lines when the output is not a terminal (a log, a pipe, CI).
LOG_INTERVAL = 5.0
#: Seconds between two redraws of a terminal's bar.
DRAW_INTERVAL = 0.1
#: A rate is shown once a stage has run this long (seconds): before, it means nothing.
_MIN_SECONDS_FOR_RATE = 1.0


@dataclass
class _Stage:
    """One stage's counts, and when it was first reported (its clock never restarts)."""

    began: float
    done: int = 0
    total: int = 0


class ProgressBars:
    """A ``progress(stage, done, total)`` callback (see :meth:`rag.index.Index.update`).

    The update interleaves its stages ("load" counts files, "embed" counts chunks, whose
    total is the chunks found so far), so each stage keeps the clock of its first report:
    a rate is that stage's count over the wall time since then (truthful for the whole
    run, never inflated by a switch between stages), shown only after
    :data:`_MIN_SECONDS_FOR_RATE`; time left is shown only when the total is final (for
    embedding: once loading has finished, or when there is no load count).

    On a terminal: one bar per stage, ``embed  40/100 [###.......] 12.5/s, 5 s left``,
    redrawn at most every ``interval`` seconds (default 0.1). Elsewhere: one plain line
    every ``interval`` seconds (default :data:`LOG_INTERVAL`, 5), the first after one
    interval, so a short run prints nothing and a long one shows it is alive:
    ``rag: load 120/900, embed 2290/2400+ (35.2/s)``. ``clock``: seconds, monotonic
    (default :func:`time.monotonic`; tests pass their own).
    """

    def __init__(self, stream: Optional[IO[str]] = None, width: int = 30, *,
                 interval: Optional[float] = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = interval if interval is not None else (DRAW_INTERVAL if self.terminal else LOG_INTERVAL)
        self.clock = clock
        self._stages: dict[str, _Stage] = {}
        self._drawn: Optional[str] = None  # the stage whose bar is on the terminal's current line
        self._last_output: Optional[float] = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        """``total`` <= 0: unknown (a count and a rate are shown, no bar)."""
        now = self.clock()
        state = self._stages.setdefault(stage, _Stage(began=now))
        state.done, state.total = done, total
        if self._last_output is None:
            # A log's first line comes one interval in; a terminal draws at once.
            self._last_output = now if not self.terminal else -math.inf
        finished = 0 < total <= done
        if now - self._last_output < self.interval and not (self.terminal and finished):
            return
        self._last_output = now
        if self.terminal:
            self._draw(stage, state, now)
        else:
            self.stream.write("rag: " + ", ".join(self._describe(name, now) for name in self._stages) + "\n")
            self.stream.flush()

    def _final_total(self, stage: str) -> bool:
        """Whether ``stage``'s total is all there will be (embedding's grows while loading)."""
        load = self._stages.get("load")
        return stage != "embed" or load is None or 0 < load.total <= load.done

    def _rate(self, state: _Stage, now: float) -> Optional[float]:
        elapsed = now - state.began
        return state.done / elapsed if elapsed >= _MIN_SECONDS_FOR_RATE else None

    def _describe(self, stage: str, now: float) -> str:
        state = self._stages[stage]
        count = f"{stage} {state.done}"
        if state.total > 0:
            count += f"/{state.total}" + ("" if self._final_total(stage) else "+")
        details = []
        rate = self._rate(state, now)
        if rate is not None:
            details.append(f"{rate:.1f}/s")
            if rate > 0 and state.total > 0 and self._final_total(stage) and state.done < state.total:
                details.append(f"{_duration((state.total - state.done) / rate)} left")
        return count + (f" ({', '.join(details)})" if details else "")

    def _draw(self, stage: str, state: _Stage, now: float) -> None:
        if self._drawn is not None and self._drawn != stage:
            self.stream.write("\n")
        self._drawn = stage
        line = f"\r{stage:<8} {state.done:>6}"
        if state.total > 0:
            filled = int(self.width * min(state.done, state.total) / state.total)
            suffix = "" if self._final_total(stage) else "+"
            line += f"/{state.total}{suffix:<1} [{'#' * filled}{'.' * (self.width - filled)}]"
        described = self._describe(stage, now)
        if "(" in described:
            line += " " + described[described.index("(") + 1:-1]
        self.stream.write(line + "   ")  # spaces rub out a longer previous line's end
        self.stream.flush()

    def close(self) -> None:
        """End the current bar's line (a terminal); nothing to do for a log."""
        if self.terminal and self._drawn is not None:
            self.stream.write("\n")
            self.stream.flush()
        self._drawn = None


def _duration(seconds: float) -> str:
    """``seconds`` rounded for a person: ``45 s``, ``12 min``, ``3.5 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
