"""Reading saved checkpoints back as a graph can use them, or one clear error.

A checkpoint file can be damaged (a disk error, a half-copied file) or crafted. What
:func:`~rag.graph.checkpoint.serde.loads` gives back is then checked against the shape the
graph relies on (the checkpoint dict of :mod:`rag.graph.checkpoint.base`, the metadata, the
pending writes of a paused step), so the damage is found where it is read and reported as a
:class:`CorruptCheckpointError` naming the file, thread and checkpoint, never as a
``KeyError('channel_values')``, ``AttributeError`` or ``RecursionError`` deep inside a run.
What the state's values mean is the graph's business: they are only checked to be a dict
with str keys.
"""

from __future__ import annotations

from typing import Any, Callable

from rag.errors import StorageError
from rag.graph.checkpoint import serde
from rag.graph.constants import ERROR, INTERRUPT, RESULT, RESUME, UPDATE
from rag.graph.types import Interrupt, Send

__all__ = ["CorruptCheckpointError", "load_checkpoint", "load_metadata", "load_write", "check_key"]


class CorruptCheckpointError(StorageError):
    """A saved checkpoint, its metadata or a pending write cannot be read back as saved.
    ``location`` names it (file, thread, checkpoint); nothing is deleted: restore the file
    from a backup, or ``delete_thread`` the thread named to start it again."""

    def __init__(self, message: str, *, location: str) -> None:
        super().__init__(message)
        self.location = location


def _corrupt(location: str, what: str, problem: str) -> CorruptCheckpointError:
    return CorruptCheckpointError(
        f"{location}: the saved {what} is damaged ({problem}); nothing was changed: restore the file from a "
        "backup, or delete_thread() this thread to start it again", location=location)


def _decoded(data: Any, location: str, what: str) -> Any:
    if not isinstance(data, (bytes, str)):
        raise _corrupt(location, what, f"a {type(data).__name__} where JSON was saved")
    try:
        return serde.loads(data)
    # Whatever the JSON reader or a message's constructor raises on crafted fields (ValueError,
    # UnicodeDecodeError, TypeError, KeyError, RecursionError for deep nesting...) is damage.
    except Exception as exc:
        raise _corrupt(location, what, f"{type(exc).__name__}: {exc}"[:300]) from exc


def _str_keys(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(key, str) for key in value)


def _node(entry: Any) -> bool:
    return isinstance(entry, str) or (isinstance(entry, Send) and isinstance(entry.node, str))


def _problem(checks: list[tuple[bool, str]]) -> str | None:
    return next((problem for ok, problem in checks if not ok), None)


def load_checkpoint(data: Any, *, location: str, checkpoint_id: str) -> dict[str, Any]:
    """The checkpoint dict saved as ``data``; CorruptCheckpointError unless it has a str
    ``id`` equal to ``checkpoint_id`` (the row's), a ``channel_values`` dict with str keys,
    a list ``next`` of node names or Sends and (optional) ``joins`` of str lists."""
    value = _decoded(data, location, "checkpoint")
    if not isinstance(value, dict):
        raise _corrupt(location, "checkpoint", f"a {type(value).__name__}, not a dict")
    joins = value.get("joins") or {}
    problem = _problem([
        (value.get("id") == checkpoint_id, f"its id {value.get('id')!r:.60} is not its row's {checkpoint_id!r:.60}"),
        (_str_keys(value.get("channel_values")), "no 'channel_values' dict with str keys"),
        (isinstance(value.get("next", []), list) and all(_node(entry) for entry in value.get("next", [])),
         "'next' is not a list of node names"),
        (_str_keys(joins) and all(isinstance(v, list) and all(isinstance(n, str) for n in v) for v in joins.values()),
         "'joins' is not a dict of node-name lists"),
    ])
    if problem:
        raise _corrupt(location, "checkpoint", problem)
    return value


def load_metadata(data: Any, *, location: str) -> dict[str, Any]:
    """The metadata saved as ``data``: a dict with str keys whose ``step``, if any, is an int."""
    value = _decoded(data, location, "checkpoint metadata")
    step = value.get("step", -1) if isinstance(value, dict) else None
    if not _str_keys(value) or isinstance(step, bool) or not isinstance(step, int):
        raise _corrupt(location, "checkpoint metadata", "not a dict with an int 'step'")
    return value


def _result(value: Any) -> bool:
    # A finished task's {"update": dict of state keys or None, "goto": node names or Sends}.
    if not isinstance(value, dict):
        return False
    update, goto = value.get("update"), value.get("goto")
    return ((update is None or _str_keys(update))
            and (goto is None or (isinstance(goto, list) and all(_node(g) for g in goto))))


def _interrupts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(i, Interrupt) and isinstance(i.id, str) for i in value)


# The shape the loop reads from each write channel of a paused step.
_WRITE_SHAPES: dict[str, Callable[[Any], bool]] = {
    RESULT: _result,
    INTERRUPT: _interrupts,
    RESUME: lambda value: isinstance(value, list),
    UPDATE: lambda value: isinstance(value, dict),
    ERROR: lambda value: isinstance(value, str),
}


def load_write(task_id: Any, channel: Any, data: Any, *, location: str) -> tuple[str, str, Any]:
    """A pending write ``(task_id, channel, value)``, its value in the shape its channel needs."""
    where = f"{location}, task {task_id!r:.80}"
    if not isinstance(task_id, str) or not isinstance(channel, str):
        raise _corrupt(where, "pending write", "its task id or channel is not text")
    value = _decoded(data, where, f"pending write to {channel!r:.40}")
    shape = _WRITE_SHAPES.get(channel)
    if shape is not None and not shape(value):
        raise _corrupt(where, f"pending write to {channel!r}", f"a {type(value).__name__} of the wrong shape")
    return task_id, channel, value


def check_key(value: Any, *, location: str, what: str) -> str:
    """A thread id, namespace or checkpoint id read from a row: it must be text."""
    if not isinstance(value, str):
        raise _corrupt(location, f"checkpoint's {what}", f"a {type(value).__name__}, not text")
    return value
