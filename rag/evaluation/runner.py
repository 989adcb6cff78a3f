"""Evaluate a run against judgements, and benchmark a retrieval system on a BEIR dataset."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from rag.evaluation.beir import BeirDataset
from rag.evaluation.metrics import average_precision_at_k, ndcg_at_k, recall_at_k, reciprocal_rank_at_k

import rag.evaluation  # type hints: rag.evaluation.systems (embeddings, HTTP) imports on first use

if TYPE_CHECKING:
    import rag.evaluation.systems

__all__ = ["METRICS", "RetrievalMetrics", "BenchmarkResult", "per_query_metrics", "evaluate_run", "run_benchmark"]

#: The reported metrics: name -> (function, cut-off k).
METRICS: dict[str, tuple[Callable[[Sequence[str], Mapping[str, float], int], float], int]] = {
    "ndcg_at_10": (ndcg_at_k, 10),
    "recall_at_10": (recall_at_k, 10),
    "recall_at_100": (recall_at_k, 100),
    "mrr_at_10": (reciprocal_rank_at_k, 10),
    "map_at_100": (average_precision_at_k, 100),
}


@dataclass(frozen=True)
class RetrievalMetrics:
    """Means over the judged queries, each in [0, 1]; ``queries``: how many were averaged."""

    ndcg_at_10: float
    recall_at_10: float
    recall_at_100: float
    mrr_at_10: float
    map_at_100: float
    queries: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def per_query_metrics(run: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """{metric name: {query id: value}} for every query with a relevant document.

    A judged query missing from ``run`` scores 0 (it retrieved nothing).
    """
    judged = [qid for qid, grades in qrels.items() if any(g > 0 for g in grades.values())]
    return {
        name: {qid: function(run.get(qid, []), qrels[qid], k) for qid in judged}
        for name, (function, k) in METRICS.items()
    }


def evaluate_run(run: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, float]]) -> RetrievalMetrics:
    """nDCG@10, Recall@10, Recall@100, MRR@10 and MAP@100 of ``run`` ({query id: ranked
    document ids}) against ``qrels`` ({query id: {document id: grade}}), averaged.

    >>> evaluate_run({"q": ["d2", "d1"]}, {"q": {"d1": 1}}).mrr_at_10
    0.5
    """
    values = per_query_metrics(run, qrels)
    count = len(next(iter(values.values())))
    means = {name: (sum(per_query.values()) / count if count else 0.0) for name, per_query in values.items()}
    return RetrievalMetrics(**means, queries=count)


@dataclass(frozen=True)
class BenchmarkResult:
    """One system on one dataset: metrics, wall times in seconds, and the run itself."""

    system: str
    dataset: str
    metrics: RetrievalMetrics
    index_seconds: float
    query_seconds: float
    documents: int
    run: dict[str, list[str]]

    @property
    def queries_per_second(self) -> float:
        return self.metrics.queries / self.query_seconds if self.query_seconds > 0 else float("inf")


def run_benchmark(dataset: BeirDataset, system: rag.evaluation.systems.RetrievalSystem, *,
                  k: int = 100) -> BenchmarkResult:
    """Index ``dataset``'s passages with ``system``, run every judged query (top ``k``,
    default 100) in one batch, and evaluate. Index time includes embedding the corpus."""
    started = time.perf_counter()
    system.index(dataset.doc_ids, dataset.passages())
    index_seconds = time.perf_counter() - started
    # A system that reused cached corpus vectors still reports the embedding time it saved.
    index_seconds += getattr(system, "cached_seconds", 0.0)
    query_ids = list(dataset.queries)
    started = time.perf_counter()
    rankings = system.search([dataset.queries[qid] for qid in query_ids], k)
    query_seconds = time.perf_counter() - started
    run = dict(zip(query_ids, rankings))
    return BenchmarkResult(
        system=system.name, dataset=dataset.name, metrics=evaluate_run(run, dataset.qrels),
        index_seconds=index_seconds, query_seconds=query_seconds, documents=len(dataset.doc_ids), run=run,
    )
