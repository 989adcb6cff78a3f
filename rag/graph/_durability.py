"""When a run's checkpoints reach the saver: LangGraph's ``durability`` run option.

``invoke/stream(..., durability=...)`` (and their async forms) take one of:

- ``"sync"`` (our default): each step's checkpoint is saved before the next step starts,
  so a crash at any point leaves the thread at the last step that finished;
- ``"async"`` (LangGraph's default, where the save runs in a background thread while the
  next step runs): saved here as ``"sync"`` saves, which keeps every promise ``"async"``
  makes (each checkpoint saved, in order, before the run returns) and a stronger one;
- ``"exit"``: checkpoints are made in memory only, and the last one is saved when the run
  stops: at its end, at an ``interrupt()`` or a breakpoint, on an error (with the pending
  writes of the step that failed or paused). A run therefore adds one checkpoint to the
  thread instead of one per step, and a crash of the process mid-run leaves the thread
  at the checkpoint saved before the run (the run's steps are lost).

The option travels in the run config under LangGraph's key (``"__pregel_durability"``
in ``configurable``), so a subgraph runs with its parent's durability. A subgraph under
``"exit"`` saves at its end only when it keeps state across runs
(``compile(checkpointer=True)``); a stateless one saves only when it pauses or fails,
since a finished one is never read again (as LangGraph's).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generator, Mapping, Optional

from rag.errors import ValidationError
from rag.graph._effects import IO

__all__ = ["DURABILITY", "DURABILITY_KEY", "Unsaved", "run_options", "durability_of", "save", "put_writes", "flush",
           "run"]

#: The accepted values of ``durability=``.
DURABILITY = ("sync", "async", "exit")
#: Where the run config carries it (LangGraph's ``CONFIG_KEY_DURABILITY``).
DURABILITY_KEY = "__pregel_durability"

_OPTIONS = "stream_mode, print_mode, interrupt_before, interrupt_after, durability, debug, subgraphs"


@dataclass
class Unsaved:
    """The checkpoint ``"exit"`` holds back: ``saver.put``'s arguments, and the pending
    writes made against it since (``(writes, task_id)``), saved after it."""

    args: tuple[Any, ...]
    writes: list[tuple[list[tuple[str, Any]], str]] = field(default_factory=list)

    def save(self, saver: Any) -> Any:
        """Save it now, then its writes; the saved checkpoint's config."""
        config = saver.put(*self.args)
        for writes, task_id in self.writes:
            saver.put_writes(config, writes, task_id)
        return config


def run_options(options: Mapping[str, Any], config: Optional[Mapping[str, Any]]) -> Optional[dict[str, Any]]:
    """Check a run's extra keyword options (LangGraph's: harmless ones accepted, the rest
    refused by name: ignoring ``subgraphs=True`` would silently change the chunks' shape)
    and return ``config`` carrying ``durability`` when it was given (else ``config``)."""
    durability = None
    for key, value in options.items():
        if key in ("debug", "subgraphs", "print_mode"):  # print_mode, debug: rag.graph._run_modes
            continue
        if key == "durability":
            if value is not None and value not in DURABILITY:
                raise ValidationError(f"durability={value!r} is not one of {list(DURABILITY)}: 'sync' saves each "
                                      "step before the next, 'exit' only when the run stops")
            durability = value
            continue
        raise ValidationError(f"{key}={value!r} is not supported by this graph; supported options: {_OPTIONS}")
    if durability is None:
        return None if config is None else dict(config)
    config = dict(config or {})
    config["configurable"] = {**(config.get("configurable") or {}), DURABILITY_KEY: durability}
    return config


def durability_of(config: Mapping[str, Any]) -> str:
    """The durability a run with ``config`` saves with (``"sync"`` unless it says)."""
    return (config.get("configurable") or {}).get(DURABILITY_KEY) or "sync"


def save(loop: Any, source: str, writers: list[str]) -> Generator[Any, Any, None]:
    """Make the loop's current state its new checkpoint (``source``, ``writers``: see
    :meth:`rag.graph._loop.Loop.put_args`) and save it, or (``"exit"``) keep it for
    :func:`flush`. The checkpoint gets its id either way: task ids derive from it."""
    from rag.graph import _debug_stream as debug_stream
    from rag.graph.checkpoint.base import thread_of

    if loop.saver is None:
        loop.checkpoint_id = str(loop.step)  # task ids only need to differ between steps
        return
    parent, _, metadata, _ = args = loop.put_args(source, writers)
    # The finished step's task results, saved with this checkpoint (rag.graph._time_travel);
    # under "exit" the steps' checkpoints are not kept, nor their results.
    step_writes, loop.step_writes = loop.step_writes, []
    if loop.durability == "exit":
        # Only the last one is saved (each holds the whole state); the writes made against
        # the one it replaces go with it, as LangGraph keeps a step's writes in memory.
        loop.unsaved = Unsaved(args)
        thread_id, ns, _ = loop.thread
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": loop.checkpoint_id}}
    else:
        call = partial(loop.saver.put_step, *args[:3], step_writes) if step_writes else partial(loop.saver.put, *args)
        loop.saved_config = config = yield IO(call)
    if debug_stream.wanted(loop.modes):
        # Under "exit" LangGraph names as parent the one of the checkpoint the run started from
        # (its steps' checkpoints are not saved), None for a new thread.
        shown_parent = loop.loaded_parent if loop.durability == "exit" else parent
        shown_parent = shown_parent if shown_parent and thread_of(shown_parent)[2] else None
        yield from debug_stream.checkpoint_events(loop, shown_parent, metadata, config)


def put_writes(loop: Any, writes: list[tuple[str, Any]], task_id: str) -> Generator[Any, Any, None]:
    """Save ``task_id``'s pending ``writes`` with the loop's current checkpoint (under
    ``"exit"``, with it when it is saved, or not at all if a newer one replaces it)."""
    if loop.unsaved is not None:
        loop.unsaved.writes.append((writes, task_id))
        return
    yield IO(partial(loop.saver.put_writes, loop.saved_config, writes, task_id))


def flush(loop: Any) -> Generator[Any, Any, None]:
    """Save the checkpoint ``"exit"`` held back, if any, with its writes (before writes
    that refer to it)."""
    if loop.unsaved is not None:
        unsaved, loop.unsaved = loop.unsaved, None
        loop.saved_config = yield IO(partial(unsaved.save, loop.saver))


def run(loop: Any, effects: Generator[Any, Any, None]) -> Generator[Any, Any, None]:
    """``effects`` (the loop's run), with ``"exit"``'s save when it stops."""
    if loop.durability != "exit" or loop.saver is None:
        return (yield from effects)
    try:
        yield from effects
    except GeneratorExit:
        # The consumer stopped reading the stream: nothing more may be yielded, so the
        # save is made here (our savers' put is synchronous), as LangGraph saves on exit.
        if loop.unsaved is not None:
            unsaved, loop.unsaved = loop.unsaved, None
            unsaved.save(loop.saver)
        raise
    except BaseException:
        yield from flush(loop)
        raise
    # A finished stateless subgraph is not read again; a breakpoint leaves steps due.
    if loop.link is None or loop.graph.checkpointer is True or loop.next:
        yield from flush(loop)
