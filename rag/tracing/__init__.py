"""Tracing as LangSmith does it, kept on this machine: run trees in a local SQLite store.

Turn it on with ``RAG_TRACING=1`` (or ``RAG_TRACING_DB=path``, or LangSmith's
``LANGSMITH_TRACING=true``; nothing is sent anywhere): every run of a chain, model,
retriever, tool, graph node or ``@traceable`` function is recorded with LangSmith's fields
(``trace_id``, ``dotted_order``, ``parent_run_id``, ``session_name``, ``run_type``, tags,
metadata, token usage, errors) by a background writer. Read them with ``rag trace list``,
``rag trace show ID`` or the ``/traces`` page; export with ``rag trace export --otlp``.

>>> from rag.tracing import traceable
>>> @traceable
... def double(x):
...     return 2 * x
>>> double(21)
42
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag._lazy import lazy_exports

if TYPE_CHECKING:
    from rag.tracing.otlp import to_otlp
    from rag.tracing.settings import TracingSettings, default_trace_db, tracing_settings
    from rag.tracing.store import RunNotFoundError, TraceStore, TraceStoreError
    from rag.tracing.decorator import traceable, tracing_context
    from rag.tracing.tracer import StoreTracer

__all__ = ["traceable", "tracing_context", "StoreTracer", "TraceStore", "TraceStoreError", "RunNotFoundError",
           "TracingSettings", "tracing_settings", "default_trace_db", "to_otlp"]

# The store imports sqlite3 and the decorator nothing heavy; loaded on first use all the same,
# so `import rag.tracing` costs nothing a program that never traces would notice.
__getattr__, __dir__ = lazy_exports(__name__, {
    "rag.tracing.decorator": ["traceable", "tracing_context"],
    "rag.tracing.tracer": ["StoreTracer"],
    "rag.tracing.store": ["TraceStore", "TraceStoreError", "RunNotFoundError"],
    "rag.tracing.settings": ["TracingSettings", "tracing_settings", "default_trace_db"],
    "rag.tracing.otlp": ["to_otlp"],
})
