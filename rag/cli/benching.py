"""``rag bench``: the evaluation module's report on a BEIR-format dataset."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import IO, Optional, Sequence

from rag.errors import ValidationError
from rag.evaluation import CONFIGURATIONS, BenchmarkResult, build_systems, load_beir, run_benchmark

from rag.cli.composition import STORE_FACTORIES
from rag.cli.embedding_spec import default_spec

__all__ = ["BENCH_TYPES", "configuration_for", "run_bench", "print_bench"]

BENCH_TYPES = ("hybrid", "similarity", "mmr", "bm25")

# (embeddings, search type) -> the named configuration of rag.evaluation that measures it.
_CONFIGURATION = {
    ("hashing", "similarity"): "hashing",
    ("local", "similarity"): "minilm-faiss",
    ("local", "mmr"): "minilm-mmr",
    ("local", "hybrid"): "hybrid",
}


def configuration_for(embeddings: Optional[str], search_type: str) -> str:
    """The configuration name for ``--embeddings``/``--type`` (BM25 needs no embeddings)."""
    if search_type == "bm25":
        return "bm25"
    spec = embeddings or default_spec()
    name = _CONFIGURATION.get((spec, search_type))
    if name is None:
        combos = ", ".join(f"--embeddings {e} --type {t}" for e, t in _CONFIGURATION) + ", --type bm25"
        raise ValidationError(f"no benchmark configuration for --embeddings {spec} --type {search_type}; try {combos}")
    return name


def run_bench(dataset_dir: Path, names: Sequence[str], *, k: int = 100) -> list[BenchmarkResult]:
    unknown = [n for n in names if n not in CONFIGURATIONS]
    if unknown:
        raise ValidationError(f"unknown configuration {unknown[0]!r}; choose from {', '.join(CONFIGURATIONS)}")
    dataset = load_beir(dataset_dir)
    return [run_benchmark(dataset, system, k=k) for system in build_systems(names, store_factories=STORE_FACTORIES)]


def print_bench(results: Sequence[BenchmarkResult], *, as_json: bool = False, stream: Optional[IO[str]] = None) -> None:
    out = stream if stream is not None else sys.stdout
    if as_json:
        rows = [{"system": r.system, "dataset": r.dataset, "documents": r.documents, **r.metrics.to_dict(),
                 "index_seconds": round(r.index_seconds, 3), "query_seconds": round(r.query_seconds, 3)} for r in results]
        print(json.dumps(rows, indent=2), file=out)
        return
    print("| system | nDCG@10 | Recall@10 | Recall@100 | MRR@10 | MAP@100 | index s | query s |", file=out)
    print("|---|---|---|---|---|---|---|---|", file=out)
    for r in results:
        m = r.metrics
        print(f"| {r.system} | {m.ndcg_at_10:.3f} | {m.recall_at_10:.3f} | {m.recall_at_100:.3f} | {m.mrr_at_10:.3f} | "
              f"{m.map_at_100:.3f} | {r.index_seconds:.1f} | {r.query_seconds:.2f} |", file=out)
    if results:
        print(f"\n{results[0].dataset}: {results[0].documents} documents, {results[0].metrics.queries} judged queries", file=out)
