"""Task calls made while a node runs: LangGraph's functional API (``@task`` called inside
an ``@entrypoint`` or a graph node), on the graph's own loop.

A call's id is its caller's id and its place in the caller's order of calls
(``<caller id>|<n>:<task name>``), so the same on every run of the same step. A step that
paused (``interrupt()``) or failed keeps, as pending writes of its checkpoint, the return
value of each call that finished and the pause of each call that paused (see
:func:`call_writes`); when the step runs again the node calls its tasks again in the same
order, and a call whose result was kept returns it without running (replay by call
order), while a paused call runs again with its answer. Calls run concurrently: in a
thread pool from sync code, as asyncio tasks (or in the loop's executor, for a sync task
function) from async code. Each call runs with its own task scope, so ``interrupt()``,
``get_config()`` and nested task calls inside it work as in a node.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import dataclasses
import inspect
import threading
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from rag import _callbacks
from rag.errors import UsageError
from rag.graph.cache.keys import call_key
from rag.graph.constants import INTERRUPT, RESUME, RETURN
from rag.graph.errors import GraphInterrupt
from rag.graph.retry import arun_with_retry, run_with_retry
from rag.graph.types import CURRENT_TASK, TaskScope

__all__ = ["CALL_KEY", "CallLog", "CallSlot", "Caller", "caller_of", "current_caller", "call_writes", "answering_tasks",
           "held_updates"]

#: Where a running node's :class:`Caller` is kept in ``config["configurable"]`` (LangGraph's CONFIG_KEY_CALL).
CALL_KEY = "__pregel_call"


@dataclass
class CallLog:
    """The task calls of one node task in one step, its nested calls included.

    ``records``: call id -> the loop's ``Task`` record (restored from the paused step's
    pending writes, or made by this run); ``made``: records run by this invocation (their
    writes are saved if the step stops); ``emit``: sends ``{task name: return value}`` to
    the "updates" stream as a call finishes (None: not streamed); ``hold``: keep those
    chunks in ``held`` instead, for the loop to stream after the step (a graph whose
    chunks do not flow while its nodes run)."""

    records: dict[str, Any]
    emit: Optional[Callable[[dict[str, Any]], None]]
    checkpointed: bool
    hold: bool = False
    cache: Any = None  # the graph's cache (entrypoint(cache=...)), for tasks with a cache_policy
    #: The calls' "task"/"task_result" events (kind, payload) for the "tasks"/"debug" streams,
    #: streamed with the caller's result (rag.graph._debug_stream.call_events); None: not wanted.
    events: Optional[list[tuple[str, dict[str, Any]]]] = None
    made: list[Any] = field(default_factory=list)
    held: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.hold:
            self.emit = self.held.append


def held_updates(log: Optional[CallLog]) -> list[dict[str, Any]]:
    """The "updates" chunks of finished calls kept for after the step (taken: once each)."""
    if log is None or not log.held:
        return []
    with log.lock:
        chunks, log.held[:] = list(log.held), []
    return chunks


def call_writes(log: Optional[CallLog]) -> list[tuple[str, list[tuple[str, Any]]]]:
    """``(call id, writes)`` to keep with a step that stopped: a finished call's return
    value, a paused call's interrupts and the answers it already has."""
    if log is None:
        return []
    found = []
    for record in log.made:
        if record.done:
            found.append((record.id, [(RETURN, record.update)]))
        elif record.interrupts:
            found.append((record.id, [(INTERRUPT, list(record.interrupts))]
                          + ([(RESUME, record.resume)] if record.resume else [])))
    return found


def answering_tasks(paused: Sequence[Any]) -> dict[str, Any]:
    """Interrupt id -> the paused task (or call) that answers it. A call's pause is also
    recorded by the node (or task) that called it, whose id the call's id extends: the
    innermost one, where ``interrupt()`` ran, gets the answer."""
    owners: dict[str, Any] = {}
    for task in paused:
        for pause in task.interrupts:
            known = owners.get(pause.id)
            if known is None or task.id.startswith(known.id + "|"):
                owners[pause.id] = task
    return owners


class CallSlot:
    """What a node's config holds under :data:`CALL_KEY` until the node calls its first task:
    the node's :class:`CallLog` and :class:`Caller` are made then, once (most nodes call
    none, and a step should not pay for them). ``loop`` is the running
    :class:`~rag.graph._loop.Loop`, ``task`` the node's task there."""

    __slots__ = ("loop", "task", "caller")
    _lock = threading.Lock()

    def __init__(self, loop: Any, task: Any) -> None:
        self.loop = loop
        self.task = task
        self.caller: Optional[Caller] = None

    def open(self) -> "Caller":
        from rag.graph import _debug_stream as debug_stream  # it imports rag.graph._subgraphs, which imports us

        with self._lock:
            if self.caller is None:
                loop, task, prefix = self.loop, self.task, self.task.id + "|"
                saved = {k: v for k, v in loop.restored.items() if k.startswith(prefix)}  # kept by a paused step
                task.calls = CallLog(saved, loop.call_updates, loop.saver is not None,
                                     hold=loop.call_updates is None and "updates" in loop.modes,
                                     cache=getattr(loop.graph, "cache", None),
                                     events=[] if debug_stream.wanted(loop.modes) else None)
                self.caller = Caller(task.calls, task.id, task.config)
            return self.caller


def caller_of(config: Optional[dict[str, Any]]) -> Optional["Caller"]:
    """The :class:`Caller` that ``config`` (a running node's or task's) carries, or None."""
    found = ((config or {}).get("configurable") or {}).get(CALL_KEY)
    return found.open() if isinstance(found, CallSlot) else found


def current_caller(task_name: str) -> "Caller":
    """The :class:`Caller` of the node or task running here; a clear error outside one."""
    scope = CURRENT_TASK.get()
    caller = caller_of(scope.config) if scope is not None else None
    if caller is None:
        raise UsageError(
            f"task {task_name!r} was called outside a running graph: call a @task from inside an @entrypoint "
            "function, a graph node or another task (calling it gives a future; .result() or await it there)"
        )
    return caller


def _in_event_loop() -> Optional[asyncio.AbstractEventLoop]:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class Caller:
    """Numbers and runs the task calls of one running function (a node, or a task).
    ``quiet``: calls made under a nested entrypoint run inline, not streamed (as a
    LangGraph subgraph's updates without ``subgraphs=True``)."""

    def __init__(self, log: CallLog, caller_id: str, config: dict[str, Any], *, quiet: bool = False) -> None:
        self.log = log
        self.caller_id = caller_id
        self.config = config
        self.quiet = quiet
        self.count = 0
        self.started: list[Any] = []  # futures of calls made by this caller in this run
        self._pool: Optional[concurrent.futures.ThreadPoolExecutor] = None
        self._lock = threading.Lock()

    def restart(self) -> None:
        """A new attempt of the caller (a retry): calls are numbered from the first again."""
        self.count = 0
        self.started = []

    def nested(self, name: str, *, quiet: bool) -> "Caller":
        """A caller for a function run inline under this one, taking the next place in
        this caller's order (a nested entrypoint's calls are numbered under it)."""
        call_id = self._next_id(name)
        return Caller(self.log, call_id, self.config, quiet=quiet or self.quiet)

    def _next_id(self, name: str) -> str:
        with self._lock:
            index = self.count
            self.count += 1
        return f"{self.caller_id}|{index}:{name}"

    # -- making a call ------------------------------------------------------------------------
    def call(self, run: Any, name: str, args: tuple, kwargs: dict[str, Any], policies: Sequence[Any],
             is_async: bool, cache_policy: Any = None) -> Any:
        """Start one call of ``run`` (a traced runnable of the task function) and return its
        future: a ``concurrent.futures.Future`` in sync code, an asyncio future in async code.
        With a ``cache_policy`` and a graph cache, a call whose key is cached returns the
        cached result without running, and a call that finishes is cached."""
        loop = _in_event_loop()
        if is_async and loop is None:
            raise UsageError(
                f"task {name!r} is an async function, called from sync code: in a sync context async tasks "
                "cannot be called; make the caller async (and ainvoke/astream the graph) or the task sync"
            )
        call_id = self._next_id(name)
        self._event("task", {"id": call_id, "name": name, "input": (args, kwargs), "triggers": ("__pregel_push",)})
        with self.log.lock:
            record = self.log.records.get(call_id)
            if record is not None and record.done:  # finished in an earlier run (or attempt): replayed
                return _settled(loop, as_returned(run.target, record.update))
            if record is None:
                from rag.graph._loop import Task  # the loop's record of a task; imported late (it imports us)

                record = self.log.records[call_id] = Task(call_id, name, ("__pregel_push",))
            if not record.ran:
                record.ran = True
                self.log.made.append(record)
            record.interrupts, record.error = (), None
        keep = None
        if cache_policy is not None and self.log.cache is not None:
            key = call_key(cache_policy.key_func, run.target, args, kwargs)
            entry = self.log.cache.get([key]).get(key)
            if entry is not None:
                self._settle(record, entry["return"], cached=True)
                return _settled(loop, as_returned(run.target, entry["return"]))
            keep = (key, cache_policy.ttl)
        base = dict(_callbacks.current_config() or self.config)
        scope = CURRENT_TASK.get()
        child = Caller(self.log, call_id, base, quiet=self.quiet)
        config = {**base, "configurable": {**(base.get("configurable") or {}), CALL_KEY: child}}
        child_scope = TaskScope(call_id, name, self.log.checkpointed, list(record.resume),
                                writer=scope.writer if scope else None, config=config,
                                runtime=getattr(scope, "runtime", None))
        context = contextvars.copy_context()
        trace_inputs = run.trace_inputs(args, kwargs)
        if is_async:
            future = asyncio.ensure_future(self._arun(record, child, child_scope, run, args, kwargs, policies,
                                                      trace_inputs, config, keep))
        else:
            body = (self._run, record, child, child_scope, run, args, kwargs, policies, trace_inputs, config, keep)
            if loop is not None:
                future = loop.run_in_executor(self._executor(), context.run, *body)
            else:
                future = self._executor().submit(context.run, *body)
        self.started.append(future)
        return future

    def _executor(self) -> concurrent.futures.ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                from rag.runnables.config import max_workers

                self._pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=max_workers(self.config, 64), thread_name_prefix="rag-graph-task")
            return self._pool

    def _settle(self, record: Any, value: Any, *, cached: bool = False, keep: Optional[tuple] = None) -> None:
        """A call finished (``cached``: found in the cache): recorded, streamed, and cached
        when ``keep`` is ``(key, ttl)``."""
        record.update, record.done = value, True
        if not cached:  # as LangGraph's: a result it did not run again (cached, replayed) has no event
            self._event("task_result", {"id": record.id, "name": record.name, "error": None,
                                        "result": {RETURN: value}, "interrupts": []})
        if keep is not None:
            key, ttl = keep
            self.log.cache.set({key: ({"return": value}, ttl)})
        if self.log.emit is not None and not self.quiet:
            self.log.emit({record.name: value, "__metadata__": {"cached": True}} if cached else {record.name: value})

    def _fail(self, record: Any, error: BaseException) -> None:
        if isinstance(error, GraphInterrupt):  # reported by its caller's result, as LangGraph's
            record.interrupts = error.interrupts
        else:
            record.error = error
            self._event("task_result", {"id": record.id, "name": record.name, "error": error, "result": {},
                                        "interrupts": []})

    def _event(self, kind: str, payload: dict[str, Any]) -> None:
        """Keep a call's "task"/"task_result" event when the run streams them (not for the
        calls of an entrypoint run inline, as a subgraph's are not streamed)."""
        if self.log.events is not None and not self.quiet:
            self.log.events.append((kind, payload))  # list.append: safe from the calls' threads

    def _run(self, record: Any, child: "Caller", scope: TaskScope, run: Any, args: tuple, kwargs: dict[str, Any],
             policies: Sequence[Any], trace_inputs: dict[str, Any], config: dict[str, Any],
             keep: Optional[tuple]) -> Any:
        token = CURRENT_TASK.set(scope)

        def attempt() -> Any:
            scope.calls = 0  # each attempt's interrupt() calls and task calls count from the first again
            child.restart()
            return run._call_traced(lambda _input, cfg: run.func(*args, **run.inject(kwargs, cfg, len(args))), trace_inputs,
                                    config)

        try:
            value = run_with_retry(attempt, policies) if policies else attempt()
            child.join()
        except BaseException as error:
            self._fail(record, error)
            raise
        finally:
            CURRENT_TASK.reset(token)
        self._settle(record, value, keep=keep)
        return value

    async def _arun(self, record: Any, child: "Caller", scope: TaskScope, run: Any, args: tuple,
                    kwargs: dict[str, Any], policies: Sequence[Any], trace_inputs: dict[str, Any],
                    config: dict[str, Any], keep: Optional[tuple]) -> Any:
        CURRENT_TASK.set(scope)  # this coroutine runs as its own asyncio task: its own context

        async def attempt() -> Any:
            scope.calls = 0
            child.restart()

            async def body(_input: Any, cfg: Any) -> Any:
                return await run.func(*args, **run.inject(kwargs, cfg, len(args)))

            return await run._acall_traced(body, trace_inputs, config)

        try:
            value = await (arun_with_retry(attempt, policies) if policies else attempt())
            await child.ajoin()
        except BaseException as error:  # CancelledError too: the call is left unfinished
            self._fail(record, error)
            raise
        self._settle(record, value, keep=keep)
        return value

    # -- waiting for calls ----------------------------------------------------------------------
    def join(self) -> None:
        """Wait for every call started here (a step ends when all its tasks did)."""
        if self.started:
            concurrent.futures.wait([f for f in self.started if isinstance(f, concurrent.futures.Future)])
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    async def ajoin(self) -> None:
        waiting = [f for f in self.started if not isinstance(f, concurrent.futures.Future)]
        if waiting:
            await asyncio.gather(*waiting, return_exceptions=True)
        self.join()

    def pauses(self) -> tuple[Any, ...]:
        """The interrupts of calls made under this caller that are paused now (nested ones too)."""
        prefix = self.caller_id + "|"
        with self.log.lock:
            return tuple(i for r in self.log.made if r.id.startswith(prefix) and not r.done for i in r.interrupts)


def as_returned(func: Any, value: Any) -> Any:
    """A saved return value as ``func`` returned it: JSON checkpoints keep a pydantic model
    or a dataclass as a dict, which becomes an instance again when ``func``'s return
    annotation names that class (anything else is given back as saved)."""
    if not isinstance(value, dict):
        return value
    try:
        hint = typing.get_type_hints(func).get("return")
    except Exception:  # unresolvable annotations: as saved
        return value
    if not isinstance(hint, type):
        return value
    try:
        if hasattr(hint, "model_validate"):
            return hint.model_validate(value)
        if dataclasses.is_dataclass(hint):
            return hint(**value)
    except Exception:  # saved by another version of the class: as saved
        return value
    return value


def _settled(loop: Optional[asyncio.AbstractEventLoop], value: Any) -> Any:
    """A future already holding ``value`` (a replayed call), of the kind the caller awaits."""
    if loop is not None:
        future = loop.create_future()
    else:
        future = concurrent.futures.Future()
    future.set_result(value)
    return future


def is_async_callable(func: Any) -> bool:
    """An ``async def`` function, or an object (or partial) whose call is one."""
    target = getattr(func, "func", func)  # functools.partial
    return inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(getattr(target, "__call__", None))
