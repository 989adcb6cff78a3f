"""Reciprocal-rank fusion of ranked lists: pure functions, shared by hybrid search
(:mod:`rag.hybrid`) and :class:`~rag.ensemble.EnsembleRetriever` (which re-exports them).

A module of its own so that searching an index imports no retriever machinery
(runnables, callbacks, asyncio): ``rag search`` starts faster.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Hashable, Optional, Sequence

from rag.documents import Document
from rag.errors import NotFoundError, ValidationError

__all__ = ["weighted_reciprocal_rank", "fusion_key"]


def fusion_key(document: Document, id_key: Optional[str], use_ids: bool) -> Hashable:
    """What makes two results "the same document": ``metadata[id_key]`` when ``id_key``
    is set, else the document id when ``use_ids``, else the text."""
    if id_key is not None:
        try:
            return document.metadata[id_key]
        except KeyError:
            raise NotFoundError(
                f"id_key={id_key!r} is not in a retrieved document's metadata "
                f"(keys: {sorted(document.metadata)}): {document.page_content[:60]!r}"
            ) from None
    return document.id if use_ids else document.page_content


def weighted_reciprocal_rank(
    doc_lists: Sequence[Sequence[Document]], weights: Sequence[float], c: float = 60, id_key: Optional[str] = None
) -> list[tuple[Document, float]]:
    """Fuse ranked lists: a document scores the sum over lists of ``weight / (rank + c)``
    (rank from 1). Returns each distinct document once, as first seen, with its score,
    best first; equal scores keep first-seen order.

    Documents are matched by ``metadata[id_key]``; without ``id_key``, by id when every
    document has one, else by text (Cormack et al., SIGIR 2009, with weights).

    >>> a, b = Document("a"), Document("b")
    >>> [(d.page_content, round(s, 4)) for d, s in weighted_reciprocal_rank([[a, b], [b]], [0.5, 0.5], c=0)]
    [('b', 0.75), ('a', 0.5)]
    """
    if len(doc_lists) != len(weights):
        raise ValidationError(f"got {len(doc_lists)} ranked lists for {len(weights)} weights")
    use_ids = id_key is None and all(doc.id for docs in doc_lists for doc in docs)
    scores: dict[Hashable, float] = defaultdict(float)
    first_seen: dict[Hashable, Document] = {}
    for docs, weight in zip(doc_lists, weights):
        for rank, document in enumerate(docs, start=1):
            key = fusion_key(document, id_key, use_ids)
            scores[key] += weight / (rank + c)
            first_seen.setdefault(key, document)
    # sorted() is stable, and dicts keep insertion order: ties stay in first-seen order.
    return [(first_seen[key], scores[key]) for key in sorted(first_seen, key=lambda key: -scores[key])]
