"""What a run gives its nodes besides the state (LangGraph 1.2's ``langgraph.runtime``):
the run's ``context`` (``invoke(..., context=...)``), the long-term ``store``
(``compile(store=...)``), the ``stream_writer`` of ``stream_mode="custom"``, and, in the
functional API, the ``previous`` return value of the thread.

A node receives it by declaring a ``runtime`` parameter; anywhere below a running node,
:func:`get_runtime` returns it.

>>> from dataclasses import dataclass
>>> from typing import TypedDict
>>> from rag.graph import StateGraph, START
>>> @dataclass
... class Ctx:
...     user: str
>>> class S(TypedDict):
...     greeting: str
>>> def greet(state: S, runtime: Runtime[Ctx]) -> dict:
...     return {"greeting": f"hello {runtime.context.user}"}
>>> app = StateGraph(S, context_schema=Ctx).add_node("greet", greet).add_edge(START, "greet").compile()
>>> app.invoke({"greeting": ""}, context=Ctx(user="ada"))
{'greeting': 'hello ada'}
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Generic, Optional, TypeVar

from rag.errors import UsageError
from rag.graph.types import CURRENT_TASK

__all__ = ["Runtime", "ExecutionInfo", "RunControl", "get_runtime"]

ContextT = TypeVar("ContextT")


@dataclass(frozen=True, slots=True)
class ExecutionInfo:
    """Read-only facts about the running node: ``checkpoint_id`` and ``checkpoint_ns`` of the
    step ("" without a checkpointer), ``task_id``, ``thread_id`` (None without a
    checkpointer), ``run_id`` (None unless the config has one), ``node_attempt`` (1-indexed:
    2 on the first retry of a ``retry_policy``) and ``node_first_attempt_time`` (Unix
    seconds of the first attempt, or None)."""

    checkpoint_id: str
    checkpoint_ns: str
    task_id: str
    thread_id: Optional[str] = None
    run_id: Optional[str] = None
    node_attempt: int = 1
    node_first_attempt_time: Optional[float] = None

    def patch(self, **overrides: Any) -> "ExecutionInfo":
        """A copy with the given fields replaced."""
        return replace(self, **overrides)


class RunControl:
    """Asks a running graph to stop cooperatively (LangGraph's ``RunControl``): after
    :meth:`request_drain`, the run finishes the step under way (tasks it calls included)
    and raises :class:`~rag.graph.errors.GraphDrained` before the next one, with that step
    checkpointed. Pass it as ``invoke(..., control=control)``; one per run (a drained
    control stays drained). Safe to call from any thread: the request is one attribute write.

    >>> control = RunControl()
    >>> control.request_drain("deploy")
    >>> control.drain_requested, control.drain_reason
    (True, 'deploy')
    """

    __slots__ = ("_drain_reason",)

    def __init__(self) -> None:
        self._drain_reason: Optional[str] = None

    def request_drain(self, reason: str = "shutdown") -> None:
        self._drain_reason = reason

    @property
    def drain_requested(self) -> bool:
        return self._drain_reason is not None

    @property
    def drain_reason(self) -> Optional[str]:
        return self._drain_reason


def _no_op_stream_writer(chunk: Any) -> None:
    """The writer when nobody streams "custom": chunks are dropped, as in LangGraph."""


def _no_op_heartbeat() -> None:
    """LangGraph's idle-timeout heartbeat; rag.graph has no idle timeouts, so it does nothing."""


# Not slots=True as LangGraph's: with slots, ``Runtime[Ctx](context=...)`` fails on Python
# 3.11 (typing sets ``__orig_class__`` through a frozen __setattr__ bound to the pre-slots class).
@dataclass(frozen=True, kw_only=True)
class Runtime(Generic[ContextT]):
    """Run-scoped dependencies handed to nodes (LangGraph's ``Runtime``; fields keyword-only).

    ``context``: what the caller passed as ``invoke(..., context=...)`` (None when nothing
    was passed), typically an instance of the graph's ``context_schema``; ``store``: the
    compiled graph's long-term store or None; ``stream_writer``: sends a value to the
    ``stream_mode="custom"`` stream (a no-op when that mode is not streamed); ``previous``:
    the thread's previous return value in the functional API (None elsewhere);
    ``execution_info``: the running node's ids (see :class:`ExecutionInfo`), None outside a
    node; ``control``: the run's :class:`RunControl` (a node may request a drain through
    it); ``heartbeat``: accepted for LangGraph compatibility, does nothing.

    The config is not here (as in LangGraph): declare a ``config`` parameter or call
    :func:`rag.graph.config.get_config`.

    >>> Runtime(context={"user": "ada"}).context["user"]
    'ada'
    """

    context: ContextT = field(default=None)  # type: ignore[assignment]
    store: Any = field(default=None)
    stream_writer: Callable[[Any], None] = field(default=_no_op_stream_writer)
    heartbeat: Callable[[], None] = field(default=_no_op_heartbeat)
    previous: Any = field(default=None)
    execution_info: Optional[ExecutionInfo] = field(default=None)
    control: Optional[RunControl] = field(default=None)

    def merge(self, other: "Runtime[ContextT]") -> "Runtime[ContextT]":
        """This runtime with what ``other`` sets taken from ``other``: a falsy context or
        store, the no-op writer and a None ``previous`` in ``other`` keep this one's (as
        LangGraph's ``merge``)."""
        return Runtime(
            context=other.context or self.context,
            store=other.store or self.store,
            stream_writer=other.stream_writer if other.stream_writer is not _no_op_stream_writer
            else self.stream_writer,
            heartbeat=other.heartbeat if other.heartbeat is not _no_op_heartbeat else self.heartbeat,
            previous=self.previous if other.previous is None else other.previous,
            execution_info=other.execution_info or self.execution_info,
            control=other.control or self.control,
        )

    def override(self, **overrides: Any) -> "Runtime[ContextT]":
        """A copy with the named fields replaced (``runtime.override(context=...)``); an
        unknown name raises ``TypeError`` naming it."""
        return replace(self, **overrides)

    @property
    def drain_requested(self) -> bool:
        """Whether the run's :class:`RunControl` was asked to drain."""
        return self.control.drain_requested if self.control is not None else False

    @property
    def drain_reason(self) -> Optional[str]:
        return self.control.drain_reason if self.control is not None else None

    def patch_execution_info(self, **overrides: Any) -> "Runtime[ContextT]":
        """A copy whose :class:`ExecutionInfo` has the given fields replaced; raises
        ``RuntimeError`` when there is none yet (outside a node)."""
        if self.execution_info is None:
            raise RuntimeError("Cannot patch execution_info before it has been set")
        return replace(self, execution_info=self.execution_info.patch(**overrides))


DEFAULT_RUNTIME: Runtime[Any] = Runtime()


def get_runtime(context_schema: Optional[type[ContextT]] = None) -> Runtime[ContextT]:
    """The :class:`Runtime` of the node that is running (in this thread or asyncio task).

    ``context_schema`` only types the result (as in LangGraph); it is not checked. Raises
    :class:`rag.errors.UsageError` when called outside a running graph node or task.
    """
    scope = CURRENT_TASK.get()
    if scope is None:
        raise UsageError("get_runtime() can only be called inside a graph node or task while the graph runs")
    runtime = getattr(scope, "runtime", None)
    if runtime is None:  # a scope made without a runtime (e.g. a bare task): still its writer
        return Runtime(stream_writer=scope.writer or _no_op_stream_writer)
    return runtime
