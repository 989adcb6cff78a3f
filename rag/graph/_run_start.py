"""How a run starts: from an input (the "input" checkpoint, then the START step) or from a
saved checkpoint (``invoke(None, config)`` or a ``Command``: resume values, update and
goto applied; a past checkpoint replayed or forked, see :mod:`rag.graph._time_travel`).
Functions of the :class:`~rag.graph._loop.Loop`, whose generator they run in."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Optional

from rag.graph import _debug_stream as debug_stream, _stream_tasks as stream_tasks, _time_travel as time_travel
from rag.graph._edges import decisions, successors
from rag.graph._effects import IO, Effects, Emit
from rag.graph._resume import SpareResume, answers
from rag.graph.constants import END, RESUME, START, UPDATE
from rag.graph.errors import CheckpointerRequiredError, EmptyInputError, InvalidUpdateError, ThreadNotFoundError
from rag.graph.state import apply_updates, initial_values
from rag.graph.types import Command, Send

if TYPE_CHECKING:
    from rag.graph._loop import Loop

__all__ = ["start_input", "take_input", "start_resume", "apply_command", "apply_resume"]


def start_input(loop: "Loop", input: Any, saved: Any) -> Effects:
    """A run started with an input: the \"input\" checkpoint, then the START step."""
    input = loop.builder.graph_input(input) if hasattr(loop.builder, "graph_input") else input  # _schemas
    if not isinstance(input, dict):
        raise InvalidUpdateError(
            f"the graph's input must be a dict of state keys {list(loop.builder.channels)}, a Command or None "
            f"(resume), got {type(input).__name__} {input!r:.80}"
        )
    if saved is not None:
        loop._load(saved)
        loop.step += 1
    else:
        loop.values = initial_values(loop.builder.channels)
    loop.joins = {}
    if getattr(loop.builder, "direct_input", False):
        # The functional API (rag.graph.func): the input itself triggers the entrypoint, no
        # START step between (one "input" checkpoint per run, as LangGraph's).
        apply_updates(loop.values, [(START, input)], loop.builder.channels)
        loop.next = successors(loop, [(START, [], None)])
        yield from loop._save("input", [START])
        return
    loop.next, loop.pending_input = [START], input
    yield from loop._save("input", [])
    yield from take_input(loop, input)

def take_input(loop: "Loop", input: dict[str, Any], *, record: bool = True) -> Effects:
    """The START step: ``input`` applied, the entry edges followed, a "loop" checkpoint."""
    if record and loop.saver is not None:  # __start__'s result, saved with the step's checkpoint (put_step)
        loop.step_writes = [(f"{loop.checkpoint_id}:0:{START}", time_travel.result_write(input))]
    apply_updates(loop.values, [(START, input)], loop.builder.channels)
    loop.step += 1
    finished = [(START, [], None)]
    loop.next = successors(loop, finished, (yield from decisions(loop, finished)))
    events: list[Emit] = []
    yield from stream_tasks.keeping_emits(loop._save("loop", [START]), events)
    if input:  # an empty input writes no key: no "values" chunk (as LangGraph's)
        yield Emit("values", loop.state())
    yield from events

def start_resume(loop: "Loop", input: Optional[Command], saved: Any) -> Effects:
    """A run resumed (``None`` or a ``Command``) from ``saved``: replayed or forked from a past
    checkpoint, the command's resume values, update and goto applied."""
    what = "invoke(None, config)" if input is None else "Command(...)"
    if loop.saver is None:
        raise CheckpointerRequiredError(
            f"{what} resumes a saved thread, but this graph has no checkpointer: "
            "compile(checkpointer=InMemorySaver()) and pass a thread_id"
        )
    if saved is None:
        raise ThreadNotFoundError(
            f"thread {loop.thread[0]!r} has no checkpoint to resume with {what}; start it with "  # type: ignore[index]
            "invoke(input, config) first (or check the thread_id)"
        )
    loop._load(saved)
    travel = yield from time_travel.plan(loop, input, saved)  # from a past checkpoint: replay, fork
    loop._restore(time_travel.kept_writes(travel, saved.pending_writes))
    if travel is None and debug_stream.wanted(loop.modes):  # LangGraph sends the checkpoint it resumes again
        yield from debug_stream.resumed_events(loop, saved)
    # Updates sent with earlier resumes of this same pause: applied again to the
    # checkpoint's values, once each and in the order sent (the ids sort by count).
    for _, update in sorted(loop.resume_updates, key=lambda pair: pair[0]):
        apply_updates(loop.values, [(START, update)], loop.builder.channels)
    yield Emit("values", loop.state())
    if input is not None:
        yield from apply_command(loop, input)
    if travel is not None and travel.forks:
        yield from time_travel.fork(loop, saved)
    if loop.next == [START] and not getattr(loop.builder, "direct_input", False):
        # An "input" checkpoint (a run's first, or update_state(as_node="__input__")): its input runs.
        # Its __start__ result, when restored (a copy given StateUpdate(values, "__start__")), replaces the input.
        start = loop.restored.pop(f"{loop.checkpoint_id}:0:{START}", None)
        given = start is not None and start.done
        yield from take_input(loop, (start.update if given else saved.checkpoint.get("input")) or {},
                                    record=not given)

def apply_command(loop: "Loop", input: Command) -> Effects:
    if input.has_resume:
        yield from apply_resume(loop, input.resume)
    if input.update:
        apply_updates(loop.values, [(START, input.update)], loop.builder.channels)
        if input.has_resume:  # the node may pause again: keep the update with the checkpoint
            task_id = f"{loop.checkpoint_id}:{UPDATE}:{len(loop.resume_updates):06d}"
            loop.resume_updates.append((task_id, input.update))
            yield IO(partial(loop.saver.put_writes, loop.saved_config, [(UPDATE, input.update)], task_id))  # type: ignore[union-attr]
    for target in input.goto_list():
        name = target.node if isinstance(target, Send) else target
        if name != END and name not in loop.builder.nodes:
            raise InvalidUpdateError(f"Command(goto={target!r}) names no node; nodes are {list(loop.builder.nodes)}")
        if isinstance(target, Send) or (target not in loop.next and target != END):
            loop.next.append(target)

def apply_resume(loop: "Loop", value: Any) -> Effects:
    loop.resume_value = value
    paused = [t for t in loop.restored.values() if t.interrupts and not t.done]
    if not paused and loop.next:  # a breakpoint: the next step's first interrupt() takes the value
        loop.spare = SpareResume(value)
        return
    if not paused:
        raise EmptyInputError(
            f"thread {loop.thread[0]!r} is not paused, so Command(resume=...) has nothing to answer; "  # type: ignore[index]
            "invoke(input, config) starts a new run (invoke(None, config) continues a paused one)"
        )
    for task, answer in answers(value, paused):  # rag.graph._resume: maps by interrupt id, ambiguity
        task.resume.append(answer)
        task.answered += 1
        yield IO(partial(loop.saver.put_writes, loop.saved_config, [(RESUME, task.resume)], task.id))  # type: ignore[union-attr]
