"""Carrying out the loop's effects: sync (threads) and async (asyncio), passing on the
chunks made while nodes run ("messages", "custom", each task's chunks as it ends) through
the live sink (:mod:`rag.graph._stream_messages`) to the stream."""

from __future__ import annotations

import asyncio
import dataclasses
from functools import partial
import queue
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, AsyncIterator, Callable, Generator, Iterator, Optional

from rag.graph._inject import RUNTIME_KEY, count_attempt
from rag.graph._loop import IO, Decide, Emit, RunTasks, Task
from rag.graph.constants import CONFIG_KEY_NODE_FINISHED, END
from rag.graph.errors import GraphInterrupt, InvalidUpdateError
from rag.graph.retry import arun_with_retry, run_with_retry
from rag.graph.state import check_keys
from rag.graph._combine import combine_updates, is_update_list, pairs_as_updates
from rag.graph._error_handlers import arecover, recover
from rag.graph._stream_messages import LiveSink, MessagesHandler, pushed_writes
from rag.graph._subgraphs import ParentCommand
from rag.graph.types import CURRENT_TASK, Command, Send, TaskScope, is_invalid_resume
from rag.runnables.config import max_workers

import rag.graph  # type hints: rag.graph.pregel imports this module

__all__ = ["drive", "adrive", "MessagesHandler", "LiveSink"]

_DONE: Any = object()


# -- running one task -----------------------------------------------------------------------
def settle(task: Task, output: Any, graph: rag.graph.pregel.CompiledStateGraph) -> None:
    """Record a node's return value on its task, checking its shape and keys."""
    if is_update_list(output):  # a ToolNode's results when a tool returned a Command
        task.parts = [item.update if isinstance(item, Command) else item for item in output]
        output = combine_updates(task.name, output, graph.builder.channels)
    if isinstance(output, Command) and (writes := pairs_as_updates(output.update)) is not None:
        task.parts = writes  # streamed as the list of writes, applied in order through the reducers
        output = dataclasses.replace(output, update=combine_updates(task.name, writes, graph.builder.channels).update)
    if isinstance(output, Command) and output.graph == Command.PARENT:
        raise ParentCommand(output)  # for the graph running this one as a subgraph (rag.graph._subgraphs)
    if isinstance(output, Command):
        update, goto = output.update, output.goto_list()
        for target in goto:
            name = target.node if isinstance(target, Send) else target
            if name != END and name not in graph.builder.nodes:
                raise InvalidUpdateError(
                    f"node {task.name!r} returned Command(goto={target!r}), which is not a node; "
                    f"nodes are {list(graph.builder.nodes)} (or END)"
                )
        task.goto = goto
    else:
        update = output
    pushed = pushed_writes(task.config)  # push_message(...) calls: written before the node's return value
    if pushed is not None and (update is None or isinstance(update, dict)):
        update = combine_updates(task.name, [pushed, update or {}], graph.builder.channels).update
    if update is not None and not isinstance(update, dict):
        raise InvalidUpdateError(
            f"node {task.name!r} returned {type(update).__name__} {update!r:.80}; a node returns a dict of "
            f"state updates (keys {list(graph.builder.channels)}), a Command, or None"
        )
    if update and isinstance(graph.builder.nodes.get(task.name), rag.graph.pregel.CompiledStateGraph):
        # A subgraph's output is its whole state: the keys its parent lacks stay inside (as LangGraph's).
        update = {key: value for key, value in update.items() if key in graph.builder.channels}
    if update:
        check_keys(task.name, update, graph.builder.channels)
    task.update = update
    task.done = True
    finished = (task.config.get("configurable") or {}).get(CONFIG_KEY_NODE_FINISHED)
    if finished is not None:
        finished(task.name)


def _scope(task: Task, checkpointed: bool) -> TaskScope:
    return TaskScope(task.id, task.name, checkpointed, list(task.resume), writer=task.writer, config=task.config,
                     runtime=(task.config.get("configurable") or {}).get(RUNTIME_KEY),
                     spare=None if task.spare is None else partial(task.spare.take, task))


def record_failure(task: Task, exc: BaseException) -> None:
    if isinstance(exc, GraphInterrupt):
        task.interrupts, task.paused = exc.interrupts, True
    else:
        task.error = exc


def _run_task(graph: rag.graph.pregel.CompiledStateGraph, task: Task, state: dict[str, Any], checkpointed: bool) -> None:
    token = CURRENT_TASK.set(_scope(task, checkpointed))
    task.ran = True
    try:
        node, value = graph.builder.nodes[task.name], task.arg if task.push else dict(state)
        policies = getattr(graph.builder, "retry_policies", {}).get(task.name)
        if policies:
            output = run_with_retry(lambda: _fresh_run(task, node, value), policies)
        else:
            output = node.invoke(value, task.config)
        settle(task, output, graph)
    except ParentCommand as exc:
        _settle_parent_command(task, exc, graph)
    except Exception as exc:
        if not recover(graph, task, task.arg if task.push else dict(state), exc):  # add_node(error_handler=...)
            record_failure(task, exc)
    finally:
        CURRENT_TASK.reset(token)


async def _arun_task(graph: rag.graph.pregel.CompiledStateGraph, task: Task, state: dict[str, Any], checkpointed: bool) -> None:
    CURRENT_TASK.set(_scope(task, checkpointed))  # this coroutine runs in its own task: its own context
    task.ran = True
    try:
        node, value = graph.builder.nodes[task.name], task.arg if task.push else dict(state)
        policies = getattr(graph.builder, "retry_policies", {}).get(task.name)
        if policies:
            output = await arun_with_retry(lambda: _afresh_run(task, node, value), policies)
        else:
            output = await node.ainvoke(value, task.config)
        settle(task, output, graph)
    except ParentCommand as exc:
        _settle_parent_command(task, exc, graph)
    except Exception as exc:
        if not await arecover(graph, task, task.arg if task.push else dict(state), exc):
            record_failure(task, exc)


def _settle_parent_command(task: Task, exc: ParentCommand, graph: rag.graph.pregel.CompiledStateGraph) -> None:
    """A subgraph run by this task handed its parent a command: the task returned it."""
    if not exc.for_parent:  # returned by this graph's own node: its parent's business
        record_failure(task, exc)
        return
    try:
        settle(task, dataclasses.replace(exc.command, graph=None), graph)
    except Exception as error:
        record_failure(task, error)


def _fresh_run(task: Task, node: Any, value: Any) -> Any:
    """One attempt of a retried node: its interrupt() calls count from the first again."""
    scope = CURRENT_TASK.get()
    if scope is not None:
        scope.calls = 0
    count_attempt(task.config, scope)  # runtime.execution_info.node_attempt
    return node.invoke(dict(value) if isinstance(value, dict) else value, task.config)


async def _afresh_run(task: Task, node: Any, value: Any) -> Any:
    scope = CURRENT_TASK.get()
    if scope is not None:
        scope.calls = 0
    count_attempt(task.config, scope)
    return await node.ainvoke(dict(value) if isinstance(value, dict) else value, task.config)


def _run_tasks(graph: rag.graph.pregel.CompiledStateGraph, effect: RunTasks, out: Callable[[Any], Any]) -> None:
    """Run the step's tasks; each finished task's chunks go to ``out`` as it ends."""
    tasks = effect.tasks
    timeout = getattr(graph, "step_timeout", None)
    if len(tasks) == 1 and timeout is None:
        _run_task(graph, tasks[0], effect.state, effect.checkpointed)
        _report(effect, tasks[0], out)
        return
    workers = max_workers(tasks[0].config, len(tasks))
    pool = ThreadPoolExecutor(max_workers=workers)

    def run(task: Task) -> None:
        _run_task(graph, task, effect.state, effect.checkpointed)
        _report(effect, task, out)

    futures = [pool.submit(run, task) for task in tasks]
    _, late = wait(futures, timeout=timeout)
    # A thread cannot be stopped: past step_timeout the step fails without waiting for it.
    pool.shutdown(wait=not late, cancel_futures=True)
    if late:
        raise step_timed_out(timeout, [task for task, future in zip(tasks, futures) if future in late])


def _report(effect: RunTasks, task: Task, out: Callable[[Any], Any]) -> None:
    if effect.finished is not None:
        for chunk in effect.finished(task):
            out(chunk)


async def _arun_tasks(graph: rag.graph.pregel.CompiledStateGraph, effect: RunTasks, out: Callable[[Any], Any]) -> None:
    gate = asyncio.Semaphore(max_workers(effect.tasks[0].config, len(effect.tasks)))
    running: list[asyncio.Task] = []

    async def one(task: Task) -> None:
        async with gate:
            await _arun_task(graph, task, effect.state, effect.checkpointed)
        _report(effect, task, out)
        if task.error is not None and not is_invalid_resume(task.error):
            # The step fails with this error (as LangGraph's): its siblings' work would be
            # thrown away, so they are cancelled rather than left running. An answer that did
            # not fit its interrupt's schema is no such failure: the siblings' answers hold, and
            # cancelling one after its side effect would repeat that effect on the next resume.
            for other in running:
                if other is not asyncio.current_task():
                    other.cancel()

    running.extend(asyncio.create_task(one(t)) for t in effect.tasks)
    timeout = getattr(graph, "step_timeout", None)
    if timeout is None:
        await asyncio.gather(*running, return_exceptions=True)
        return
    _, late = await asyncio.wait(running, timeout=timeout)
    for task in late:  # past step_timeout: the step fails and its unfinished nodes are cancelled
        task.cancel()
    await asyncio.gather(*running, return_exceptions=True)
    if late:
        raise step_timed_out(timeout, [t for t, runner in zip(effect.tasks, running) if runner in late])


def step_timed_out(timeout: float, late: list[Task]) -> TimeoutError:
    """The error of a step that ran past ``step_timeout`` (``asyncio.TimeoutError`` and
    ``concurrent.futures.TimeoutError`` are this builtin, as LangGraph raises)."""
    return TimeoutError(f"the step ran past step_timeout={timeout} s; nodes still running: "
                        f"{[task.name for task in late]}")


# -- drivers -------------------------------------------------------------------------------
def drive(graph: rag.graph.pregel.CompiledStateGraph, effects: Generator[Any, Any, None],
          live: Optional[LiveSink]) -> Iterator[Emit]:
    """Run ``effects`` in this thread; nodes run here (several at once: in threads). With
    a ``live`` sink, nodes run in a worker thread so what they stream arrives meanwhile."""
    reply = None
    while True:
        try:
            effect = effects.send(reply)
        except StopIteration:
            return
        reply = None
        if type(effect) is Emit:
            yield effect
        elif type(effect) is IO:
            reply = effect.call()
        elif type(effect) is Decide:
            reply = effect.branch.decide(effect.state, effect.config)
        elif live is None and len(effect.tasks) == 1:  # nothing else runs meanwhile: no queue needed
            finished: list[Any] = []
            _run_tasks(graph, effect, finished.append)
            reply = finished  # streamed by the loop once the step is saved (as LangGraph's)
        else:
            # Parallel nodes' updates (and live chunks) are streamed as they come, through a queue.
            inbox: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
            if live is not None:
                live.sink = inbox.put

            def work(effect: RunTasks = effect) -> None:
                try:
                    _run_tasks(graph, effect, inbox.put)
                finally:
                    inbox.put(_DONE)

            worker = threading.Thread(target=work, name="rag-graph-step", daemon=True)
            worker.start()
            while (item := inbox.get()) is not _DONE:
                yield item
            worker.join()


async def adrive(graph: rag.graph.pregel.CompiledStateGraph, effects: Generator[Any, Any, None],
                 live: Optional[LiveSink]) -> AsyncIterator[Emit]:
    """Async :func:`drive`: nodes run as asyncio tasks, blocking checkpointer calls in a thread."""
    saver = graph.checkpointer
    blocking = bool(getattr(saver, "blocking_io", False))  # a subgraph's checkpointer may be True/False
    reply = None
    while True:
        try:
            effect = effects.send(reply)
        except StopIteration:
            return
        reply = None
        if type(effect) is Emit:
            yield effect
        elif type(effect) is IO:
            in_thread = blocking if effect.blocking is None else effect.blocking
            reply = await asyncio.to_thread(effect.call) if in_thread else effect.call()
        elif type(effect) is Decide:
            reply = await effect.branch.adecide(effect.state, effect.config)
        elif live is None and len(effect.tasks) == 1:
            finished: list[Any] = []
            await _arun_tasks(graph, effect, finished.append)
            reply = finished
        else:
            inbox: "asyncio.Queue[Any]" = asyncio.Queue()
            loop = asyncio.get_running_loop()
            sink = lambda item: loop.call_soon_threadsafe(inbox.put_nowait, item)  # noqa: E731
            if live is not None:
                live.sink = sink

            async def work(effect: RunTasks = effect) -> None:
                try:
                    await _arun_tasks(graph, effect, sink)
                finally:  # through the same queue of callbacks as the tokens: it arrives after them
                    loop.call_soon_threadsafe(inbox.put_nowait, _DONE)

            runner = asyncio.create_task(work())
            while (item := await inbox.get()) is not _DONE:
                yield item
            await runner
