"""The graph's errors, under the toolkit's one tree (:mod:`rag.errors`).

::

    GraphRecursionError(RagError, RecursionError)  the run needed more steps than recursion_limit
    InvalidUpdateError(ValidationError)            a node's update does not fit the state
    GraphInterrupt(RagError)                       interrupt() pausing a node (caught by the graph)
    AmbiguousResumeError(ValidationError, RuntimeError)  one resume value, several pending interrupts
    UnknownInterruptError(ValidationError)         a resume map naming an interrupt that is not pending
    InvalidCheckpointerError(ValidationError, TypeError)  compile(checkpointer=...) got no saver
    GraphDrained(RagError)                         the run stopped between steps: RunControl.request_drain()
    ParentCommand(InvalidUpdateError)              Command(graph=Command.PARENT) out of a graph with no parent

``EmptyInputError``, ``ThreadNotFoundError`` and ``CheckpointerRequiredError`` say what to do
where LangGraph silently does nothing or fails deep inside.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rag.errors import NotFoundError, RagError, UsageError, ValidationError

__all__ = [
    "GraphRecursionError",
    "InvalidUpdateError",
    "GraphInterrupt",
    "EmptyInputError",
    "AmbiguousResumeError",
    "InvalidCheckpointerError",
    "is_invalid_resume",
    "ThreadNotFoundError",
    "CheckpointerRequiredError",
    "GraphDrained",
    "ParentCommand",
    "NodeError",
    "UnknownInterruptError",
]


class GraphRecursionError(RagError, RecursionError):
    """The run needed more supersteps than ``config["recursion_limit"]`` (default 25)."""


class InvalidUpdateError(ValidationError):
    """A node returned a key that is not in the state, a value its reducer refuses, two
    values for a key without a reducer in one step, or routed to an unknown node."""


class ParentCommand(InvalidUpdateError):
    """A node returned ``Command(graph=Command.PARENT)``: carried up to the graph that runs
    its graph as a subgraph, whose task then returns the command (``args[0]``, as
    LangGraph's); raised out of ``invoke`` when the graph runs on its own (no parent)."""

    def __init__(self, command: Any) -> None:
        super().__init__(command)
        self.command = command
        self.for_parent = False  # set once it has left the subgraph whose node returned it

    def __str__(self) -> str:
        return (f"a node returned {self.command!r} to its parent graph, but this graph is not run as a subgraph "
                "(add it as a node of another graph, or invoke it inside one's node)")


class EmptyInputError(ValidationError):
    """The graph got ``None`` (resume) or a ``Command`` for a thread with nothing to resume."""


class AmbiguousResumeError(ValidationError, RuntimeError):
    """``Command(resume=value)`` (one value, no interrupt ids) while several interrupts are
    pending. A ``ValueError`` under the toolkit's tree, and the ``RuntimeError`` LangGraph raises."""


class UnknownInterruptError(ValidationError):
    """``Command(resume={interrupt_id: answer})`` names an interrupt that is not pending
    (unknown, or already answered), or the map is empty; raised before anything is saved,
    so the pending interrupts can still be answered. As LangGraph 1.2's (there only in its
    strict resume mode): ``reason`` is ``"not_pending"`` or ``"empty_map"`` (``"ambiguous"``
    is :class:`AmbiguousResumeError`), ``interrupt_ids`` the ids refused, ``pending_ids``
    the ids still waiting for an answer."""

    def __init__(self, message: str, *, reason: str, interrupt_ids: Any = (), pending_ids: Any = ()) -> None:
        super().__init__(message)
        self.reason = reason
        self.interrupt_ids = tuple(interrupt_ids)
        self.pending_ids = tuple(pending_ids)


class InvalidCheckpointerError(ValidationError, TypeError):
    """``compile(checkpointer=...)`` got something that is not a saver: a ``ValueError``
    under the toolkit's tree, and the ``TypeError`` LangGraph raises."""


class ThreadNotFoundError(NotFoundError):
    """A resume (``Command(resume=...)``, ``invoke(None, config)``) names a thread with no checkpoint."""


class CheckpointerRequiredError(UsageError):
    """``interrupt()``, ``get_state`` or a resume was used on a graph compiled without a checkpointer."""


class GraphInterrupt(RagError):
    """Raised by :func:`~rag.graph.types.interrupt` to pause the node; the graph catches it.

    Like LangGraph's, it derives from ``Exception``: a node's ``except Exception`` around
    ``interrupt()`` would swallow the pause, so keep ``interrupt()`` outside such blocks.
    """

    def __init__(self, interrupts: tuple[Any, ...]) -> None:
        super().__init__(f"graph interrupted: {interrupts!r:.200}")
        self.interrupts = interrupts


class GraphDrained(RagError):
    """The run stopped before its next step because ``RunControl.request_drain(reason)`` was
    called (e.g. on SIGTERM); the step before is checkpointed, so ``invoke(None, config)``
    continues it later. ``reason``: what the drain request said (default "shutdown")."""

    def __init__(self, reason: str = "shutdown") -> None:
        super().__init__(f"Graph drained: {reason}")
        self.reason = reason


@dataclass(frozen=True)
class NodeError:
    """What a node's error handler (``add_node(..., error_handler=handler)``) is told when
    it declares a parameter ``error: NodeError``: the ``node`` that raised and its ``error``
    (LangGraph 1.2's ``langgraph.errors.NodeError``; not an exception itself)."""

    node: str
    error: BaseException


def is_invalid_resume(error: BaseException) -> bool:
    """Whether ``error`` was raised because a resume value did not match its interrupt's
    ``response_schema`` (LangGraph's ``langgraph.errors.is_invalid_resume``)."""
    from rag.graph.types import is_invalid_resume as check

    return check(error)
