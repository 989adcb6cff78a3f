"""Where traces go, read from the environment: on or off, the database, the project, limits.

Variables (all optional; nothing is ever sent anywhere, whatever they say):

- ``RAG_TRACING``: ``1``/``true`` turns tracing on, ``0``/``false`` keeps it off even
  when a LangSmith variable says otherwise;
- ``RAG_TRACING_DB``: the SQLite file (setting it turns tracing on; default
  ``<cache>/traces.sqlite3``, the cache folder being ``$RAG_CACHE_DIR``, else
  ``$XDG_CACHE_HOME/rag-toolkit``, else ``~/.cache/rag-toolkit``);
- ``LANGSMITH_TRACING`` / ``LANGCHAIN_TRACING_V2`` = ``true``: on, as for LangSmith;
- ``RAG_TRACING_PROJECT``, else ``LANGSMITH_PROJECT``, else ``LANGCHAIN_PROJECT``: the
  project (LangSmith's ``session_name``; default ``default``);
- ``RAG_TRACING_MAX_AGE_DAYS`` (default 30) and ``RAG_TRACING_MAX_MB`` (default 1024):
  retention; older traces, then the oldest beyond the size, are deleted by the writer;
- ``RAG_TRACING_MAX_FIELD_BYTES`` (default 65536): a run's inputs or outputs longer than
  this as JSON are cut to it and marked as truncated.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional

if TYPE_CHECKING:
    from rag.tracing.tracer import StoreTracer

__all__ = ["TracingSettings", "tracing_settings", "default_trace_db", "environment_tracer"]

logger = logging.getLogger("rag.tracing")

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def default_trace_db(environ: Optional[Mapping[str, str]] = None) -> Path:
    """``$RAG_TRACING_DB``, else ``traces.sqlite3`` in the toolkit's cache folder."""
    env = os.environ if environ is None else environ
    explicit = env.get("RAG_TRACING_DB")
    if explicit:
        return Path(explicit).expanduser()
    cache = env.get("RAG_CACHE_DIR")
    if cache:
        return Path(cache) / "traces.sqlite3"
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rag-toolkit" / "traces.sqlite3"


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    text = env.get(name)
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value <= 0:
        logger.warning("$%s=%r is not a positive number; using %s", name, text, default)
        return default
    return value


@dataclass(frozen=True)
class TracingSettings:
    """What the environment asks for (see the module's docstring for the variables)."""

    enabled: bool
    db_path: Path
    project: str = "default"
    max_age_days: float = 30.0
    max_bytes: int = 1024 << 20
    max_field_bytes: int = 64 << 10


def tracing_settings(environ: Optional[Mapping[str, str]] = None) -> TracingSettings:
    """The settings in ``environ`` (default ``os.environ``), read now."""
    env = os.environ if environ is None else environ
    own = (env.get("RAG_TRACING") or "").strip().lower()
    langsmith = any((env.get(name) or "").strip().lower() == "true"
                    for name in ("LANGSMITH_TRACING", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2"))
    enabled = own in _TRUE or (own not in _FALSE and (bool(env.get("RAG_TRACING_DB")) or langsmith))
    project = env.get("RAG_TRACING_PROJECT") or env.get("LANGSMITH_PROJECT") or env.get("LANGCHAIN_PROJECT") or "default"
    return TracingSettings(enabled, default_trace_db(env), project,
                           _number(env, "RAG_TRACING_MAX_AGE_DAYS", 30.0),
                           int(_number(env, "RAG_TRACING_MAX_MB", 1024.0) * (1 << 20)),
                           int(_number(env, "RAG_TRACING_MAX_FIELD_BYTES", 64 << 10)))


# Every variable the settings read: their raw values are the cache key, so that a run
# (which asks at each start) pays a few dictionary reads, not a parse.
_NAMES = ("RAG_TRACING", "RAG_TRACING_DB", "LANGSMITH_TRACING", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2",
          "RAG_TRACING_PROJECT", "LANGSMITH_PROJECT", "LANGCHAIN_PROJECT", "RAG_CACHE_DIR", "XDG_CACHE_HOME",
          "RAG_TRACING_MAX_AGE_DAYS", "RAG_TRACING_MAX_MB", "RAG_TRACING_MAX_FIELD_BYTES")
_lock = threading.Lock()
_by_environment: dict[tuple[Optional[str], ...], Optional["StoreTracer"]] = {}
_by_settings: dict[TracingSettings, Optional["StoreTracer"]] = {}


def environment_tracer() -> Optional["StoreTracer"]:
    """The process's tracer for the current settings, made on first use (None when tracing
    is off, or when the database cannot be used: then one warning names the file and why,
    and the traced program goes on untraced)."""
    environ = os.environ
    key = tuple(environ.get(name) for name in _NAMES)
    try:
        return _by_environment[key]
    except KeyError:
        pass
    with _lock:
        settings = tracing_settings()
        tracer: Optional[StoreTracer] = None
        if settings.enabled:
            if settings in _by_settings:
                tracer = _by_settings[settings]
            else:
                tracer = _make_tracer(settings)
                _by_settings[settings] = tracer
        _by_environment[key] = tracer
        return tracer


def _make_tracer(settings: TracingSettings) -> Optional["StoreTracer"]:
    from rag.tracing.store import TraceStoreError
    from rag.tracing.tracer import StoreTracer

    try:
        return StoreTracer.from_settings(settings)
    except TraceStoreError as exc:
        logger.warning("tracing is off: %s", exc)
        return None
