"""Retrieval evaluation: BEIR datasets, metrics checked against trec_eval's definitions,
and a runner that benchmarks retrieval configurations (used by ``rag bench`` and
``benchmarks/quality.py``)."""

from rag.evaluation.beir import BeirDataset, load_beir
from rag.evaluation.configurations import CONFIGURATIONS, build_systems
from rag.evaluation.metrics import (
    average_precision_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
)
from rag.evaluation.runner import BenchmarkResult, RetrievalMetrics, evaluate_run, per_query_metrics, run_benchmark
from rag.evaluation.systems import BM25System, CorpusVectors, DenseSystem, HybridSystem, RetrievalSystem

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
