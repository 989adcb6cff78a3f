"""``rag bench``: retrieval quality on a BEIR dataset, or answer quality on a QA set."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rag.cli.common import RagCliError, open_index, store_uri

__all__ = ["run_bench"]


def _run_bench_answers(args: argparse.Namespace) -> int:
    from rag.cli.output import print_answer_bench
    from rag.index.answer_bench import bench_answers

    if args.dataset is not None or args.config:
        raise RagCliError("--answers measures answers of an index: give --index DIR, not a dataset or --config")
    if not args.answers.is_file():
        raise RagCliError(f"no QA file at {args.answers}: expected a tab-separated file with columns question, "
                          "key phrases, source paths (a header row is optional)")
    llm = None
    if args.model is not None:
        from rag.models import ChatOpenAI

        llm = ChatOpenAI(model=args.model, base_url=args.base_url)
    index = open_index(args)  # --index DIR, --store-uri URI, or the default folder
    if args.project is None:
        print_answer_bench(bench_answers(index, args.answers, k=args.k, llm=llm), as_json=args.json)
        return 0
    from rag.tracing import StoreTracer

    tracer = StoreTracer(project_name=args.project)
    result = bench_answers(index, args.answers, k=args.k, llm=llm,
                           config={"callbacks": [tracer], "run_name": "bench answer", "tags": ["rag bench"]})
    _record_scores(tracer, result)
    print_answer_bench(result, as_json=args.json)
    return 0


def _record_scores(tracer: Any, result: Any) -> None:
    """Each answer's checks as feedback beside its run (key_phrase, source_cited: 0 or 1),
    so ``rag trace projects`` shows two versions' projects side by side."""
    if not tracer.flush(60):
        print("rag: warning: not every run reached the trace store in 60 s", file=sys.stderr)
    for run_id, score in zip(result.run_ids, result.scores):
        tracer.store.add_feedback(run_id, score=float(score.key_phrase), key="key_phrase", check=False)
        tracer.store.add_feedback(run_id, score=float(score.source_cited), key="source_cited", check=False)
    print(f"rag bench: {len(result.run_ids)} runs recorded in project {tracer.project_name!r} of "
          f"{tracer.store.path} (compare: rag trace projects)", file=sys.stderr)


def run_bench(args: argparse.Namespace) -> int:
    from rag.cli.output import print_bench
    from rag.evaluation import load_beir

    if args.answers is not None:
        return _run_bench_answers(args)
    if args.model is not None or args.base_url is not None or args.project is not None:
        raise RagCliError("--model, --base-url and --project apply to --answers QA.tsv only")
    if args.dataset is None:
        raise RagCliError("give a BEIR dataset folder (rag bench DATASET_DIR) or a QA set (rag bench --answers QA.tsv)")
    if args.config:
        from rag.evaluation import build_systems, run_benchmark
        from rag.index.registry import evaluation_store_factories

        dataset = load_beir(args.dataset)
        systems = build_systems(args.config, store_factories=evaluation_store_factories())
        print_bench([run_benchmark(dataset, system) for system in systems], as_json=args.json)
        return 0
    from rag.index import IndexConfig, bench_dataset, bench_index, default_embedding_spec
    from rag.index.bench import holds_dataset

    if args.index is not None or store_uri(args) is not None:
        chosen = [flag for flag, value in (("--embeddings", args.embeddings), ("--store", args.store),
                                            ("--chunk-size", args.chunk_size), ("--chunk-overlap", args.chunk_overlap))
                  if value is not None]
        if chosen:
            raise RagCliError(f"{chosen[0]} cannot be combined with --index: the index's own configuration is measured")
        index = open_index(args)
        dataset = load_beir(args.dataset)
        if holds_dataset(index, dataset):
            result = bench_index(index, dataset, search_type=args.search_type)
        else:
            result = bench_dataset(args.dataset, index.config, search_type=args.search_type)
    else:
        config = IndexConfig(args.embeddings or default_embedding_spec(), args.store or "faiss",
                             1000 if args.chunk_size is None else args.chunk_size,
                             200 if args.chunk_overlap is None else args.chunk_overlap)
        result = bench_dataset(args.dataset, config, search_type=args.search_type)
    if args.save_run is not None:
        import json

        args.save_run.write_text(json.dumps(result.run, indent=1), encoding="utf-8")
    print_bench([result], as_json=args.json)
    return 0
