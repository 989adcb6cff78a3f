"""One batch of store operations, checked and with everything it must embed collected, so
a backend's ``batch`` and ``abatch`` differ only in how they wait for the embeddings
(the backend then runs the same plan either way).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence

import numpy as np

from rag.embeddings.base import Embeddings, embed_query_text, embed_texts
from rag.errors import ValidationError
from rag.graph.store._values import check_filter, check_value
from rag.graph.store._vectors import unit_rows
from rag.graph.store.base import GetOp, ListNamespacesOp, Op, PutOp, SearchOp, validate_op_namespace
from rag.graph.store.embed import ensure_embeddings, texts_to_embed

__all__ = ["StoreIndex", "Plan", "plan_batch"]


class StoreIndex:
    """A store's semantic index: ``config`` is the ``index=`` dict (``dims``, ``embed``,
    ``fields``; SQLite's ``text_fields`` is read as ``fields``); only cosine similarity."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        if not isinstance(config, Mapping):
            raise ValidationError(f"index must be a dict such as {{'dims': 384, 'embed': embeddings}}, got "
                                  f"{type(config).__name__}")
        dims = config.get("dims")
        if isinstance(dims, bool) or not isinstance(dims, int) or dims < 1:
            raise ValidationError(f"index 'dims' must be the embeddings' vector length, an int >= 1, got {dims!r}")
        if config.get("embed") is None:
            raise ValidationError("index needs 'embed': an Embeddings object or a function from texts to vectors")
        distance = config.get("distance_type", "cosine")
        if distance != "cosine":
            raise ValidationError(f"index distance_type {distance!r} is not supported; the stores rank by 'cosine'")
        fields = config.get("fields") or config.get("text_fields") or ["$"]
        if isinstance(fields, str) or not all(isinstance(path, str) for path in fields):
            raise ValidationError(f"index 'fields' must be a list of JSON paths such as ['text'], got {fields!r:.60}")
        self.dims = dims
        embeddings = ensure_embeddings(config["embed"])
        assert embeddings is not None  # checked above
        self.embeddings: Embeddings = embeddings
        self.fields = list(fields)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit float32 vectors (len(texts), dims)."""
        return unit_rows(embed_texts(self.embeddings, list(texts), dimension=self.dims))

    async def aembed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dims), np.float32)
        embed = getattr(self.embeddings, "aembed_documents_array", None) or self.embeddings.aembed_documents
        from rag.vectors import as_matrix

        return unit_rows(as_matrix(await embed(list(texts)), dimension=self.dims, name="embeddings"))

    def embed_query(self, query: str) -> np.ndarray:
        return unit_rows(embed_query_text(self.embeddings, query, dimension=self.dims)[None, :])[0]

    async def aembed_query(self, query: str) -> np.ndarray:
        embed = getattr(self.embeddings, "aembed_query_array", None) or self.embeddings.aembed_query
        from rag.vectors import as_vector

        return unit_rows(as_vector(await embed(query), dimension=self.dims, name="query embedding")[None, :])[0]


@dataclass
class Plan:
    """``ops`` checked (values as dicts, filters parsed); ``texts``: the distinct texts the
    puts embed, ``fields[i]``: ``(field label, text)`` pairs of op ``i`` (puts only);
    ``queries``: the distinct search queries to embed."""

    ops: list[Op]
    filters: dict[int, tuple] = field(default_factory=dict)
    fields: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    text_vectors: Optional[np.ndarray] = None
    query_vectors: dict[str, np.ndarray] = field(default_factory=dict)
    text_rows: dict[str, int] = field(default_factory=dict)  # text -> its row in text_vectors

    def vectors_of(self, position: int) -> tuple[list[str], np.ndarray]:
        """The field labels and unit vectors op ``position`` (a put) stores."""
        pairs = self.fields.get(position, [])
        if not pairs or self.text_vectors is None:
            return [], np.empty((0, 0), np.float32)
        return [label for label, _ in pairs], self.text_vectors[[self.text_rows[text] for _, text in pairs]]

    def embed(self, index: Optional[StoreIndex]) -> "Plan":
        if index is not None:
            self.text_vectors = index.embed(self.texts)
            self.query_vectors = {query: index.embed_query(query) for query in self.queries}
        return self

    async def aembed(self, index: Optional[StoreIndex]) -> "Plan":
        if index is not None:
            self.text_vectors = await index.aembed(self.texts)
            self.query_vectors = {query: await index.aembed_query(query) for query in self.queries}
        return self


def plan_batch(ops: Iterable[Op], index: Optional[StoreIndex]) -> Plan:
    """Check every op before any runs (a bad one fails the whole batch, as LangGraph's
    SQLite store) and collect what must be embedded."""
    ops = list(ops)
    for op in ops:
        if not isinstance(op, (GetOp, PutOp, SearchOp, ListNamespacesOp)):
            raise ValidationError(f"a store operation is a GetOp, PutOp, SearchOp or ListNamespacesOp, got "
                                  f"{type(op).__name__} {op!r:.60}")
        validate_op_namespace(op)
    plan = Plan(ops=[])
    seen_texts = plan.text_rows
    for position, op in enumerate(ops):
        if isinstance(op, PutOp) and op.value is not None:
            value = check_value(op.namespace, op.key, op.value)
            op = op._replace(namespace=tuple(op.namespace), value=value)
            if index is not None and op.index is not False:
                pairs = texts_to_embed(value, index.fields if op.index is None else op.index)
                plan.fields[position] = pairs
                for _, text in pairs:
                    if text not in seen_texts:
                        seen_texts[text] = len(plan.texts)
                        plan.texts.append(text)
        elif isinstance(op, SearchOp):
            plan.filters[position] = check_filter(op.filter)
            if index is not None and op.query and op.query not in plan.queries:
                plan.queries.append(op.query)
        plan.ops.append(op)
    return plan
