"""The superstep loop, written once for the sync and async entry points.

:class:`Loop.run` is a generator of *effects*: :class:`Emit` (a stream chunk),
:class:`IO` (a checkpointer call, whose result is sent back) and :class:`RunTasks` (run
these nodes). The drivers in :mod:`rag.graph._drive` carry them out with threads or with
asyncio; the rules of a step live here only.

A step: the nodes due run on the same state; their updates are applied in order through
the reducers; edges (plain, conditional, joins, ``Command.goto``) name the next nodes; the
state is checkpointed. A paused or failed node leaves the step unapplied, with the results
of the nodes that did finish saved as pending writes, so a resume re-runs only the rest.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from functools import partial
from typing import Any, Optional

from rag.graph import _debug_stream as debug_stream, _durability as durability, _node_cache as node_cache
from rag.graph import _run_start as run_start, _stream_tasks as stream_tasks, _time_travel as time_travel
from rag.graph._stream_messages import PUSHED, handler_in
from rag.graph._inject import RUNTIME_KEY, run_runtime, with_task_runtime
from rag.graph.checkpoint.base import thread_of
from rag.graph._calls import CALL_KEY, CallSlot, call_writes, held_updates
from rag.graph.constants import END, ERROR, INTERRUPT, RESULT, RESUME, RETURN, START, UPDATE
from rag.graph.errors import GraphDrained, GraphRecursionError
from rag.graph._edges import decisions, successors
from rag.graph._resume import SpareResume
from rag.graph._subgraphs import pause_chunks, resume_input, saver_of, task_ns
from rag.graph._effects import (
    DEFAULT_RECURSION_LIMIT,
    IO,
    Decide,
    Effects,
    Emit,
    RunTasks,
    Task,
    recursion_limit,
    task_path,
)
from rag.graph.state import apply_updates, ordered
from rag.graph.types import Command, Send, is_invalid_resume

import rag.graph  # type hints: rag.graph.pregel imports this module

__all__ = ["Loop", "Task", "Emit", "IO", "Decide", "RunTasks", "recursion_limit", "DEFAULT_RECURSION_LIMIT"]

_PROPAGATED = ("thread_id", "checkpoint_id", "checkpoint_ns", "task_id", "run_id", "assistant_id", "graph_id")


class Loop:
    """One invocation of a compiled graph (see the module docstring)."""

    def __init__(self, graph: rag.graph.pregel.CompiledStateGraph, config: dict[str, Any], modes: frozenset[str], *,
                 interrupt_before: tuple[str, ...], interrupt_after: tuple[str, ...], messages: Any = None,
                 live: Any = None, context: Any = None, control: Any = None, link: Any = None) -> None:
        self.graph = graph
        self.builder = graph.builder
        self.config = config
        self.modes = modes
        self.link = link  # rag.graph._subgraphs.Link when run inside a parent's node, else None
        self.saver = saver_of(graph, link)
        self.ns = link.ns if link is not None else ""  # its checkpoint namespace, as its tasks' prefix
        self.nested = link.forward if link is not None else None  # stream(subgraphs=True)'s sink
        self.replay = getattr(link.parent, "replay", None) if link is not None else None  # a replay's bound (_time_travel)
        self.resume_value: Any = None  # this run's Command(resume=...) value (a subgraph's resume reads it)
        self.limit = recursion_limit(config)
        self.interrupt_before = frozenset(interrupt_before)
        self.interrupt_after = frozenset(interrupt_after)
        # The "messages" stream handler: this run's, or (in a subgraph) the root run's it inherits.
        self.messages = messages if messages is not None else handler_in(config)
        self.held: list[Emit] = []  # the step's task chunks streamed once it is saved (see run)
        self.writer = (lambda chunk: live.sink(Emit("custom", chunk))) if "custom" in modes else None
        # A @task call's {name: result} reaches "updates" as it finishes (when chunks flow live).
        self.call_updates = (lambda chunk: live.sink(Emit("updates", chunk))) \
            if live is not None and "updates" in modes else None
        self.thread = thread_of(config) if self.saver is not None else None
        self.saved_config: Optional[dict[str, Any]] = None
        self.checkpoint_id = ""
        self.values: dict[str, Any] = {}
        self.next: list[Any] = []  # node names (run on the state) and Sends (run on their arg)
        self.joins: dict[str, list[str]] = {}
        self.step = -1
        self.interrupts: tuple[Any, ...] = ()
        self.shown: Optional[dict[str, Any]] = None  # the state a paused step returns (paused_state)
        self.restored: dict[str, Task] = {}
        self.resume_updates: list[tuple[str, Any]] = []  # (task id, update) kept with the paused checkpoint
        self.spare: Optional[SpareResume] = None  # Command(resume=...) sent at a breakpoint (rag.graph._resume)
        self.durability, self.unsaved = durability.durability_of(config), None  # rag.graph._durability
        self.loaded_parent: Optional[dict[str, Any]] = None  # the parent of the checkpoint the run started from
        self.pending_input: Optional[dict[str, Any]] = None  # the input an "input" checkpoint (next: START) holds
        self.step_writes: list[tuple[str, Any]] = []  # a finished step's task results, saved with its checkpoint
        node_config = {k: v for k, v in config.items() if k not in ("run_name", "run_id")}
        if messages is not None:
            callbacks = node_config.get("callbacks") or []
            node_config["callbacks"] = [*(callbacks if isinstance(callbacks, list) else [callbacks]), messages]
        # The Runtime (context, store, writer) reaches nodes and edge functions in their config,
        # under LangGraph's key, so a subgraph run inside a node inherits it.
        runtime = run_runtime(config, context=context, context_schema=getattr(self.builder, "context_schema", None),
                              store=getattr(graph, "store", None), writer=self.writer, control=control)
        self.control = runtime.control
        node_config["configurable"] = {**(node_config.get("configurable") or {}), RUNTIME_KEY: runtime}
        self.node_config = node_config
        # As LangGraph 1.2: these configurable keys reach the nodes' run metadata (and so the
        # "messages" stream's); other configurable values (API keys...) stay out of it.
        configurable = config.get("configurable") or {}
        self.base_metadata = {key: configurable[key] for key in _PROPAGATED if key in configurable}
        self.base_metadata.update(config.get("metadata") or {})
        if self.thread is not None:
            self.base_metadata.setdefault("thread_id", self.thread[0])

    def state(self) -> dict[str, Any]:
        """The current state, a copy in the schema's key order."""
        return ordered(self.values, self.builder.channels)

    def paused_state(self, tasks: list[Task]) -> dict[str, Any]:
        """The state a paused step shows (as LangGraph's): the updates of its nodes that
        did finish applied, in task order, to a copy; the loop's own values stay as the
        checkpoint holds them, so a resume applies those updates once."""
        view = dict(self.values)
        finished = [t for t in tasks if t.done and not t.push] + [t for t in tasks if t.done and t.push]
        apply_updates(view, [(t.name, t.update) for t in finished if t.update], self.builder.channels)
        return ordered(view, self.builder.channels)

    # -- checkpoints ----------------------------------------------------------------------
    def put_args(self, source: str, writers: list[str]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict]:
        """The arguments of ``saver.put`` for a new checkpoint of the current state
        (``writers``: the nodes whose updates it holds); makes it the current checkpoint."""
        thread_id, ns, _ = self.thread  # type: ignore[misc]
        self.checkpoint_id = uuid.uuid4().hex
        checkpoint = {"v": 1, "id": self.checkpoint_id, "ts": datetime.now(timezone.utc).isoformat(),
                      "channel_values": dict(self.values), "next": list(self.next),
                      "joins": {k: list(v) for k, v in self.joins.items()}, "writers": writers}
        if self.next == [START] and self.pending_input is not None:
            # The run's input, not yet applied: resuming from this checkpoint (time travel, or
            # update_state(as_node="__input__")) takes it as the run did.
            checkpoint["input"] = self.pending_input
        metadata = {"source": source, "step": self.step, "parents": time_travel.parents_of(self)}
        parent = self.saved_config or {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
        return parent, checkpoint, metadata, {}

    def _save(self, source: str, writers: list[str]) -> Effects:
        yield from durability.save(self, source, writers)  # saved now, or when the run stops ("exit")

    def _load(self, saved: Any) -> None:
        checkpoint = saved.checkpoint
        self.values = dict(checkpoint["channel_values"])
        self.next = list(checkpoint.get("next", []))
        self.joins = {k: list(v) for k, v in (checkpoint.get("joins") or {}).items()}
        self.step = saved.metadata.get("step", -1)
        self.saved_config = saved.config
        self.checkpoint_id = checkpoint["id"]
        self.loaded_parent = saved.parent_config

    def _tasks(self) -> list[Task]:
        tasks = []
        for index, entry in enumerate(self.next):
            push = isinstance(entry, Send)
            name = entry.node if push else entry
            task_id = f"{self.checkpoint_id}:{index}:{name}"
            task = self.restored.pop(task_id, None) or Task(task_id, name, self._triggers(name))
            if push:
                task.push, task.arg, task.triggers = True, entry.arg, ("__pregel_push",)
            metadata = {**self.base_metadata, "langgraph_step": self.step + 1, "langgraph_node": name,
                        "langgraph_triggers": task.triggers,
                        "langgraph_path": task_path(self.next, index),
                        "langgraph_checkpoint_ns": task_ns(self.ns, name, task_id)}
            task.config = {**self.node_config, "metadata": metadata}
            with_task_runtime(task.config, task_id=task_id, checkpoint_id=self.checkpoint_id,
                              thread_id=self.thread[0] if self.thread else None, run_id=self.config.get("run_id"))
            task.writer = self.writer
            task.spare = self.spare
            task.config["configurable"] = {**(task.config.get("configurable") or {}), CALL_KEY: CallSlot(self, task),
                                           "checkpoint_ns": metadata["langgraph_checkpoint_ns"], PUSHED: []}
            tasks.append(task)
        self.spare = None  # only the step right after the resume may take it (as LangGraph's)
        return tasks

    def _triggers(self, name: str) -> tuple[str, ...]:
        return self.graph.triggers.get(name) or (f"branch:to:{name}",)  # rag.graph._edges.node_triggers

    def _restore(self, pending: list[tuple[str, str, Any]]) -> None:
        for task_id, channel, value in pending:
            if channel == UPDATE:
                self.resume_updates.append((task_id, value))
                continue
            if channel == ERROR:  # shown by get_state only: the failed node runs again
                continue
            name = task_id.rsplit(":", 1)[-1]
            task = self.restored.setdefault(task_id, Task(task_id, name, self._triggers(name)))
            if channel == RETURN:  # a @task call that finished: replayed, not run again
                task.update, task.done = value, True
            elif channel == RESULT:
                task.update, task.goto, task.done = value.get("update"), list(value.get("goto") or []), True
                task.cached = True  # streamed as LangGraph streams a result it did not run again
                task.name = value.get("node", name)  # a handled failure stays its handler's result
            elif channel == INTERRUPT:
                task.interrupts, task.paused = tuple(value), True
            elif channel == RESUME:
                task.resume = list(value)

    # -- the run --------------------------------------------------------------------------
    def run(self, input: Any) -> Effects:
        return durability.run(self, self._run(input))  # with "exit"'s save when it stops

    def _run(self, input: Any) -> Effects:
        saved = None
        if self.saver is not None:
            saved = yield IO(time_travel.load_call(self))
        if self.link is not None:  # a subgraph whose pause the parent resumes continues it
            input = resume_input(self.link, input, saved, self.builder.channels)
        resuming = input is None or isinstance(input, Command)
        if resuming:
            yield from run_start.start_resume(self, input, saved)
        else:
            yield from run_start.start_input(self, input, saved)
        steps = 0
        skip_before = resuming
        while self.next:
            if steps >= self.limit:
                raise GraphRecursionError(
                    f"the graph ran recursion_limit={self.limit} steps without reaching END (nodes still due: "
                    f"{self.next}); raise it with config={{'recursion_limit': N}} if the run needs more steps"
                )
            tasks = self._tasks()
            if not skip_before and any(t.name in self.interrupt_before for t in tasks):
                yield Emit("updates", {INTERRUPT: ()})
                return
            skip_before = False
            if self.control is not None and self.control.drain_requested:
                # After the breakpoint check (as LangGraph's): a resume passes the step's
                # breakpoints, so draining in front of one would skip it.
                raise GraphDrained(self.control.drain_reason or "shutdown")
            pending = [t for t in tasks if not t.done]
            keyed = {}
            if pending and getattr(self.graph, "cache", None) is not None:  # a cache hit: the node does not run
                keyed = yield from node_cache.lookup(self, pending, self.state())
                pending = [t for t in pending if not t.done]
            yield from stream_tasks.known(self, tasks)  # resumed or cached results, before the rest runs
            if pending:
                if debug_stream.wanted(self.modes):
                    yield from debug_stream.task_events(self, pending, self.state())
                stream_tasks.started(self, pending, self.state())
                # Each task's chunks are streamed as it finishes (rag.graph._stream_tasks); a driver
                # that ran the step alone (no live stream) hands them back for after its checkpoint.
                self.held = (yield RunTasks(pending, self.state(), self.saver is not None,
                                            partial(stream_tasks.finished, self))) or []
            if keyed:
                yield from node_cache.save(self, keyed)
            if any(t.error is not None or (not t.done and t.paused) for t in tasks):
                yield from self._stop_step(tasks)
                return
            yield from self._finish_step(tasks)
            steps += 1
            if self.next and any(t.name in self.interrupt_after for t in tasks):
                yield Emit("updates", {INTERRUPT: ()})
                return

    def _stop_step(self, tasks: list[Task]) -> Effects:
        """A node paused or failed: save what finished, report the pauses or raise."""
        held, self.held = self.held, []
        yield from held
        for task in tasks:
            for chunk in held_updates(task.calls):  # a paused task's finished @task calls
                yield Emit("updates", chunk)
        if self.saver is not None:
            yield from durability.flush(self)  # the writes below refer to the checkpoint it holds back
            for task in tasks:
                for call_id, writes in call_writes(task.calls):  # its @task calls: replayed when it runs again
                    yield IO(partial(self.saver.put_writes, self.saved_config, writes, call_id))
                if task.ran and task.done:
                    writes = time_travel.result_write(task.update, task.goto, task.parts)
                    if task.name != task.id.rsplit(":", 1)[-1]:  # its error handler's result (rag.graph._error_handlers)
                        writes[0][1]["node"] = task.name
                elif task.error is not None and not is_invalid_resume(task.error):
                    writes = [(ERROR, repr(task.error))]  # for get_state().tasks[i].error, as LangGraph's
                elif task.paused and not task.done:
                    writes = [(INTERRUPT, list(task.interrupts))] + ([(RESUME, task.resume)] if task.resume else [])
                else:
                    continue
                yield IO(partial(self.saver.put_writes, self.saved_config, writes, task.id))
        failed = [t for t in tasks if t.error is not None]
        for task in failed:
            if task.answered and is_invalid_resume(task.error) and self.saver is not None:
                # The answer did not fit the interrupt's response_schema: forget it, so the
                # same pause can be answered again (as LangGraph's).
                del task.resume[-task.answered:]
                yield IO(partial(self.saver.put_writes, self.saved_config, [(RESUME, task.resume)], task.id))
        if failed:
            raise failed[0].error  # type: ignore[misc]
        self.interrupts = tuple(i for t in tasks if not t.done for i in t.interrupts)
        self.shown = self.paused_state(tasks)
        yield from pause_chunks(self, tasks)  # what the stream shows of the pause (rag.graph._subgraphs)

    def _finish_step(self, tasks: list[Task]) -> Effects:
        channels = self.builder.channels
        # A node's conditional edges read the state before the step plus that node's own
        # updates (as LangGraph's): with several nodes in a step, each gets its own view.
        views: dict[int, dict[str, Any]] = {}
        if len(tasks) > 1:
            for task in tasks:
                if task.name in self.builder.branches:
                    view = dict(self.values)
                    apply_updates(view, [(task.name, task.update)] if task.update else [], channels)
                    views[id(task)] = view
        # Updates apply in LangGraph's order: nodes run by edges (sorted by name), then Sends.
        in_order = [t for t in tasks if not t.push] + [t for t in tasks if t.push]
        apply_updates(self.values, [(t.name, t.update) for t in in_order if t.update], channels)
        self.step += 1
        finished = [(t.name, t.goto, views.get(id(t))) for t in tasks]
        self.next = successors(self, finished, (yield from decisions(self, finished)))
        # The step's updates were streamed as its nodes finished (rag.graph._stream_tasks). Its
        # state is saved before its "values" chunk: a consumer that stops there leaves the
        # thread at the step it saw. The results first, with the step's checkpoint.
        time_travel.step_results(self, tasks)
        events: list[Emit] = []  # its "checkpoints"/"debug" events: after its "values", as LangGraph's
        yield from stream_tasks.keeping_emits(self._save("loop", [t.name for t in tasks]), events)
        held, self.held = self.held, []
        yield from held
        yield Emit("values", self.state())
        yield from events
