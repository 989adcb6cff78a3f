"""Retrieval quality of an index on a BEIR dataset: the system ``rag index`` builds and
``rag search`` runs, measured as it is (same store, distance, chunking and fusion)."""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path
from typing import Optional, Union

from rag.errors import ValidationError
from rag.evaluation import BeirDataset, BenchmarkResult, evaluate_run, load_beir
from rag.index.config import BENCH_SEARCH_TYPES, BENCH_TYPES, IndexConfig, check_k
from rag.index.core import Index

__all__ = ["BENCH_TYPES", "holds_dataset", "chunks_per_query", "rank_documents", "bench_index", "bench_dataset"]



def _doc_id(source: str) -> Optional[str]:
    # A BEIR document's source is CORPUS#ID (see rag.index.sources).
    corpus, hash_sign, doc_id = source.rpartition("#")
    return doc_id if hash_sign and corpus.endswith(".jsonl") else None


def holds_dataset(index: Index, dataset: BeirDataset) -> bool:
    """True when ``index`` holds every document of ``dataset`` (indexed with
    ``beir=True``); False when it holds none. Holding only some is an error: the
    measurement would be of another corpus."""
    wanted = set(dataset.doc_ids)
    held = wanted.intersection(_doc_id(source) for source in index.sources())
    if held and held != wanted:
        raise ValidationError(f"the index at {index.path} holds {len(held)} of the {len(wanted)} documents of "
                              f"{dataset.name}; index the whole corpus with: rag index DATASET --beir --index {index.path}")
    return bool(held)


def chunks_per_query(index: Index, k: int) -> int:
    """How many chunks a query asks for so that, with documents split into several chunks,
    about ``k`` distinct documents come back: ``k`` times the mean chunks per source."""
    sources = index.sources()
    chunks = sum(len(ids) for ids in sources.values())
    return k * max(1, math.ceil(chunks / max(1, len(sources))))


def rank_documents(index: Index, query: str, *, k: int, chunk_k: int, search_type: str) -> list[str]:
    """The BEIR ids of the best documents for ``query``, each once, ranked by its best
    chunk among the ``chunk_k`` best chunks; at most ``k``."""
    ranking: dict[str, None] = {}
    for chunk, _ in index.search(query, k=chunk_k, search_type=search_type):
        doc_id = chunk.metadata.get("doc_id")
        if doc_id is not None:
            ranking.setdefault(str(doc_id), None)
    return list(ranking)[:k]


def bench_index(index: Index, dataset: BeirDataset, *, search_type: str = "hybrid", k: int = 100,
                index_seconds: float = 0.0) -> BenchmarkResult:
    """Run every judged query of ``dataset`` against ``index`` (which must hold the
    dataset's corpus) and evaluate the top ``k`` (default 100) documents."""
    BENCH_SEARCH_TYPES.check(search_type)
    check_k(k)
    if not holds_dataset(index, dataset):
        raise ValidationError(f"the index at {index.path} holds no document of {dataset.name}; index it with: "
                              f"rag index DATASET --beir --index {index.path}")
    chunk_k = chunks_per_query(index, k)
    began = time.perf_counter()
    run = {qid: rank_documents(index, text, k=k, chunk_k=chunk_k, search_type=search_type)
           for qid, text in dataset.queries.items()}
    query_seconds = time.perf_counter() - began
    return BenchmarkResult(
        system=search_type, dataset=dataset.name,
        metrics=evaluate_run(run, dataset.qrels), index_seconds=index_seconds, query_seconds=query_seconds,
        documents=len(dataset.doc_ids), run=run,
    )


def bench_dataset(dataset_dir: Union[str, Path], config: IndexConfig, *, search_type: str = "hybrid",
                  k: int = 100) -> BenchmarkResult:
    """Build a fresh index of the dataset's corpus with ``config`` (in a temporary folder,
    removed afterwards), exactly as ``rag index DATASET --beir`` would, and benchmark it."""
    dataset = load_beir(dataset_dir)
    with tempfile.TemporaryDirectory(prefix="rag-bench-") as work:
        index = Index.create(Path(work) / "index", embeddings=config.embeddings, store=config.store,
                             chunk_size=config.chunk_size, chunk_overlap=config.chunk_overlap, hybrid=config.hybrid)
        began = time.perf_counter()
        summary = index.update([str(dataset_dir)], beir=True)
        if summary.failed:
            source, reason = summary.failed[0]
            raise ValidationError(f"{len(summary.failed)} corpus line(s) could not be indexed, first {source}: {reason}")
        return bench_index(index, dataset, search_type=search_type, k=k,
                           index_seconds=time.perf_counter() - began)
