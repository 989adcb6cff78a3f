"""What the superstep loop (:mod:`rag.graph._loop`) hands its drivers (:mod:`rag.graph._drive`):
the record of one task, and the effects the loop yields (a stream chunk, a checkpointer
call, a conditional-edge decision, tasks to run). Kept apart so the loop's module holds
only the rules of a step."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Iterable, Mapping, Optional

from rag.errors import ValidationError
from rag.graph.constants import PULL, PUSH
from rag.graph.types import Send
from rag.messages import BaseMessage

__all__ = ["Task", "Emit", "IO", "Decide", "RunTasks", "Effects", "recursion_limit", "messages_in",
           "task_path", "DEFAULT_RECURSION_LIMIT"]

#: Supersteps one invocation may run (LangGraph 1.2: 10,007); config["recursion_limit"] overrides.
DEFAULT_RECURSION_LIMIT = 25


@dataclass
class Task:
    """One node run in one step. ``update``/``goto`` once it finished (``done``)."""

    id: str
    name: str
    triggers: tuple[str, ...]
    config: dict[str, Any] = field(default_factory=dict)
    update: Optional[dict[str, Any]] = None
    goto: list[str] = field(default_factory=list)
    interrupts: tuple[Any, ...] = ()
    paused: bool = False  # stopped by interrupt(), or by a breakpoint of a subgraph it ran (no interrupts)
    resume: list[Any] = field(default_factory=list)
    answered: int = 0  # resume values added to ``resume`` by this invocation
    error: Optional[BaseException] = None
    done: bool = False
    ran: bool = False  # ran in this invocation (not restored from pending writes)
    push: bool = False  # made by a Send: the node runs on ``arg``, not on the state
    arg: Any = None
    writer: Optional[Callable[[Any], None]] = None  # get_stream_writer()'s target
    cached: bool = False  # its update came from the node cache (rag.graph._node_cache), the node did not run
    calls: Any = None  # the rag.graph._calls.CallLog of the @task calls the node made (None: none yet)
    parts: Optional[list[Any]] = None  # the updates of a node that returned a list of them, streamed as such
    spare: Any = None  # a rag.graph._resume.SpareResume its first interrupt() may take (resumed at a breakpoint)


def task_path(entries: list[Any], index: int) -> tuple[Any, ...]:
    """LangGraph's path of the task for ``entries[index]`` (a step's nodes due: names and
    Sends): ``("__pregel_pull", name)`` for a node its edges started, ``("__pregel_push", i,
    False)`` for a Send, ``i`` its place among the step's Sends (LangGraph's index in its
    tasks channel; False: not a @task call)."""
    entry = entries[index]
    if isinstance(entry, Send):
        return (PUSH, sum(isinstance(e, Send) for e in entries[:index]), False)
    return (PULL, entry)


@dataclass(frozen=True)
class Emit:
    mode: str
    chunk: Any


@dataclass(frozen=True)
class IO:
    call: Callable[[], Any]
    #: Whether the async driver runs ``call`` in a thread; None: as the checkpointer does
    #: (the node cache says its own: a SqliteCache blocks even beside an in-memory saver).
    blocking: Optional[bool] = None


@dataclass(frozen=True)
class Decide:
    """Ask a conditional edge where to go (its answer is sent back): a driver effect so an
    async path function is awaited on the run's own event loop."""

    branch: Any
    state: dict[str, Any]
    config: dict[str, Any]


@dataclass(frozen=True)
class RunTasks:
    tasks: list[Task]
    state: dict[str, Any]
    checkpointed: bool
    #: A finished task's stream chunks (rag.graph._stream_tasks.finished): the driver calls it
    #: as each task ends and streams the chunks at once, or (one task, nothing streamed live)
    #: sends them back for the loop to stream once the step is saved. None: nothing to stream.
    finished: Optional[Callable[[Task], list[Any]]] = None


Effects = Generator[Any, Any, None]


def recursion_limit(config: Optional[Mapping[str, Any]]) -> int:
    limit = (config or {}).get("recursion_limit", DEFAULT_RECURSION_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValidationError(f"recursion_limit must be a positive int, got {limit!r}")
    return limit


def messages_in(update: Optional[dict[str, Any]]) -> Iterable[BaseMessage]:
    for value in (update or {}).values():
        if isinstance(value, BaseMessage):
            yield value
        elif isinstance(value, list):
            yield from (item for item in value if isinstance(item, BaseMessage))
