"""An index's saved configuration, and the search types it answers."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Optional

from rag.errors import ValidationError
from rag.hybrid import HybridConfig
from rag.index.registry import check_embedding_spec, store_backend
from rag.search_types import INDEX_SEARCH_TYPES, SearchType, check_fraction, check_k

__all__ = ["IndexConfig", "SearchType", "SEARCH_TYPES", "BENCH_TYPES", "BENCH_SEARCH_TYPES", "check_k"]

#: What :meth:`rag.index.Index.search` can do (the ``rag search --type`` choices; see
#: :data:`rag.search_types.INDEX_SEARCH_TYPES`, which also accepts LangChain's
#: ``similarity_score_threshold``). ``hybrid``: dense + BM25 fused by reciprocal rank;
#: ``similarity``: dense only; ``mmr``: dense, diversified; ``threshold``: dense with a
#: minimum relevance; ``bm25``: lexical only.
SEARCH_TYPES: tuple[str, ...] = INDEX_SEARCH_TYPES.names
#: The search types a benchmark can measure (``threshold`` needs a cut-off, so it cannot),
#: and their names (the ``rag bench --type`` choices; defined here, not in
#: :mod:`rag.index.bench`, so that the command line's parser imports no benchmark).
BENCH_SEARCH_TYPES = INDEX_SEARCH_TYPES.without("threshold")
BENCH_TYPES: tuple[str, ...] = BENCH_SEARCH_TYPES.names
#: Chunks retrieved for an answer (``rag ask``, ``Index.ask``/``chain``, ``rag bench --answers``):
#: measured on two PostgreSQL-manual QA sets, 6 with context windows beat 4 (docs/benchmarks/answers.md).
ANSWER_K = 6


def _check_chunking(chunk_size: Any, chunk_overlap: Any) -> None:
    check_k(chunk_size, "chunk_size")
    if isinstance(chunk_overlap, bool) or not isinstance(chunk_overlap, int) or chunk_overlap < 0:
        raise ValidationError(f"chunk_overlap must be an integer >= 0, got {chunk_overlap!r}")
    if chunk_overlap >= chunk_size:
        raise ValidationError(f"chunk_overlap ({chunk_overlap}) must be smaller than chunk_size ({chunk_size})")


@dataclass(frozen=True)
class IndexConfig:
    """What an index is built with, saved in its manifest (plain JSON data).

    ``embeddings``: an embeddings spec (``local``, ``hashing``, ``openai:MODEL``);
    ``store``: a registered store backend (``faiss``, ``memory``); ``chunk_size`` and
    ``chunk_overlap`` in characters (defaults 1000 and 200; overlap < size); ``hybrid``:
    the fusion parameters of hybrid search; ``mmr_fetch_k`` (default 20) and
    ``lambda_mult`` (0 to 1, default 0.5): MMR's candidates and relevance/diversity balance.
    """

    embeddings: str
    store: str = "faiss"
    chunk_size: int = 1000
    chunk_overlap: int = 200
    hybrid: HybridConfig = field(default_factory=HybridConfig)
    mmr_fetch_k: int = 20
    lambda_mult: float = 0.5

    def __post_init__(self) -> None:
        check_embedding_spec(self.embeddings)
        store_backend(self.store)
        _check_chunking(self.chunk_size, self.chunk_overlap)
        check_k(self.mmr_fetch_k, "mmr_fetch_k")
        check_fraction(self.lambda_mult, "lambda_mult")
        if not isinstance(self.hybrid, HybridConfig):
            raise ValidationError(f"hybrid must be a HybridConfig (e.g. HybridConfig(fetch_k=50)), got {self.hybrid!r}")

    @property
    def chunking(self) -> dict[str, int]:
        """The settings that decide the chunks (part of every source's content hash)."""
        return {"chunk_size": self.chunk_size, "chunk_overlap": self.chunk_overlap}

    def with_chunking(self, chunk_size: Optional[int], chunk_overlap: Optional[int]) -> "IndexConfig":
        """This config with the chunking settings that are given (None keeps the current)."""
        return replace(self, chunk_size=self.chunk_size if chunk_size is None else chunk_size,
                       chunk_overlap=self.chunk_overlap if chunk_overlap is None else chunk_overlap)

    def to_json(self) -> dict[str, Any]:
        return {"embedding_spec": self.embeddings, "settings": {"store": self.store, **self.chunking},
                "hybrid": self.hybrid.to_json(), "mmr": {"fetch_k": self.mmr_fetch_k, "lambda_mult": self.lambda_mult}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "IndexConfig":
        """Read :meth:`to_json`'s shape. Indexes saved before the hybrid settings were
        stored get today's defaults (the values every search used then)."""
        settings = data.get("settings") or {}
        mmr = data.get("mmr") or {}
        return cls(
            embeddings=data["embedding_spec"],
            store=settings.get("store", "faiss"),
            chunk_size=settings.get("chunk_size", 1000),
            chunk_overlap=settings.get("chunk_overlap", 200),
            hybrid=HybridConfig.from_json(data.get("hybrid") or {}),
            mmr_fetch_k=mmr.get("fetch_k", 20),
            lambda_mult=mmr.get("lambda_mult", 0.5),
        )
