"""A store in the process's memory (LangGraph's ``langgraph.store.memory.InMemoryStore``).

Vectors live in one contiguous float32 matrix of unit rows (freed rows are reused), so a
semantic search is one matrix-vector product over every embedded field, however many
items there are.

>>> from rag.embeddings import HashingEmbeddings
>>> store = InMemoryStore(index={"dims": 64, "embed": HashingEmbeddings(dim=64), "fields": ["text"]})
>>> store.put(("notes",), "1", {"text": "the cat sat on the mat"})
>>> store.put(("notes",), "2", {"text": "stock prices fell sharply"})
>>> store.search(("notes",), query="a cat on a mat", limit=1)[0].key
'1'
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Optional, cast

import numpy as np

from rag.graph.store._namespaces import list_namespaces
from rag.graph.store._plan import Plan, StoreIndex, plan_batch
from rag.graph.store._values import matches
from rag.graph.store._vectors import best_per_owner, rank, similarities
from rag.graph.store.base import (BaseStore, GetOp, IndexConfig, Item, ListNamespacesOp, Op, PutOp, Result,
                                  SearchItem, SearchOp)

__all__ = ["InMemoryStore"]


@dataclass
class _Record:
    item: Item
    serial: int  # this record's number: vector rows name their owner by it
    rows: tuple[int, ...] = ()  # this item's rows in the vector matrix


class _Vectors:
    """Unit vectors in a growing float32 matrix; ``owner[row]`` is the serial of the
    row's record (-1: a free row, all zeros)."""

    def __init__(self, dims: int) -> None:
        self.matrix = np.zeros((64, dims), np.float32)
        self.owner = np.full(64, -1, np.int64)
        self.used = 0  # rows 0..used-1 were handed out (some may be free again)
        self.free: list[int] = []

    def add(self, serial: int, vectors: np.ndarray) -> tuple[int, ...]:
        rows = []
        for vector in vectors:
            if self.free:
                row = self.free.pop()
            else:
                row = self.used
                if row == self.matrix.shape[0]:  # double: amortised O(1) appends
                    self.matrix = np.concatenate([self.matrix, np.zeros_like(self.matrix)])
                    self.owner = np.concatenate([self.owner, np.full_like(self.owner, -1)])
                self.used += 1
            self.matrix[row] = vector
            self.owner[row] = serial
            rows.append(row)
        return tuple(rows)

    def remove(self, rows: tuple[int, ...]) -> None:
        for row in rows:
            self.owner[row] = -1
            self.matrix[row] = 0.0
        self.free.extend(rows)


class InMemoryStore(BaseStore):
    """Documents in a dict, lost when the process ends. ``index``: semantic search
    (``{"dims": int, "embed": Embeddings or function, "fields": ["$"]}``); without it
    ``query=`` is ignored and search lists items in insertion order. Thread-safe.
    """

    def __init__(self, *, index: Optional[IndexConfig] = None) -> None:
        self._index = StoreIndex(index) if index is not None else None
        self.index_config: Optional[dict[str, Any]] = dict(index) if index is not None else None
        self.embeddings = self._index.embeddings if self._index is not None else None
        self._data: dict[tuple[str, ...], dict[str, _Record]] = {}
        self._vectors = _Vectors(self._index.dims) if self._index is not None else None
        self._lock = threading.RLock()
        self._serials = itertools.count()

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return self._run(plan_batch(ops, self._index).embed(self._index))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return self._run(await plan_batch(ops, self._index).aembed(self._index))

    # -- running a plan ----------------------------------------------------------------------
    def _run(self, plan: Plan) -> list[Result]:
        results: list[Result] = []
        with self._lock:
            for position, op in enumerate(plan.ops):
                if isinstance(op, GetOp):
                    record = self._data.get(tuple(op.namespace), {}).get(op.key)
                    results.append(record.item if record else None)
                elif isinstance(op, PutOp):
                    self._put(op, plan, position)
                    results.append(None)
                elif isinstance(op, SearchOp):
                    results.append(self._search(op, plan, position))
                else:
                    assert isinstance(op, ListNamespacesOp)
                    results.append(list_namespaces(list(self._data), op))
        return results

    def _put(self, op: PutOp, plan: Plan, position: int) -> None:
        namespace = op.namespace
        items = self._data.setdefault(namespace, {})
        old = items.get(op.key)
        if old is not None and self._vectors is not None:
            self._vectors.remove(old.rows)
        if op.value is None:
            items.pop(op.key, None)
            if not items:
                del self._data[namespace]
            return
        now = datetime.now(timezone.utc)
        record = _Record(Item(value=cast(dict, op.value), key=op.key, namespace=namespace,
                              created_at=old.item.created_at if old else now, updated_at=now), next(self._serials))
        _, vectors = plan.vectors_of(position)
        if self._vectors is not None and len(vectors):
            record.rows = self._vectors.add(record.serial, vectors)
        items[op.key] = record  # an update keeps the item's place in the listing order

    def _search(self, op: SearchOp, plan: Plan, position: int) -> list[SearchItem]:
        prefix, checked = tuple(op.namespace_prefix), plan.filters.get(position, ())
        n = len(prefix)
        candidates = [record for namespace, items in self._data.items() if namespace[:n] == prefix
                      for record in items.values() if not checked or matches(record.item.value, checked)]
        query = plan.query_vectors.get(op.query) if op.query else None
        page: list[tuple[_Record, Optional[float]]]
        if query is None or self._vectors is None:
            page = [(record, None) for record in candidates[op.offset:op.offset + op.limit]]
        else:
            page = [(candidates[i], score) for i, score in self._ranked(candidates, query, op)]
        return [SearchItem(r.item.namespace, r.item.key, r.item.value, r.item.created_at, r.item.updated_at, score)
                for r, score in page]

    def _ranked(self, candidates: list[_Record], query: np.ndarray, op: SearchOp) -> list[tuple[int, Optional[float]]]:
        vectors = self._vectors
        assert vectors is not None
        used = vectors.used
        scores = similarities(vectors.matrix[:used], query)  # every row at once; free rows are zero
        # Serial -> candidate position, as an array, so mapping the rows is vectorised.
        serials = np.fromiter((record.serial for record in candidates), np.int64, len(candidates))
        position = np.full(next(self._serials) + 1, -1, np.int64)  # (a serial is skipped: harmless)
        position[serials] = np.arange(len(candidates))
        owners = vectors.owner[:used]
        owners = np.where(owners >= 0, position[owners], -1)
        live = owners >= 0
        best = best_per_owner(scores[live], owners[live], len(candidates))
        return rank(best, np.ones(len(candidates), bool), offset=op.offset, limit=op.limit)
