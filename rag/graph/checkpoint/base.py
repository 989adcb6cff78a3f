"""The checkpointer interface: four methods, and the graph never knows the storage.

A saver keeps, per thread (``config["configurable"]["thread_id"]``), a list of
checkpoints (the state after each step) and the *writes* of each step's tasks against the
checkpoint it ran from: what its nodes returned, raised and were asked (for a step that
paused or failed, what lets a resume run only the rest). Implement :meth:`get_tuple`,
:meth:`list`, :meth:`put` and :meth:`put_writes`; :meth:`put_step` (a finished step's
writes and its next checkpoint) is derived from them, and a saver that can do both in one
transaction overrides it. The async twins run them in a worker thread (or inline when
``blocking_io`` is False).

A checkpoint is a dict: ``{"v": 1, "id": str, "ts": ISO 8601 UTC, "channel_values":
{...state...}, "next": [node, ...], "joins": {...}}``; metadata is ``{"source", "step",
"parents"}``. Savers store both as JSON (:mod:`rag.graph.checkpoint.serde`), never pickle.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, ClassVar, Iterator, Mapping, Optional, Sequence

from rag.errors import ValidationError

__all__ = ["BaseCheckpointSaver", "CheckpointTuple", "Checkpoint", "thread_of", "checkpoint_config",
           "matches_filter"]

Checkpoint = dict[str, Any]


@dataclass(frozen=True)
class CheckpointTuple:
    """A checkpoint with its ``config`` (pointing at it), ``metadata``, ``parent_config`` and
    ``pending_writes`` (``(task_id, channel, value)`` triples)."""

    config: dict[str, Any]
    checkpoint: Checkpoint
    metadata: dict[str, Any]
    parent_config: Optional[dict[str, Any]] = None
    pending_writes: list[tuple[str, str, Any]] = field(default_factory=list)


def thread_of(config: Optional[Mapping[str, Any]]) -> tuple[str, str, Optional[str]]:
    """``(thread_id, checkpoint_ns, checkpoint_id or None)`` from a config; a clear error
    when ``thread_id`` is missing."""
    configurable = (config or {}).get("configurable") or {}
    thread_id = configurable.get("thread_id")
    if thread_id is None or thread_id == "":
        raise ValidationError(
            "a graph with a checkpointer needs a thread to save under: pass "
            "config={'configurable': {'thread_id': 'some-id'}}"
        )
    return str(thread_id), str(configurable.get("checkpoint_ns") or ""), configurable.get("checkpoint_id")


def checkpoint_config(thread_id: str, checkpoint_ns: str, checkpoint_id: Optional[str]) -> Optional[dict[str, Any]]:
    if checkpoint_id is None:
        return None
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": checkpoint_id}}


def matches_filter(metadata: Mapping[str, Any], wanted: Optional[Mapping[str, Any]]) -> bool:
    return not wanted or all(metadata.get(key) == value for key, value in wanted.items())


class BaseCheckpointSaver(ABC):
    """Saves checkpoints per thread. ``keep_last``: keep only the newest N checkpoints of a
    thread (None, the default: keep all; LangGraph always keeps all).

    Thread-safe implementations may be shared by many graphs and threads at once.
    """

    #: Whether calls do I/O that would stall an event loop (then async calls use a thread).
    blocking_io: ClassVar[bool] = True

    def __init__(self, *, keep_last: Optional[int] = None) -> None:
        if keep_last is not None and (isinstance(keep_last, bool) or not isinstance(keep_last, int) or keep_last < 1):
            raise ValidationError(f"keep_last must be a positive int or None, got {keep_last!r}")
        self.keep_last = keep_last

    @abstractmethod
    def get_tuple(self, config: Mapping[str, Any]) -> Optional[CheckpointTuple]:
        """The checkpoint ``config`` names (its ``checkpoint_id``), else the thread's newest; None if none."""

    @abstractmethod
    def list(self, config: Optional[Mapping[str, Any]], *, filter: Optional[dict[str, Any]] = None,
             before: Optional[Mapping[str, Any]] = None, limit: Optional[int] = None) -> Iterator[CheckpointTuple]:
        """The thread's checkpoints, newest first; ``filter`` matches metadata keys,
        ``before`` a config whose checkpoint bounds the list (exclusive), ``limit`` a count."""

    @abstractmethod
    def put(self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: dict[str, Any],
            new_versions: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        """Save ``checkpoint`` as the child of the one ``config`` names; returns its config.
        The parent's pending writes are kept (as LangGraph's): its history shows what its
        step's nodes returned, raised and were asked before it completed."""

    @abstractmethod
    def put_writes(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str,
                   task_path: str = "") -> None:
        """Save ``(channel, value)`` writes of task ``task_id`` against the checkpoint ``config``
        names; a later write of the same task to the same channel replaces the earlier one."""

    def put_step(self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: dict[str, Any],
                 writes: Sequence[tuple[str, Sequence[tuple[str, Any]]]]) -> dict[str, Any]:
        """What a finished step leaves: the ``writes`` of its tasks (``(task_id, [(channel,
        value), ...])`` each) against the checkpoint ``config`` names, which the step ran
        from, and ``checkpoint``, its child; returns the child's config. Derived from
        :meth:`put` and :meth:`put_writes` (the checkpoint first: a value that cannot be
        saved is reported naming its state key, and nothing of the step is saved); a saver
        that can do both in one transaction overrides it (SqliteSaver: one commit a step)."""
        saved = self.put(config, checkpoint, metadata)
        for task_id, task_writes in writes:
            self.put_writes(config, task_writes, task_id)
        return saved

    def delete_thread(self, thread_id: str) -> None:
        """Forget every checkpoint and write of ``thread_id``."""
        raise NotImplementedError(f"{type(self).__name__} cannot delete threads")

    def get(self, config: Mapping[str, Any]) -> Optional[Checkpoint]:
        found = self.get_tuple(config)
        return found.checkpoint if found else None

    # -- async twins ----------------------------------------------------------------------
    async def _call(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        if self.blocking_io:
            return await asyncio.to_thread(method, *args, **kwargs)
        return method(*args, **kwargs)

    async def aget_tuple(self, config: Mapping[str, Any]) -> Optional[CheckpointTuple]:
        return await self._call(self.get_tuple, config)

    async def alist(self, config: Optional[Mapping[str, Any]], *, filter: Optional[dict[str, Any]] = None,
                    before: Optional[Mapping[str, Any]] = None, limit: Optional[int] = None) -> AsyncIterator[CheckpointTuple]:
        found = await self._call(lambda: list(self.list(config, filter=filter, before=before, limit=limit)))
        for item in found:
            yield item

    async def aput(self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: dict[str, Any],
                   new_versions: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        return await self._call(self.put, config, checkpoint, metadata, new_versions)

    async def aput_step(self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: dict[str, Any],
                        writes: Sequence[tuple[str, Sequence[tuple[str, Any]]]]) -> dict[str, Any]:
        return await self._call(self.put_step, config, checkpoint, metadata, writes)

    async def aput_writes(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str,
                          task_path: str = "") -> None:
        await self._call(self.put_writes, config, writes, task_id, task_path)
