"""Retrieval evaluation: BEIR datasets, metrics checked against trec_eval's definitions,
and a runner that benchmarks retrieval configurations (used by ``rag bench`` and
``benchmarks/quality.py``)."""

from importlib import import_module
from typing import Any

# Names are imported on first use (PEP 562): ``rag.index`` and the CLI need the BEIR reader
# and the metrics, not the retrieval systems, which bring the embeddings and HTTP clients.
_MODULES = {
    "BeirDataset": "beir", "load_beir": "beir",
    "CONFIGURATIONS": "configurations", "build_systems": "configurations",
    "average_precision_at_k": "metrics", "ndcg_at_k": "metrics", "precision_at_k": "metrics",
    "recall_at_k": "metrics", "reciprocal_rank_at_k": "metrics",
    "BenchmarkResult": "runner", "RetrievalMetrics": "runner", "evaluate_run": "runner",
    "per_query_metrics": "runner", "run_benchmark": "runner",
    "BM25System": "systems", "CorpusVectors": "systems", "DenseSystem": "systems", "HybridSystem": "systems",
    "RetrievalSystem": "systems",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'rag.evaluation' has no attribute {name!r}")
    value = getattr(import_module(f"rag.evaluation.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_MODULES))


__all__ = [
    "BeirDataset",
    "load_beir",
    "evaluate_run",
    "per_query_metrics",
    "run_benchmark",
    "RetrievalMetrics",
    "BenchmarkResult",
    "RetrievalSystem",
    "DenseSystem",
    "BM25System",
    "HybridSystem",
    "CorpusVectors",
    "CONFIGURATIONS",
    "build_systems",
    "ndcg_at_k",
    "recall_at_k",
    "precision_at_k",
    "reciprocal_rank_at_k",
    "average_precision_at_k",
]
