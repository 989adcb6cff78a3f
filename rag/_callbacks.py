"""Callback dispatch: the one place that calls handlers in ``config["callbacks"]``.

A handler is any object with some of LangChain's callback methods (``on_chain_start``,
``on_chat_model_start``, ``on_llm_new_token``, ``on_llm_end``, ``on_retriever_start`` ...);
methods it lacks are skipped, and ``async def`` methods are awaited on async paths. Runs nest:
a component starts a :class:`Run`, passes :meth:`Run.child_config` to its children, and their
runs carry its ``run_id`` as ``parent_run_id``.

A handler that raises is logged (with traceback) and the chain goes on, as in LangChain,
unless the handler sets ``raise_error = True``; then the error reaches the caller.

>>> class Names:
...     def on_chain_start(self, serialized, inputs, **kwargs):
...         print("start", serialized["name"])
>>> run = start_run({"callbacks": [Names()]}, "chain", "demo", {"q": 1})
start demo
>>> run.end({"a": 2})
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import os
import threading
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Literal, Mapping, Optional

from rag.errors import ValidationError

__all__ = ["Run", "RunKind", "EVENTS", "handlers_of", "start_run", "astart_run", "PARENT_RUN_ID_KEY",
           "RUN_TAGS_KEY", "STREAM_CHUNK_EVENT", "ambient_config", "current_config", "wants_model_tokens", "ChildCallbacks"]

logger = logging.getLogger("rag.callbacks")

RunKind = Literal["chain", "chat_model", "retriever", "tool"]

# start / end / error event per kind of run; issue 8 adds kinds here, nowhere else.
EVENTS: dict[str, tuple[str, str, str]] = {
    "chain": ("on_chain_start", "on_chain_end", "on_chain_error"),
    "chat_model": ("on_chat_model_start", "on_llm_end", "on_llm_error"),
    "retriever": ("on_retriever_start", "on_retriever_end", "on_retriever_error"),
    "tool": ("on_tool_start", "on_tool_end", "on_tool_error"),
}
# LangChain handlers may opt out of a kind of run with ``ignore_chain = True`` etc.
_IGNORE_ATTR = {"chain": "ignore_chain", "chat_model": "ignore_chat_model",
                "retriever": "ignore_retriever", "tool": "ignore_agent"}

# The config key under which a parent run hands its id to its children (internal).
PARENT_RUN_ID_KEY = "_parent_run_id"
# Tags for the next run only, not its children (LangChain's ``seq:step:N``, ``map:key:K``).
RUN_TAGS_KEY = "_run_tags"
# The environment's trace store tracer (or None), as the top run found it (internal):
# reading the environment costs microseconds a run, so the children of a run do not.
ENVIRONMENT_TRACER_KEY = "_environment_tracer"
_UNREAD = object()
# Each chunk a streaming chain run yields (not a LangChain callback: event streams use it).
STREAM_CHUNK_EVENT = "on_stream_chunk"


def wants_model_tokens(config: Optional[Mapping[str, Any]]) -> bool:
    """True when a handler asks chat models to stream even on ``invoke`` (the event stream
    of :meth:`Runnable.astream_events` does, so token events appear; as LangChain)."""
    config = config if config is not None else _AMBIENT.get()
    return any(getattr(h, "streams_model_tokens", False) for h in handlers_of(config))


# The config of the run whose body is executing. A runnable invoked with no config at all
# (typically inside a user's function wrapped in RunnableLambda) inherits it, so it nests
# under that run as in LangChain. Context variables follow asyncio tasks and
# ``asyncio.to_thread``; thread pools get the config passed explicitly instead.
_AMBIENT: contextvars.ContextVar[Optional[Mapping[str, Any]]] = contextvars.ContextVar("rag_ambient_config",
                                                                                       default=None)


def current_config() -> Optional[Mapping[str, Any]]:
    """The config of the run whose body is executing here (None outside any run)."""
    return _AMBIENT.get()


@contextmanager
def ambient_config(config: Optional[Mapping[str, Any]]) -> Iterator[None]:
    """Within the block, runs started with ``config=None`` use ``config`` instead."""
    token = _AMBIENT.set(config)
    try:
        yield
    finally:
        _AMBIENT.reset(token)


class ChildCallbacks(list):
    """Handlers bound to a parent run (a run manager's ``get_child()``): as
    ``config["callbacks"]``, the run they start nests under ``parent_run_id`` and inherits
    ``tags`` and ``metadata``. A list of the handlers, so anything that takes a list of
    handlers takes it."""

    def __init__(self, handlers: Any = (), *, parent_run_id: Optional[uuid.UUID] = None,
                 tags: Optional[list[str]] = None, metadata: Optional[dict[str, Any]] = None) -> None:
        super().__init__(handlers)
        self.parent_run_id = parent_run_id
        self.tags = list(tags or [])
        self.metadata = dict(metadata or {})

    @property
    def handlers(self) -> list[Any]:
        return list(self)


def handlers_of(config: Optional[Mapping[str, Any]]) -> list[Any]:
    """The handlers in ``config["callbacks"]`` (one handler or a list of them) as a list."""
    callbacks = (config or {}).get("callbacks") or []
    handlers = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    # A handler given twice (a step's with_config and the call's config) is called once.
    unique: dict[int, Any] = {}
    for handler in handlers:
        unique.setdefault(id(handler), handler)
    return list(unique.values())


def _report(handler: Any, event: str, exc: BaseException) -> None:
    if getattr(handler, "raise_error", False):
        raise exc
    logger.warning("callback %s.%s raised %s: %s", type(handler).__name__, event,
                   type(exc).__name__, exc, exc_info=exc)


def _run_coroutine_blocking(coro: Any) -> None:
    # A sync path met an async handler: run it to completion on a private loop, in a
    # thread when this thread already runs a loop (asyncio.run refuses to nest).
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(coro)
        return
    failure: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(coro)
        except BaseException as exc:  # handed to the caller below
            failure.append(exc)

    worker = threading.Thread(target=target)
    worker.start()
    worker.join()
    if failure:
        raise failure[0]


def _calls(handlers: list[Any], event: str, args: tuple, kwargs: dict) -> Iterator[tuple[Any, Any]]:
    """``(handler, what its method returned)`` for each handler that has ``event``; a
    handler that raises is reported (see :func:`_report`) and skipped."""
    for handler in handlers:
        method = getattr(handler, event, None)
        if method is None:
            continue
        try:
            yield handler, method(*args, **kwargs)
        except Exception as exc:
            _report(handler, event, exc)


def notify(handlers: list[Any], event: str, *args: Any, **kwargs: Any) -> None:
    """Call ``event`` on every handler that has it (sync path)."""
    for handler, result in _calls(handlers, event, args, kwargs):
        if inspect.isawaitable(result):
            try:
                _run_coroutine_blocking(result)
            except Exception as exc:
                _report(handler, event, exc)


async def anotify(handlers: list[Any], event: str, *args: Any, **kwargs: Any) -> None:
    """Call ``event`` on every handler that has it, awaiting async methods."""
    for handler, result in _calls(handlers, event, args, kwargs):
        if inspect.isawaitable(result):
            try:
                await result
            except Exception as exc:
                _report(handler, event, exc)


@dataclass
class Run:
    """One started run: ends once with :meth:`end` or :meth:`error` (or their async twins).

    ``handlers`` is empty when nobody listens, which makes every call a cheap no-op.
    """

    kind: str
    handlers: list[Any]
    run_id: uuid.UUID = field(default_factory=uuid.uuid4)
    parent_run_id: Optional[uuid.UUID] = None
    tags: list[str] = field(default_factory=list)
    environment_tracer: Any = None  # the trace store's tracer, when the environment turns it on

    def _ids(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "parent_run_id": self.parent_run_id, "tags": self.tags}

    def end(self, output: Any, **extra: Any) -> None:
        if self.handlers:
            notify(self.handlers, EVENTS[self.kind][1], output, **self._ids(), **extra)

    def error(self, exc: BaseException, **extra: Any) -> None:
        if self.handlers:
            notify(self.handlers, EVENTS[self.kind][2], exc, **self._ids(), **extra)

    def event(self, name: str, *args: Any, **extra: Any) -> None:
        """Any other event of this run, e.g. ``on_llm_new_token``."""
        if self.handlers:
            notify(self.handlers, name, *args, **self._ids(), **extra)

    async def aend(self, output: Any, **extra: Any) -> None:
        if self.handlers:
            await anotify(self.handlers, EVENTS[self.kind][1], output, **self._ids(), **extra)

    async def aerror(self, exc: BaseException, **extra: Any) -> None:
        if isinstance(exc, GeneratorExit):
            # An async generator being closed must not suspend: the sync path, no awaiting.
            self.error(exc, **extra)
            return
        if self.handlers:
            await anotify(self.handlers, EVENTS[self.kind][2], exc, **self._ids(), **extra)

    async def aevent(self, name: str, *args: Any, **extra: Any) -> None:
        if self.handlers:
            await anotify(self.handlers, name, *args, **self._ids(), **extra)

    def child_config(self, config: Optional[Mapping[str, Any]]) -> dict[str, Any]:
        """``config`` for a child: this run as parent; run_name and run_id stay with this run."""
        child = {k: v for k, v in (config or {}).items() if k not in ("run_name", "run_id", RUN_TAGS_KEY)}
        if self.handlers:
            child[PARENT_RUN_ID_KEY] = self.run_id
        # The top run read the environment once; its children take its tracer. When tracing
        # is off nothing is added, so a function that receives its config sees only what
        # its caller passed (children then read the environment again: a few dict lookups).
        if self.environment_tracer is not None:
            child[ENVIRONMENT_TRACER_KEY] = self.environment_tracer
        return child


def _prepare(config: Optional[Mapping[str, Any]], kind: str, name: str,
             tags: Optional[list[str]], metadata: Optional[dict[str, Any]]) -> tuple[Run, dict[str, Any]]:
    if kind not in EVENTS:
        raise ValidationError(f"unknown run kind {kind!r}; expected one of {sorted(EVENTS)}")
    config = (config if config is not None else _AMBIENT.get()) or {}
    if isinstance(config.get("callbacks"), ChildCallbacks):
        config = _bound_to_parent(config)
    listeners = [h for h in handlers_of(config) if not getattr(h, _IGNORE_ATTR[kind], False)]
    environment_tracer = config.get(ENVIRONMENT_TRACER_KEY, _UNREAD)
    if environment_tracer is _UNREAD:
        environment_tracer = _environment_tracer()
    if environment_tracer is not None and all(h is not environment_tracer for h in listeners):
        listeners.append(environment_tracer)
    inherited = list(config.get("tags") or [])
    run_tags = inherited + [t for t in [*(tags or []), *(config.get(RUN_TAGS_KEY) or [])] if t not in inherited]
    run = Run(kind, listeners, config.get("run_id") or uuid.uuid4(), config.get(PARENT_RUN_ID_KEY), run_tags,
              environment_tracer)
    extra = {"metadata": {**_configurable_metadata(config), **(metadata or {}), **(config.get("metadata") or {})},
             "name": config.get("run_name") or name}
    return run, extra


def _configurable_metadata(config: Mapping[str, Any]) -> dict[str, Any]:
    """A run's ``configurable`` values that are plain scalars (a graph's ``thread_id``, a
    user id...), as LangChain copies them into its runs' metadata; ``__``-names stay private."""
    configurable = config.get("configurable")
    if not configurable:
        return {}
    return {key: value for key, value in configurable.items()
            if isinstance(value, (str, int, float, bool)) and not str(key).startswith("__")}


def _environment_tracer() -> Any:
    """The trace store's tracer when ``$RAG_TRACING`` (or ``$RAG_TRACING_DB``, or LangSmith's
    ``$LANGSMITH_TRACING``) turns tracing on, else None. Read at each run, so a process
    may switch it; the store itself is only imported when one of the variables is set."""
    environ = os.environ
    if not (environ.get("RAG_TRACING") or environ.get("RAG_TRACING_DB") or environ.get("LANGSMITH_TRACING")
            or environ.get("LANGCHAIN_TRACING_V2") or environ.get("LANGSMITH_TRACING_V2")):
        return None
    from rag.tracing.settings import environment_tracer

    return environment_tracer()


def _bound_to_parent(config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` whose callbacks came from a run manager's ``get_child()``: that run is the
    parent, and its tags and metadata come first (the config's own win on conflict)."""
    child: ChildCallbacks = config["callbacks"]
    bound = dict(config)
    if bound.get(PARENT_RUN_ID_KEY) is None:
        bound[PARENT_RUN_ID_KEY] = child.parent_run_id
    bound["tags"] = child.tags + [t for t in (config.get("tags") or []) if t not in child.tags]
    bound["metadata"] = {**child.metadata, **(config.get("metadata") or {})}
    return bound


def start_run(config: Optional[Mapping[str, Any]], kind: str, name: str, payload: Any, *,
              tags: Optional[list[str]] = None, metadata: Optional[dict[str, Any]] = None,
              serialized: Optional[dict[str, Any]] = None, **extra: Any) -> Run:
    """Start a run of ``kind`` ("chain", "chat_model", "retriever", "tool") and notify
    the handlers' start event with ``serialized`` (default ``{"name": name}``) and ``payload``
    (the inputs, the messages, the query ...). ``config["run_name"]`` renames the run."""
    run, fields = _prepare(config, kind, name, tags, metadata)
    if run.handlers:
        notify(run.handlers, EVENTS[kind][0], serialized or {"name": fields["name"]}, payload,
               **run._ids(), **fields, **extra)
    return run


async def astart_run(config: Optional[Mapping[str, Any]], kind: str, name: str, payload: Any, *,
                     tags: Optional[list[str]] = None, metadata: Optional[dict[str, Any]] = None,
                     serialized: Optional[dict[str, Any]] = None, **extra: Any) -> Run:
    """Async :func:`start_run` (awaits async handlers)."""
    run, fields = _prepare(config, kind, name, tags, metadata)
    if run.handlers:
        await anotify(run.handlers, EVENTS[kind][0], serialized or {"name": fields["name"]}, payload,
                      **run._ids(), **fields, **extra)
    return run
