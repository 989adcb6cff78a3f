"""Which store backs which named configuration: wiring that only the composition root does."""

from __future__ import annotations

from typing import Any, Callable

from stores import FAISS, InMemoryVectorStore

__all__ = ["STORE_FACTORIES"]


def _flat_inner_product(embeddings: Any) -> FAISS:
    # MiniLM vectors are unit length: inner product is the cosine, with no normalising pass.
    return FAISS(embedding=embeddings, distance_strategy="MAX_INNER_PRODUCT")


#: Store factories for :func:`rag.evaluation.build_systems` ("faiss" and "memory").
STORE_FACTORIES: dict[str, Callable[[Any], Any]] = {"faiss": _flat_inner_product, "memory": InMemoryVectorStore}
