"""Which paused task each ``Command(resume=...)`` value answers (LangGraph 1.2's rules).

- ``Command(resume={interrupt_id: answer, ...})``: a *resume map* (a dict whose keys all
  look like interrupt ids, 32 hex digits) answers those interrupts, each its own task. An id
  that is not pending (unknown, or already answered) is refused with
  :class:`~rag.graph.errors.UnknownInterruptError` naming it and the pending ids, before
  anything is saved -- where LangGraph, unless in its strict mode, drops it silently.
- ``Command(resume=value)``: answers the only paused task; with several paused tasks it is
  ambiguous (:class:`~rag.graph.errors.AmbiguousResumeError`, naming the ids to use).
- ``Command(resume=value)`` to a thread paused at a static breakpoint (``interrupt_before``
  / ``interrupt_after``, nothing asked): passes the breakpoint, and the first
  ``interrupt()`` called in the step that then runs returns ``value`` instead of pausing
  (:class:`SpareResume`, LangGraph's "null resume").
"""

from __future__ import annotations

import re
import threading
from typing import Any, Sequence

from rag.graph._calls import answering_tasks
from rag.graph.errors import AmbiguousResumeError, UnknownInterruptError

__all__ = ["is_resume_map", "answers", "SpareResume"]

_INTERRUPT_ID = re.compile(r"[0-9a-f]{32}\Z")


def is_resume_map(value: Any) -> bool:
    """Whether a resume value is a map from interrupt ids to answers (every key a string of
    32 hex digits, as LangGraph tells them apart; an empty dict is an empty map)."""
    return isinstance(value, dict) and all(isinstance(key, str) and _INTERRUPT_ID.match(key) for key in value)


def answers(value: Any, paused: Sequence[Any]) -> list[tuple[Any, Any]]:
    """``(task, answer)`` pairs for the resume ``value`` given the ``paused`` tasks (each
    with its ``interrupts``); raises naming the ids when ``value`` does not fit them."""
    owners = answering_tasks(paused)
    pending = list(owners)
    if is_resume_map(value):
        if not value:
            raise UnknownInterruptError(
                f"Command(resume={{}}) names no interrupt; answer the pending ones by id: {pending}",
                reason="empty_map", pending_ids=pending)
        unknown = [key for key in value if key not in owners]
        if unknown:
            raise UnknownInterruptError(
                f"Command(resume=...) names interrupt id {unknown[0]!r}, which is not pending (unknown, or already "
                f"answered); the pending interrupt ids are {pending}",
                reason="not_pending", interrupt_ids=unknown, pending_ids=pending)
        return [(owners[key], answer) for key, answer in value.items()]
    tasks = list({id(task): task for task in owners.values()}.values())
    if len(tasks) == 1:
        return [(tasks[0], value)]
    raise AmbiguousResumeError(
        "When there are multiple pending interrupts, you must specify the interrupt id when resuming. "
        f"{len(tasks)} nodes are paused; resume them with Command(resume={{interrupt_id: value, ...}}) "
        f"using the ids {pending}"
    )


class SpareResume:
    """A resume value sent while nothing was asked (a thread paused at a breakpoint): the
    first ``interrupt()`` of the next step to ask takes it, once (tasks run in threads, so
    taking it is locked)."""

    def __init__(self, value: Any) -> None:
        self._values = [value]
        self._lock = threading.Lock()

    def take(self, task: Any) -> tuple[bool, Any]:
        """``(True, value)`` the first time, recorded as ``task``'s answer (saved with the
        task if it pauses again); ``(False, None)`` after."""
        with self._lock:
            if not self._values:
                return False, None
            value = self._values.pop()
        task.resume.append(value)
        task.answered += 1
        return True, value
