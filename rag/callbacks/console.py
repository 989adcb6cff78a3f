"""ConsoleCallbackHandler: every run's start and end as an indented line on a stream."""

from __future__ import annotations

import json
import sys
import threading
from typing import Any, Optional, TextIO

from rag.callbacks.serialize import to_jsonable
from rag.callbacks.tracer import BaseTracer, TraceRun

__all__ = ["ConsoleCallbackHandler", "COLORS"]

# ANSI colours per run type; used only when the stream is a terminal (or color=True).
COLORS = {"chain": "\033[36m", "retriever": "\033[35m", "chat_model": "\033[32m", "tool": "\033[33m",
          "error": "\033[31m", "dim": "\033[2m"}
_RESET = "\033[0m"


def _snippet(value: Any, limit: int) -> str:
    text = json.dumps(to_jsonable(value), ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ConsoleCallbackHandler(BaseTracer):
    """Prints ``> name [type] input`` when a run starts and ``< name [type] 12.3 ms output``
    when it ends (``! ... error`` on failure), indented two spaces per nesting level.

    ``stream``: where to write (default ``sys.stdout`` at the time of writing); ``color``:
    None (default: only when the stream is a terminal), True or False; ``max_chars``:
    inputs and outputs are cut to this many characters (default 200).

    >>> import io
    >>> from rag.runnables import RunnableLambda
    >>> out = io.StringIO()
    >>> RunnableLambda(lambda x: x + 1, name="inc").invoke(1, {"callbacks": [ConsoleCallbackHandler(out)]})
    2
    >>> print(out.getvalue().rstrip())  # doctest: +ELLIPSIS
    > inc [chain] 1
    < inc [chain] ... ms 2
    """

    def __init__(self, stream: Optional[TextIO] = None, *, color: Optional[bool] = None, max_chars: int = 200) -> None:
        super().__init__()
        self.stream = stream
        self.color = color
        self.max_chars = max_chars
        self._print_lock = threading.Lock()

    def _out(self) -> TextIO:
        return self.stream if self.stream is not None else sys.stdout

    def _paint(self, text: str, style: str) -> str:
        out = self._out()
        colored = self.color if self.color is not None else bool(getattr(out, "isatty", lambda: False)())
        return f"{COLORS[style]}{text}{_RESET}" if colored else text

    def _write(self, line: str) -> None:
        with self._print_lock:
            out = self._out()
            out.write(line + "\n")
            out.flush()

    def _on_run_start(self, run: TraceRun) -> None:
        label = self._paint(f"{run.name} [{run.run_type}]", run.run_type)
        self._write(f"{'  ' * run.depth}> {label} {_snippet(run.inputs, self.max_chars)}")

    def _on_run_end(self, run: TraceRun) -> None:
        indent = "  " * run.depth
        if run.error is not None:
            label = self._paint(f"{run.name} [{run.run_type}] {run.error}", "error")
            self._write(f"{indent}! {label}")
            return
        label = self._paint(f"{run.name} [{run.run_type}]", run.run_type)
        timing = self._paint(f"{run.duration_ms:.1f} ms", "dim")
        tokens = f" tokens={run.token_usage}" if run.token_usage else ""
        self._write(f"{indent}< {label} {timing}{tokens} {_snippet(run.outputs, self.max_chars)}")
