"""Retrieval quality on a BEIR dataset (default SciFact), cross-checked against ranx and bm25s.

    python benchmarks/quality.py [--data PATH] [--configs hashing bm25 ...] [--chart PNG] [--json OUT]

Runs each configuration of ``rag.evaluation.CONFIGURATIONS`` (index title + text, top 100
per query), prints a Markdown table, checks every metric of every run against ranx (to
1e-6) and our BM25 against bm25s (same analysis), and draws a bar chart. Exits 1 when a
cross-check fails. Needs the ``bench`` and ``local`` extras.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rag.index.registry import evaluation_store_factories  # noqa: E402
from rag.evaluation import CONFIGURATIONS, BenchmarkResult, build_systems, load_beir, run_benchmark  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "beir" / "scifact"
RANX_NAMES = {"ndcg_at_10": "ndcg@10", "recall_at_10": "recall@10", "recall_at_100": "recall@100",
              "mrr_at_10": "mrr@10", "map_at_100": "map@100"}


def ranx_differences(result: BenchmarkResult, qrels: dict) -> dict[str, float]:
    """|ours - ranx| for each metric. Run scores fall with rank so ranx keeps our order."""
    from ranx import Qrels, Run, evaluate

    run = {qid: {doc: float(len(docs) - rank) for rank, doc in enumerate(docs)} for qid, docs in result.run.items() if docs}
    theirs = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), list(RANX_NAMES.values()), make_comparable=True)
    ours = result.metrics.to_dict()
    return {name: abs(ours[name] - float(theirs[ranx_name])) for name, ranx_name in RANX_NAMES.items()}


def bm25s_agreement(dataset, k: int = 10) -> dict[str, float]:
    """Our BM25 (Lucene variant, stemmed) against bm25s with the same stopwords and stemmer."""
    import bm25s
    import Stemmer

    from rag.bm25 import ENGLISH_STOPWORDS, BM25Retriever

    passages, queries = dataset.passages(), list(dataset.queries.values())
    ours = BM25Retriever.from_texts(passages)
    positions, scores = ours.search_positions(queries, k)
    stemmer = Stemmer.Stemmer("english")
    reference = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    reference.index(bm25s.tokenize(passages, stopwords=list(ENGLISH_STOPWORDS), stemmer=stemmer, show_progress=False),
                    show_progress=False)
    query_tokens = bm25s.tokenize(queries, stopwords=list(ENGLISH_STOPWORDS), stemmer=stemmer, show_progress=False)
    _, ref_scores = reference.retrieve(query_tokens, k=k, show_progress=False, n_threads=1)
    worst = 0.0
    for mine, theirs in zip(scores, ref_scores):
        worst = max(worst, float(np.max(np.abs(mine - theirs[: len(mine)]))) if len(mine) else 0.0)
    return {"max_abs_score_difference_top10": worst, "queries": len(queries)}


def markdown_table(results: list[BenchmarkResult], passages_per_second: float | None) -> str:
    lines = [
        "| configuration | nDCG@10 | Recall@10 | Recall@100 | MRR@10 | MAP@100 | index time | query time (300 q) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        m = r.metrics
        lines.append(
            f"| `{r.system}` | {m.ndcg_at_10:.3f} | {m.recall_at_10:.3f} | {m.recall_at_100:.3f} | "
            f"{m.mrr_at_10:.3f} | {m.map_at_100:.3f} | {r.index_seconds:.1f} s | {r.query_seconds:.2f} s |"
        )
    if passages_per_second:
        lines.append(f"\nMiniLM indexing speed: {passages_per_second:.1f} passages/s.")
    return "\n".join(lines)


def draw_chart(results: list[BenchmarkResult], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = [("ndcg_at_10", "nDCG@10"), ("recall_at_10", "Recall@10"), ("recall_at_100", "Recall@100"), ("mrr_at_10", "MRR@10")]
    x = np.arange(len(results))
    width = 0.2
    fig, ax = plt.subplots(figsize=(10, 4.5), dpi=110)
    for offset, (key, label) in enumerate(metrics):
        values = [r.metrics.to_dict()[key] for r in results]
        bars = ax.bar(x + (offset - 1.5) * width, values, width, label=label)
        if key == "ndcg_at_10":
            ax.bar_label(bars, fmt="%.3f", fontsize=7, padding=1)
    ax.set_xticks(x, [r.system for r in results], fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("score")
    ax.set_title(title)
    ax.legend(ncol=4, fontsize=8, loc="upper left")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    from rag.process_defaults import apply_process_defaults

    apply_process_defaults()  # an entry point: set before faiss and onnxruntime load
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="BEIR folder (default: SciFact)")
    parser.add_argument("--configs", nargs="+", default=list(CONFIGURATIONS), choices=list(CONFIGURATIONS))
    parser.add_argument("--chart", type=Path, default=ROOT / "benchmarks" / "quality.png", help="bar chart PNG")
    parser.add_argument("--no-chart", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the figures (no runs) to this JSON file")
    parser.add_argument("--skip-bm25s", action="store_true", help="skip the bm25s cross-check")
    args = parser.parse_args(argv)

    dataset = load_beir(args.data)
    print(f"{dataset.name}: {len(dataset.doc_ids)} documents, {len(dataset.queries)} judged queries", flush=True)
    results, failures, passages_per_second = [], [], None
    for system in build_systems(args.configs, store_factories=evaluation_store_factories()):
        result = run_benchmark(dataset, system)
        results.append(result)
        embed_seconds = getattr(system, "embed_seconds", 0.0)
        if system.name.startswith("minilm") and embed_seconds and passages_per_second is None:
            passages_per_second = len(dataset.doc_ids) / embed_seconds
        differences = ranx_differences(result, dataset.qrels)
        worst = max(differences.values())
        print(f"{result.system:14s} nDCG@10 {result.metrics.ndcg_at_10:.4f}  index {result.index_seconds:7.1f} s  "
              f"query {result.query_seconds:6.2f} s  ranx max |diff| {worst:.1e}", flush=True)
        if worst > 1e-6:
            failures.append(f"{result.system}: metrics differ from ranx by {differences}")
    agreement = None
    if not args.skip_bm25s:
        agreement = bm25s_agreement(dataset)
        print(f"bm25s cross-check: {agreement}", flush=True)
        if agreement["max_abs_score_difference_top10"] > 1e-3:
            failures.append(f"BM25 scores differ from bm25s: {agreement}")
    print()
    print(markdown_table(results, passages_per_second))
    if not args.no_chart:
        draw_chart(results, args.chart, f"Retrieval quality on {dataset.name} (test, {len(dataset.queries)} queries)")
        print(f"\nchart written to {args.chart}")
    if args.json:
        args.json.write_text(json.dumps({
            "dataset": dataset.name, "date": time.strftime("%Y-%m-%d"), "cpus": os.cpu_count(),
            "minilm_passages_per_second": passages_per_second, "bm25s": agreement,
            "results": [{"system": r.system, **r.metrics.to_dict(), "index_seconds": r.index_seconds,
                         "query_seconds": r.query_seconds} for r in results],
        }, indent=2))
    for failure in failures:
        print(f"CROSS-CHECK FAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
