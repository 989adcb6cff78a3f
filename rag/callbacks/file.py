"""FileTracer: each top-level run's tree appended to a file as one JSON line."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Union

from rag.callbacks.tracer import BaseTracer, TraceRun

__all__ = ["FileTracer"]


class FileTracer(BaseTracer):
    """Appends one JSON line per finished top-level invocation to ``path`` (created with
    its folder if missing): the run tree with names, run types, inputs, outputs, errors,
    start/end times (UTC, ISO 8601), ``duration_ms`` and models' ``token_usage``; see
    :meth:`TraceRun.to_dict`. Show it with :func:`rag.callbacks.print_trace`.

    Lines are written whole, under a lock, so concurrent invocations (``batch``) never
    interleave; a file stays readable line by line while it grows.

    >>> import tempfile, pathlib
    >>> from rag.runnables import RunnableLambda
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "trace.jsonl"
    >>> RunnableLambda(lambda x: x * 2, name="double").invoke(21, {"callbacks": [FileTracer(path)]})
    42
    >>> import json; json.loads(path.read_text())["outputs"]
    42
    """

    def __init__(self, path: Union[str, os.PathLike]) -> None:
        super().__init__()
        self.path = Path(path)
        self._write_lock = threading.Lock()

    def _on_trace_end(self, run: TraceRun) -> None:
        line = json.dumps(run.to_dict(), ensure_ascii=False) + "\n"
        with self._write_lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line)

    def __repr__(self) -> str:
        return f"FileTracer({str(self.path)!r})"
