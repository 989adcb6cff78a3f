"""The default hybrid configuration: dense vectors and BM25, fused by reciprocal rank."""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Optional, Sequence

from rag.documents import Document
from rag.errors import ValidationError

__all__ = ["HybridConfig", "hybrid_retriever"]


@dataclass(frozen=True)
class HybridConfig:
    """Plain data (``asdict`` gives JSON) for :func:`hybrid_retriever`.

    ``k``: documents returned (default 4); ``fetch_k``: candidates each side contributes
    (default 20, >= k); ``weights``: (dense, lexical), default equal; ``c``: the fusion
    constant (default 60); ``stemmer``/``bm25_params``: as :class:`~rag.bm25.BM25Retriever`.
    On SciFact this fusion of MiniLM and stemmed BM25 beats either alone (see
    benchmarks/README.md).

    >>> HybridConfig(k=5).fetch_k
    20
    """

    k: int = 4
    fetch_k: int = 20
    weights: tuple[float, float] = (0.5, 0.5)
    c: float = 60
    stemmer: Optional[str] = "english"
    bm25_params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("k", "fetch_k"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValidationError(f"{name} must be a positive int, got {value!r}")
        if self.fetch_k < self.k:
            raise ValidationError(f"fetch_k ({self.fetch_k}) must be >= k ({self.k})")
        if len(self.weights) != 2:
            raise ValidationError(f"weights must be (dense, lexical), got {self.weights!r}")

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "weights": list(self.weights)}


def _with_ids(documents: Sequence[Document]) -> list[Document]:
    # Both sides must name a document the same way for the fusion to add up its ranks.
    return [d if d.id else Document(d.page_content, dict(d.metadata), str(uuid.uuid4())) for d in documents]


def hybrid_retriever(
    documents: Sequence[Document],
    embeddings: Any = None,
    *,
    store: Any = None,
    store_factory: Optional[Callable[[Any], Any]] = None,
    config: HybridConfig = HybridConfig(),
) -> Any:
    """An :class:`~rag.ensemble.EnsembleRetriever` over a vector store and BM25 built from
    ``documents``. ``store``: a vector store already holding the same documents under the
    same ids; otherwise ``store_factory(embeddings)`` makes an empty one that is filled here
    (``rag`` does not import ``stores``: the caller chooses the backend). ``embeddings``
    defaults to :class:`~rag.embeddings.LocalEmbeddings`.

    >>> from rag.embeddings import HashingEmbeddings
    >>> from stores import InMemoryVectorStore
    >>> docs = [Document("cats purr", id="1"), Document("dogs bark", id="2")]
    >>> hybrid_retriever(docs, HashingEmbeddings(dim=64), store_factory=InMemoryVectorStore,
    ...                  config=HybridConfig(k=1)).invoke("cats")[0].id
    '1'
    """
    from rag.bm25 import BM25Retriever
    from rag.ensemble import EnsembleRetriever

    documents = _with_ids(documents)
    if store is None:
        if store_factory is None:
            raise ValidationError("hybrid_retriever needs store= (holding the documents) or store_factory=")
        if embeddings is None:
            from rag.embeddings import LocalEmbeddings

            embeddings = LocalEmbeddings()
        store = store_factory(embeddings)
        store.add_documents(documents)
    dense = store.as_retriever(search_kwargs={"k": config.fetch_k})
    lexical = BM25Retriever.from_documents(
        documents, k=config.fetch_k, stemmer=config.stemmer, bm25_params=config.bm25_params or None
    )
    return EnsembleRetriever([dense, lexical], weights=list(config.weights), c=config.c, k=config.k)
