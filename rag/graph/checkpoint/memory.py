"""InMemorySaver (alias MemorySaver): checkpoints in this process's memory.

Checkpoints are stored as JSON bytes, as :class:`~rag.graph.checkpoint.sqlite.SqliteSaver`
stores them: a value that cannot be saved fails here too, and a node that mutates a list
in the state cannot change history.

>>> from rag.graph import StateGraph, START
>>> from typing import TypedDict
>>> class S(TypedDict):
...     n: int
>>> g = StateGraph(S)
>>> _ = g.add_node("inc", lambda s: {"n": s["n"] + 1}).add_edge(START, "inc")
>>> app = g.compile(checkpointer=InMemorySaver())
>>> app.invoke({"n": 1}, {"configurable": {"thread_id": "t"}})
{'n': 2}
>>> app.get_state({"configurable": {"thread_id": "t"}}).metadata["step"]
1
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar, Iterator, Mapping, Optional, Sequence

from rag.graph.checkpoint import serde
from rag.graph.checkpoint.base import (
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointTuple,
    checkpoint_config,
    matches_filter,
    thread_of,
)

__all__ = ["InMemorySaver", "MemorySaver"]

_Row = tuple[bytes, bytes, Optional[str]]  # checkpoint JSON, metadata JSON, parent id


class InMemorySaver(BaseCheckpointSaver):
    """Checkpoints in a dict, per thread in insertion order; thread-safe. ``keep_last``:
    see :class:`~rag.graph.checkpoint.base.BaseCheckpointSaver`."""

    blocking_io: ClassVar[bool] = False

    def __init__(self, *, keep_last: Optional[int] = None) -> None:
        super().__init__(keep_last=keep_last)
        self._threads: dict[tuple[str, str], dict[str, _Row]] = {}
        self._writes: dict[tuple[str, str, str], dict[tuple[str, str], bytes]] = {}
        self._lock = threading.Lock()

    def _tuple(self, thread_id: str, ns: str, checkpoint_id: str, row: _Row) -> CheckpointTuple:
        writes = self._writes.get((thread_id, ns, checkpoint_id), {})
        pending = [(task, channel, serde.loads(value)) for (task, channel), value in writes.items()]
        return CheckpointTuple(checkpoint_config(thread_id, ns, checkpoint_id),  # type: ignore[arg-type]
                               serde.loads(row[0]), serde.loads(row[1]),
                               checkpoint_config(thread_id, ns, row[2]), pending)

    def get_tuple(self, config: Mapping[str, Any]) -> Optional[CheckpointTuple]:
        thread_id, ns, checkpoint_id = thread_of(config)
        with self._lock:
            rows = self._threads.get((thread_id, ns))
            if not rows:
                return None
            if checkpoint_id is None:
                checkpoint_id = next(reversed(rows))
            row = rows.get(checkpoint_id)
            return None if row is None else self._tuple(thread_id, ns, checkpoint_id, row)

    def list(self, config: Optional[Mapping[str, Any]], *, filter: Optional[dict[str, Any]] = None,
             before: Optional[Mapping[str, Any]] = None, limit: Optional[int] = None) -> Iterator[CheckpointTuple]:
        with self._lock:
            if config is None:
                keys = list(self._threads)
            else:
                thread_id, ns, _ = thread_of(config)
                keys = [(thread_id, ns)]
            found = []
            for thread_id, ns in keys:
                rows = list(self._threads.get((thread_id, ns), {}).items())
                if before is not None:
                    bound = thread_of(before)[2]
                    ids = [cid for cid, _ in rows]
                    rows = rows[:ids.index(bound)] if bound in ids else rows
                for checkpoint_id, row in reversed(rows):
                    item = self._tuple(thread_id, ns, checkpoint_id, row)
                    if matches_filter(item.metadata, filter):
                        found.append(item)
        return iter(found[:limit] if limit is not None else found)

    def put(self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: dict[str, Any],
            new_versions: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        return self._save_step(config, checkpoint, metadata, ())

    def put_step(self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: dict[str, Any],
                 writes: Sequence[tuple[str, Sequence[tuple[str, Any]]]]) -> dict[str, Any]:
        """The step's task writes and its new checkpoint under one lock (a reader sees both
        or neither); writes of a checkpoint ``keep_last`` drops go with it."""
        if type(self).put is not InMemorySaver.put or type(self).put_writes is not InMemorySaver.put_writes:
            return super().put_step(config, checkpoint, metadata, writes)  # a subclass's own put/put_writes run
        return self._save_step(config, checkpoint, metadata, writes)

    def _save_step(self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: dict[str, Any],
                   writes: Sequence[tuple[str, Sequence[tuple[str, Any]]]]) -> dict[str, Any]:
        thread_id, ns, parent_id = thread_of(config)
        row = (serde.dumps(checkpoint), serde.dumps(metadata), parent_id)  # first: its error names the state key
        encoded = [((task_id, channel), serde.dumps(value)) for task_id, task_writes in writes
                   for channel, value in task_writes]
        with self._lock:
            if encoded:
                self._writes.setdefault((thread_id, ns, parent_id or ""), {}).update(encoded)
            rows = self._threads.setdefault((thread_id, ns), {})
            rows[checkpoint["id"]] = row
            if self.keep_last is not None:
                while len(rows) > self.keep_last:
                    oldest = next(iter(rows))
                    del rows[oldest]
                    self._writes.pop((thread_id, ns, oldest), None)
        return checkpoint_config(thread_id, ns, checkpoint["id"])  # type: ignore[return-value]

    def put_writes(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str,
                   task_path: str = "") -> None:
        thread_id, ns, checkpoint_id = thread_of(config)
        encoded = [(channel, serde.dumps(value)) for channel, value in writes]
        with self._lock:
            slot = self._writes.setdefault((thread_id, ns, checkpoint_id or ""), {})
            for channel, value in encoded:  # a task's later write to a channel replaces its earlier one
                slot[(task_id, channel)] = value

    def delete_thread(self, thread_id: str) -> None:
        with self._lock:
            for key in [k for k in self._threads if k[0] == thread_id]:
                del self._threads[key]
            for key in [k for k in self._writes if k[0] == thread_id]:
                del self._writes[key]


MemorySaver = InMemorySaver  # LangGraph's older name
