"""StoreTracer: a :class:`~rag.callbacks.BaseTracer` that records run trees in the trace store.

The same mechanism as :class:`~rag.callbacks.FileTracer` (a handler in
``config["callbacks"]``, one tree per top-level run), written to SQLite by a background
writer instead of a file by the caller. With ``$RAG_TRACING=1`` one is added to every run
by itself (see :mod:`rag.tracing.settings`).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Optional, Union

from rag.callbacks.tracer import BaseTracer, TraceRun
from rag.tracing.records import rows_of
from rag.tracing.settings import TracingSettings, default_trace_db
from rag.tracing.store import TraceStore
from rag.tracing.writer import BatchWriter

__all__ = ["StoreTracer"]


class StoreTracer(BaseTracer):
    """Records every finished run tree in the SQLite trace store at ``db`` (default: see
    :func:`~rag.tracing.settings.default_trace_db`) under ``project_name`` (LangSmith's
    ``session_name``, default ``"default"``).

    The database is opened and checked here (a corrupt file or one of another version
    raises :class:`~rag.tracing.store.TraceStoreError` naming it); trees are written in
    batches by a background thread started on the first one. ``max_field_bytes``: inputs
    or outputs longer than this as JSON are truncated and marked (default 65536).
    :meth:`flush` waits for the writes.

    >>> import tempfile, pathlib
    >>> from rag.runnables import RunnableLambda
    >>> tracer = StoreTracer(pathlib.Path(tempfile.mkdtemp()) / "t.sqlite3", project_name="demo")
    >>> RunnableLambda(lambda x: x + 1, name="inc").invoke(1, {"callbacks": [tracer]})
    2
    >>> tracer.flush()
    True
    >>> [t["name"] for t in tracer.store.list_traces(project="demo")]
    ['inc']
    """

    def __init__(self, db: Union[str, os.PathLike[str], None] = None, *, project_name: str = "default",
                 max_field_bytes: int = 64 << 10, max_age_days: float = 30.0, max_bytes: int = 1 << 30) -> None:
        super().__init__()
        self.project_name = project_name
        self.max_field_bytes = max_field_bytes
        self.store = TraceStore(Path(db) if db is not None else default_trace_db())
        self.writer = _shared_writer(self.store, project_name, max_field_bytes, max_age_days, max_bytes)

    @classmethod
    def from_settings(cls, settings: TracingSettings) -> "StoreTracer":
        """The tracer the environment asks for (see :mod:`rag.tracing.settings`)."""
        return cls(settings.db_path, project_name=settings.project, max_field_bytes=settings.max_field_bytes,
                   max_age_days=settings.max_age_days, max_bytes=settings.max_bytes)

    def __repr__(self) -> str:
        return f"StoreTracer({str(self.store.path)!r}, project_name={self.project_name!r})"

    def _rows(self, root: TraceRun) -> Any:
        return rows_of(root, self.project_name, self.max_field_bytes)

    def _on_trace_end(self, run: TraceRun) -> None:
        self.writer.submit(run)

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Wait until every finished trace is written (True) or ``timeout_s`` passed (False)."""
        return self.writer.flush(timeout_s)

    @property
    def stopped_reason(self) -> Optional[str]:
        """Why writing stopped (a full disk, an unwritable file), or None while it works."""
        return self.writer.stopped_reason


# One writer (one thread) per database and settings in a process, shared by the tracers
# made for them: a writer's thread lives as long as the process, so a tracer made per call
# (as LangChainTracer often is) would otherwise leave one thread behind each time.
_writers: dict[tuple[Any, ...], BatchWriter] = {}
_writers_lock = threading.Lock()


def _shared_writer(store: TraceStore, project_name: str, max_field_bytes: int, max_age_days: float,
                   max_bytes: int) -> BatchWriter:
    key = (str(Path(store.path).resolve()), project_name, max_field_bytes, max_age_days, max_bytes)
    with _writers_lock:
        writer = _writers.get(key)
        if writer is None or writer.stopped_reason is not None:  # a stopped one: a new tracer tries again
            writer = BatchWriter(store, lambda root: rows_of(root, project_name, max_field_bytes),
                                 max_age_days=max_age_days, max_bytes=max_bytes)
            _writers[key] = writer
        return writer
