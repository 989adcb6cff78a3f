"""The named retrieval configurations ``rag bench`` and ``benchmarks/quality.py`` compare."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, Sequence

from rag.errors import ValidationError
from rag.hybrid import HybridConfig

import rag.evaluation  # type hints: rag.evaluation.systems (embeddings, HTTP) imports on first use

if TYPE_CHECKING:
    import rag.evaluation.systems

__all__ = ["CONFIGURATIONS", "build_systems", "StoreFactory"]

#: name -> one-line description (the order is the report's order).
CONFIGURATIONS: dict[str, str] = {
    "hashing": "HashingEmbeddings(1024), InMemoryVectorStore",
    "bm25-nostem": "BM25Retriever(stemmer=None), English stopwords",
    "bm25": "BM25Retriever (Snowball English stemming, stopwords)",
    "minilm-faiss": "LocalEmbeddings (MiniLM int8), FAISS flat, cosine",
    "minilm-memory": "LocalEmbeddings (MiniLM int8), InMemoryVectorStore",
    "minilm-mmr": "LocalEmbeddings, FAISS, MMR (fetch_k=200, lambda_mult=0.5)",
    "hybrid": "MiniLM (FAISS) + BM25, union z-score fusion (rag.hybrid's default: every candidate scored by both "
              "sides, 0.5/0.5, 20 per side)",
    "hybrid-rrf": "MiniLM (FAISS) + BM25, reciprocal-rank fusion (0.5/0.5, c=60, 20 per side; the default until "
                  "issue 43)",
    "hybrid-zscore": "MiniLM (FAISS) + BM25, z-score fusion (0.5/0.5, 50 per side)",
}


#: A function from an embeddings object to a new, empty vector store.
StoreFactory = Callable[[Any], Any]


def build_systems(
    names: Sequence[str], *, store_factories: Mapping[str, StoreFactory], local_embeddings: Optional[Any] = None
) -> list[rag.evaluation.systems.RetrievalSystem]:
    """The systems for ``names`` (keys of :data:`CONFIGURATIONS`), sharing one MiniLM model
    and one cache of corpus vectors.

    ``store_factories`` maps "faiss" and "memory" to store factories; the application
    layer's registry gives the ones an index uses
    (``rag.index.registry.evaluation_store_factories()``). The evaluation does not import
    ``stores`` itself: it sits below the application layer.
    """
    unknown = [name for name in names if name not in CONFIGURATIONS]
    if unknown:
        raise ValidationError(f"unknown configurations {unknown}; choose from {list(CONFIGURATIONS)}")
    missing = sorted({"faiss", "memory"} - set(store_factories))
    if missing:
        raise ValidationError(f"store_factories lacks {missing}; give a factory for each of 'faiss' and 'memory'")
    _faiss, _memory = store_factories["faiss"], store_factories["memory"]
    # Here, not at the top: the CLI reads CONFIGURATIONS for its help without these imports.
    from rag.embeddings import HashingEmbeddings
    from rag.evaluation.systems import BM25System, CorpusVectors, DenseSystem, HybridSystem

    vectors = CorpusVectors()
    minilm: Optional[Any] = local_embeddings

    def local() -> Any:
        nonlocal minilm
        if minilm is None:
            from rag.embeddings import LocalEmbeddings

            minilm = LocalEmbeddings()
        return minilm

    factories: dict[str, Callable[[], rag.evaluation.systems.RetrievalSystem]] = {
        "hashing": lambda: DenseSystem("hashing", HashingEmbeddings(dim=1024), _memory, vectors),
        "bm25-nostem": lambda: BM25System("bm25-nostem", stemmer=None),
        "bm25": lambda: BM25System("bm25"),
        "minilm-faiss": lambda: DenseSystem("minilm-faiss", local(), _faiss, vectors),
        "minilm-memory": lambda: DenseSystem("minilm-memory", local(), _memory, vectors),
        "minilm-mmr": lambda: DenseSystem("minilm-mmr", local(), _faiss, vectors, mmr_fetch_k=200),
        "hybrid": lambda: HybridSystem(
            "hybrid", DenseSystem("hybrid-dense", local(), _faiss, vectors), BM25System("hybrid-bm25")
        ),
        "hybrid-zscore": lambda: HybridSystem(
            "hybrid-zscore", DenseSystem("hybrid-dense", local(), _faiss, vectors), BM25System("hybrid-bm25"),
            HybridConfig(fetch_k=50, fusion="zscore"),
        ),
        "hybrid-rrf": lambda: HybridSystem(
            "hybrid-rrf", DenseSystem("hybrid-dense", local(), _faiss, vectors), BM25System("hybrid-bm25"),
            HybridConfig(fusion="rrf"),
        ),
    }
    return [factories[name]() for name in names]
