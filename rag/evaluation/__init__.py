"""Retrieval evaluation: BEIR datasets, metrics checked against trec_eval's definitions,
and a runner that benchmarks retrieval configurations (used by ``rag bench`` and
``benchmarks/quality.py``)."""

from typing import TYPE_CHECKING

from rag._lazy import lazy_exports

if TYPE_CHECKING:  # what a type checker sees (the __getattr__ below would give it Any)
    from rag.evaluation.beir import BeirDataset, load_beir
    from rag.evaluation.configurations import CONFIGURATIONS, build_systems
    from rag.evaluation.metrics import (average_precision_at_k, ndcg_at_k, precision_at_k, recall_at_k,
                                        reciprocal_rank_at_k)
    from rag.evaluation.runner import BenchmarkResult, RetrievalMetrics, evaluate_run, per_query_metrics, run_benchmark
    from rag.evaluation.systems import BM25System, CorpusVectors, DenseSystem, HybridSystem, RetrievalSystem

# Names are imported on first use (PEP 562): ``rag.index`` and the CLI need the BEIR reader
# and the metrics, not the retrieval systems, which bring the embeddings and HTTP clients.
__getattr__, __dir__ = lazy_exports(__name__, {
    "rag.evaluation.beir": ["BeirDataset", "load_beir"],
    "rag.evaluation.configurations": ["CONFIGURATIONS", "build_systems"],
    "rag.evaluation.metrics": ["average_precision_at_k", "ndcg_at_k", "precision_at_k", "recall_at_k",
                               "reciprocal_rank_at_k"],
    "rag.evaluation.runner": ["BenchmarkResult", "RetrievalMetrics", "evaluate_run", "per_query_metrics",
                              "run_benchmark"],
    "rag.evaluation.systems": ["BM25System", "CorpusVectors", "DenseSystem", "HybridSystem", "RetrievalSystem"],
}, submodules=["systems"])  # named by the runner's and configurations' type hints


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
