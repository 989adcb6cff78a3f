"""EnsembleRetriever: weighted reciprocal-rank fusion of several retrievers' results."""

from __future__ import annotations

import asyncio
import math
from typing import Any, Optional, Sequence

from rag.documents import Document
from rag.errors import ValidationError
from rag.fusion import fusion_key, weighted_reciprocal_rank
from rag.retrievers import BaseRetriever

__all__ = ["EnsembleRetriever", "weighted_reciprocal_rank", "fusion_key"]


def _check_weights(weights: Optional[Sequence[float]], count: int) -> list[float]:
    if weights is None or len(weights) == 0:
        return [1.0 / count] * count
    weights = list(weights)
    if len(weights) != count:
        raise ValidationError(f"got {len(weights)} weights for {count} retrievers; give one weight per retriever")
    for weight in weights:
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) or weight < 0:
            raise ValidationError(f"weights must be finite numbers >= 0, got {weights!r}")
    if not any(weight > 0 for weight in weights):
        raise ValidationError(f"at least one weight must be greater than 0, got {weights!r}")
    return [float(weight) for weight in weights]


def _as_documents(results: Sequence[Any]) -> list[Document]:
    return [item if isinstance(item, Document) else Document(str(item)) for item in results]


class EnsembleRetriever(BaseRetriever):
    """Runs every retriever on the query and fuses their rankings by weighted reciprocal
    rank: each document scores ``sum(weight / (rank + c))``; all distinct documents come
    back, best first.

    ``retrievers``: anything with ``invoke(query) -> list[Document]`` (ours or
    LangChain's). ``weights``: one per retriever, >= 0, default equal. ``c`` >= 0 (default
    60): larger values flatten the advantage of top ranks. ``id_key``: the metadata key
    identifying a document; without it, documents are matched by id when they all have
    one, else by text. ``k``: keep only the best ``k`` (default None: all, as LangChain).
    The run's callbacks and tags reach each retriever, tagged
    ``retriever_1``, ``retriever_2``...

    Differences from LangChain's class: documents with ids are matched by id, not by text
    (two chunks with equal text stay two results); negative weights are refused; a
    missing ``id_key`` raises NotFoundError (a KeyError) naming the document.

    >>> from rag.bm25 import BM25Retriever
    >>> lexical = BM25Retriever.from_texts(["cats purr", "dogs bark"], k=1)
    >>> [d.page_content for d in EnsembleRetriever([lexical, lexical]).invoke("dogs")]
    ['dogs bark']
    """

    def __init__(
        self,
        retrievers: Sequence[Any],
        weights: Optional[Sequence[float]] = None,
        c: float = 60,
        id_key: Optional[str] = None,
        *,
        k: Optional[int] = None,
        tags: Optional[list[str]] = None,
        metadata: Optional[dict[str, Any]] = None,
    ) -> None:
        retrievers = list(retrievers)
        if not retrievers:
            raise ValidationError("retrievers is empty; give at least one retriever")
        for position, retriever in enumerate(retrievers):
            if not callable(getattr(retriever, "invoke", None)):
                raise ValidationError(f"retrievers[{position}] has no invoke method: {retriever!r:.80}")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c) or c < 0:
            raise ValidationError(f"c must be a number >= 0, got {c!r}")
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise ValidationError(f"k must be a positive int or None, got {k!r}")
        if id_key is not None and not isinstance(id_key, str):
            raise ValidationError(f"id_key must be a metadata key (str) or None, got {id_key!r}")
        self.retrievers = retrievers
        self.weights = _check_weights(weights, len(retrievers))
        self.c = c
        self.id_key = id_key
        self.k = k
        self.tags = tags
        self.metadata = metadata

    def _child_config(self, config: Optional[dict[str, Any]], position: int) -> dict[str, Any]:
        # run_name and run_id name this run only; children get their own.
        child = {key: value for key, value in (config or {}).items() if key not in ("run_name", "run_id")}
        child["tags"] = [*(child.get("tags") or []), f"retriever_{position + 1}"]
        return child

    def invoke(self, input: str, config: Optional[dict[str, Any]] = None, **kwargs: Any) -> list[Document]:
        return super().invoke(input, config, _run_config=config, **kwargs)  # type: ignore[arg-type]

    async def ainvoke(self, input: str, config: Optional[dict[str, Any]] = None, **kwargs: Any) -> list[Document]:
        return await super().ainvoke(input, config, _run_config=config, **kwargs)  # type: ignore[arg-type]

    def weighted_reciprocal_rank(self, doc_lists: Sequence[Sequence[Document]]) -> list[Document]:
        """Fuse ranked lists with this retriever's weights, ``c``, ``id_key`` and ``k``."""
        fused = weighted_reciprocal_rank(doc_lists, self.weights, self.c, self.id_key)
        return [doc for doc, _ in fused[: self.k]]

    def _get_relevant_documents(self, query: str, _run_config: Optional[dict[str, Any]] = None, **kwargs: Any) -> list[Document]:
        if kwargs:
            raise ValidationError(f"EnsembleRetriever takes no invoke keywords, got {sorted(kwargs)}")
        doc_lists = [
            _as_documents(retriever.invoke(query, self._child_config(_run_config, i)))
            for i, retriever in enumerate(self.retrievers)
        ]
        return self.weighted_reciprocal_rank(doc_lists)

    async def _aget_relevant_documents(
        self, query: str, _run_config: Optional[dict[str, Any]] = None, **kwargs: Any
    ) -> list[Document]:
        if kwargs:
            raise ValidationError(f"EnsembleRetriever takes no invoke keywords, got {sorted(kwargs)}")
        doc_lists = await asyncio.gather(
            *(retriever.ainvoke(query, self._child_config(_run_config, i)) for i, retriever in enumerate(self.retrievers))
        )
        return self.weighted_reciprocal_rank([_as_documents(docs) for docs in doc_lists])

    def __repr__(self) -> str:
        names = ", ".join(type(r).__name__ for r in self.retrievers)
        return f"EnsembleRetriever(retrievers=[{names}], weights={self.weights}, c={self.c}, id_key={self.id_key!r})"
