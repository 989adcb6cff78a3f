"""What flows in and out of a graph run: :class:`Command`, :class:`Interrupt`,
:class:`StateSnapshot`, and :func:`interrupt` (LangGraph's ``langgraph.types``).

>>> Command(resume="yes")
Command(resume='yes')
"""

from __future__ import annotations

import contextvars
import hashlib
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Generic, NamedTuple, Optional, Sequence, TypeVar, Union

from rag.graph.cache.base import check_ttl
from rag.graph.cache.keys import default_cache_key
from rag.graph.errors import CheckpointerRequiredError, GraphInterrupt
from rag.errors import InvalidTypeError, UsageError
from rag.tools.base import ToolOutputMixin

__all__ = ["Command", "Interrupt", "Send", "StateSnapshot", "StateUpdate", "PregelTask", "interrupt",
           "is_invalid_resume", "StreamWriter", "CachePolicy", "CacheKey", "Overwrite"]

_UNSET: Any = object()

#: The node names a ``Command[Literal["a", "b"]]`` return annotation lists (its destinations).
N = TypeVar("N")

#: What a node declaring a ``writer`` parameter receives: call it with any value to send it
#: to the ``stream_mode="custom"`` stream (LangGraph's ``StreamWriter``).
StreamWriter = Callable[[Any], None]


class StateUpdate(NamedTuple):
    """One update of ``bulk_update_state``: ``values`` as if node ``as_node`` returned them
    (``task_id`` is accepted for LangGraph compatibility and not used)."""

    values: Optional[dict[str, Any]]
    as_node: Optional[str] = None
    task_id: Optional[str] = None


@dataclass(frozen=True)
class Interrupt:
    """A pause: ``value`` is what :func:`interrupt` was given (shown to the person), ``id``
    tells pauses apart when several nodes paused in one step (resume them with
    ``Command(resume={id: value, ...})``)."""

    value: Any
    id: str = ""
    #: The JSON schema of the answer expected on resume (``interrupt(..., response_schema=...)``),
    #: for clients that render a form; None when the node gave none.
    response_schema: Optional[dict[str, Any]] = None


@dataclass(frozen=True)
class Send:
    """Run ``node`` in the next step on ``arg`` instead of the state (map-reduce): a
    conditional edge returns a list of them, one per item, and each runs as its own task.

    >>> Send("summarise", {"chunk": "..."}).node
    'summarise'
    """

    node: str
    arg: Any


@dataclass(frozen=True)
class Command(Generic[N], ToolOutputMixin):  # a tool may return one: it reaches the graph as it is
    """What to do next, as a graph input or a node's return value.

    ``resume``: the value the paused :func:`interrupt` call returns (or ``{interrupt_id:
    value}`` when several nodes paused); ``update``: state updates (a dict), applied
    through the reducers; ``goto``: a node name, a :class:`Send`, or a list of them to run
    next (added to the node's edges when a node returns it).

    >>> Command(update={"approved": True}, goto="act").goto
    'act'
    """

    update: Optional[dict[str, Any]] = None
    resume: Any = _UNSET
    goto: Union[str, Send, Sequence[Union[str, Send]]] = ()
    graph: Optional[str] = None

    def __repr__(self) -> str:
        parts = [f"{name}={value!r}" for name, value in (("update", self.update), ("resume", self.resume),
                                                          ("goto", self.goto), ("graph", self.graph))
                 if value is not None and value is not _UNSET and value != ()]
        return f"Command({', '.join(parts)})"

    @property
    def has_resume(self) -> bool:
        return self.resume is not _UNSET

    def goto_list(self) -> list[Union[str, Send]]:
        return [self.goto] if isinstance(self.goto, (str, Send)) else list(self.goto)

    PARENT = "__parent__"


@dataclass(frozen=True)
class Overwrite:
    """Write ``value`` to a key as it is, bypassing the key's reducer (LangGraph's); a
    node may also return the JSON form ``{"__overwrite__": value}``. Two overwrites of one
    key in one step raise :class:`~rag.graph.errors.InvalidUpdateError`; in the step of an
    overwrite, the key's other updates are dropped.

    >>> Overwrite(["b"]).value
    ['b']
    """

    value: Any


#: The JSON form of :class:`Overwrite` (a dict with this one key), as LangGraph's.
OVERWRITE = "__overwrite__"


@dataclass(frozen=True, kw_only=True)
class CachePolicy:
    """Cache a node's result (``add_node(..., cache_policy=CachePolicy())`` with
    ``compile(cache=InMemoryCache())``): a later run giving the node an input with the same
    key skips the node and applies the stored update (shown in the "updates" stream with
    ``"__metadata__": {"cached": True}``).

    ``key_func``: from the node's input to a str or bytes key (default: canonical JSON of
    the input, see :func:`rag.graph.cache.keys.default_cache_key`); ``ttl``: seconds an
    entry lives (None: until ``clear_cache()``).

    >>> CachePolicy(ttl=60).ttl
    60
    """

    key_func: Callable[..., Union[str, bytes]] = default_cache_key
    ttl: Optional[float] = None

    def __post_init__(self) -> None:
        if not callable(self.key_func):
            raise InvalidTypeError(f"CachePolicy(key_func=...) must be a function of the node's input, got "
                                   f"{self.key_func!r:.80}")
        check_ttl(self.ttl)


class CacheKey(NamedTuple):
    """Where one task's result is cached: ``ns`` (namespace), ``key``, ``ttl`` seconds or None."""

    ns: tuple[str, ...]
    key: str
    ttl: Optional[float]


@dataclass(frozen=True)
class PregelTask:
    """A node due to run from a checkpoint: ``interrupts`` it paused with, ``result`` its
    update when it already finished in a step that did not complete (or None)."""

    id: str
    name: str
    path: tuple[str, ...] = ()
    error: Any = None  # the repr of the error the node raised in a step that failed (or None)
    interrupts: tuple[Interrupt, ...] = ()
    state: Any = None
    result: Any = None


@dataclass(frozen=True)
class StateSnapshot:
    """A thread's state at one checkpoint (``get_state``, ``get_state_history``).

    ``values``: the state; ``next``: nodes that run next (empty when the run ended);
    ``config``: the config that points at this checkpoint (pass it to ``invoke`` or
    ``update_state`` to go back here); ``metadata``: ``{"source": "input" | "loop" |
    "update" | "fork", "step": int, "parents": {}}``; ``created_at``: ISO 8601 UTC;
    ``parent_config``: the previous checkpoint; ``tasks``/``interrupts``: pending work.
    """

    values: dict[str, Any]
    next: tuple[str, ...]
    config: dict[str, Any]
    metadata: Optional[dict[str, Any]]
    created_at: Optional[str]
    parent_config: Optional[dict[str, Any]]
    tasks: tuple[PregelTask, ...] = ()
    interrupts: tuple[Interrupt, ...] = ()

    def _replace(self, **changes: Any) -> "StateSnapshot":
        """A copy with ``changes`` (LangGraph's StateSnapshot is a NamedTuple: code copies it so)."""
        return replace(self, **changes)


# -- interrupt(): the running task's scope ---------------------------------------------------
@dataclass
class TaskScope:
    """What :func:`interrupt` needs from the node it runs in (set by the graph per task)."""

    task_id: str
    node: str
    checkpointed: bool
    resume: list[Any] = field(default_factory=list)
    calls: int = 0
    writer: Optional[Callable[[Any], None]] = None  # stream_mode="custom"; None: not streamed
    config: Optional[dict[str, Any]] = None
    runtime: Any = None  # the rag.graph.runtime.Runtime get_runtime() returns (None: a default one)
    spare: Optional[Callable[[], tuple[bool, Any]]] = None  # a resume sent at a breakpoint: (taken, value)


CURRENT_TASK: contextvars.ContextVar[Optional[TaskScope]] = contextvars.ContextVar("rag_graph_task", default=None)


def interrupt_id(task_id: str, index: int) -> str:
    """A stable id for the ``index``-th interrupt of a task (same on every re-run)."""
    return hashlib.sha1(f"{task_id}:{index}".encode()).hexdigest()[:32]


_INVALID_RESUME = "__rag_invalid_resume__"


def is_invalid_resume(error: BaseException) -> bool:
    """Whether ``error`` was raised because a resume value did not match the
    ``response_schema`` of its :func:`interrupt` (a pydantic ``ValidationError``)."""
    return getattr(error, _INVALID_RESUME, False) is True


def _schema_of(response_schema: Any) -> tuple[Any, Optional[dict[str, Any]]]:
    """``(validator or None, JSON schema or None)`` for ``interrupt``'s ``response_schema``:
    a JSON schema dict is shown as is and not checked; a pydantic model, TypedDict or
    dataclass is shown as its JSON schema and validates the answer (as LangGraph 1.2)."""
    if response_schema is None or isinstance(response_schema, dict):
        return None, response_schema
    from pydantic import TypeAdapter

    adapter = TypeAdapter(response_schema)
    return adapter, adapter.json_schema()


def _validated(adapter: Any, answer: Any) -> Any:
    if adapter is None:
        return answer
    try:
        return adapter.validate_python(answer)
    except Exception as exc:  # pydantic.ValidationError: marked so the graph keeps the pause open
        setattr(exc, _INVALID_RESUME, True)
        raise


def interrupt(value: Any, *, response_schema: Any = None) -> Any:
    """Pause the running node and hand ``value`` to the caller under ``"__interrupt__"``.

    The run stops after the current step (other nodes of the step keep their results) and
    the thread's checkpoint records the pause. ``invoke(Command(resume=answer), config)``
    runs the node again **from its top**: this call then returns ``answer``. Code before
    ``interrupt()`` therefore runs twice: keep side effects after it, or make them
    idempotent. A node may call ``interrupt()`` several times; the n-th call returns the
    n-th resume value.

    Needs a checkpointer (``compile(checkpointer=InMemorySaver())``) and a ``thread_id``
    in the config, which the pause is saved under.

    ``response_schema`` (as LangGraph 1.2): a JSON schema dict, shown to the caller in
    ``Interrupt.response_schema`` and not checked; or a pydantic model, TypedDict or
    dataclass, shown as its JSON schema and used to validate the answer, which this call
    then returns validated. An answer that does not fit raises pydantic's
    ``ValidationError`` (:func:`is_invalid_resume` tells it apart) and is not kept: the
    pause can be answered again. Keep plain data in the state: a model instance cannot be
    saved in a JSON checkpoint (``.model_dump()`` it).
    """
    scope = CURRENT_TASK.get()
    if scope is None:
        raise UsageError("interrupt() can only be called inside a graph node while the graph runs")
    if not scope.checkpointed:
        raise CheckpointerRequiredError(
            f"interrupt() in node {scope.node!r} needs a checkpointer to save the pause: "
            "compile(checkpointer=InMemorySaver()) and call with config={'configurable': {'thread_id': ...}}"
        )
    adapter, schema = _schema_of(response_schema)
    index = scope.calls
    scope.calls += 1
    if index < len(scope.resume):
        return _validated(adapter, scope.resume[index])
    if scope.spare is not None:  # Command(resume=value) passed a breakpoint: the first to ask gets value
        taken, answer = scope.spare()
        if taken:
            scope.resume.append(answer)
            return _validated(adapter, answer)
    raise GraphInterrupt((Interrupt(value, interrupt_id(scope.task_id, index), schema),))


def __getattr__(name: str) -> Any:
    # RetryPolicy lives in rag.graph.retry (which imports this module's errors); offered here
    # too, where LangGraph keeps it, without an import cycle.
    if name == "RetryPolicy":
        from rag.graph.retry import RetryPolicy

        return RetryPolicy
    raise AttributeError(f"module 'rag.graph.types' has no attribute {name!r}")
