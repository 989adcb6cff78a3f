"""Milvus 2.3.5: ours against langchain-milvus on the same server, and against our FAISS
HNSW in process.

    python benchmarks/milvus.py                        # 100k x 384 (a few minutes)
    python benchmarks/milvus.py --count 1000000        # the 1M run (long; 4-9 GB of engine memory, extrapolated)
    python benchmarks/milvus.py --uri http://127.0.0.1:19530

Without ``--uri`` a Milvus standalone is started from the ``milvus`` wheel (default
settings) in a temporary folder and removed afterwards. The peer runs in its own
environment (``--peer-python``, default /work/venv-lcmilvus/bin/python; see
benchmarks/milvus_langchain_peer.py): langchain-milvus 0.4 needs pymilvus 3.

Vectors: clustered unit vectors (as benchmarks/postgres.py). Measured: insert throughput
(batches of 1,000 with ids, a text and a metadata dict each, until Milvus acknowledged
them), the time until the HNSW index (M=16, efConstruction=64) covers every row after a
flush, query latency p50 (k=10, one query at a time, Session consistency) at each ``ef``
with recall@10 against the exact results, and the engine's resident memory (RSS of the
Milvus process) after the load; our FAISS store with ``HNSW16`` at the same ``efSearch``,
in process (its memory: the growth of this process's RSS while adding).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the repository, not benchmarks/ (see stores.py)

from benchmarks._timing import fmt_time  # noqa: E402
from benchmarks.postgres import add_in_batches, p50, recall, run_peer, sweep_ef  # noqa: E402
from benchmarks.stores import clustered_unit_vectors  # noqa: E402
from rag.process_defaults import apply_process_defaults  # noqa: E402
from stores import FAISS  # noqa: E402
from stores.milvus import Milvus  # noqa: E402

EF = [16, 32, 64, 128, 256]
#: Seconds to wait after the index is built and its segments are loaded: the query node
#: goes on searching the growing segments (through their coarse interim index: recall@10
#: ~0.75 whatever ``ef``) for a few seconds more. The same wait on both sides.
SETTLE = 10


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def milvus_pid() -> int | None:
    """The Milvus process this benchmark started (a child of ours), if any."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == os.getpid() and "milvus" in (entry / "comm").read_text():
                    return int(entry.name)
            except OSError:
                continue
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--uri", help="an existing server (default: start one from the milvus wheel)")
    parser.add_argument("--peer-python", default="/work/venv-lcmilvus/bin/python")
    args = parser.parse_args()
    apply_process_defaults()
    folder = Path(tempfile.mkdtemp(prefix="rag-bench-milvus-"))
    try:
        if args.uri is not None:
            run(args, args.uri, folder, None)
        else:
            from stores.testing.milvus_server import milvus_server

            with milvus_server(folder / "server") as uri:
                run(args, uri, folder, milvus_pid())
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(args: argparse.Namespace, uri: str, folder: Path, pid: int | None) -> None:
    everything = clustered_unit_vectors(args.count + args.queries, seed=5)
    vectors, queries = np.ascontiguousarray(everything[: args.count]), everything[args.count:]
    print(f"{args.count:,} x {vectors.shape[1]} clustered unit vectors, {args.queries} queries, k=10\n", flush=True)
    truth = [list(map(int, np.argsort(-(vectors @ q))[:10])) for q in queries]

    rss_before = rss_mib(os.getpid())
    graph = FAISS(distance_strategy="COSINE", index_factory="HNSW16")  # M=16, as the Milvus index
    faiss_seconds = add_in_batches(graph, vectors, args.batch)
    faiss_mib = rss_mib(os.getpid()) - rss_before
    faiss_hnsw = sweep_ef(graph, EF, queries, truth, attribute="efSearch")
    del graph

    engine_before = rss_mib(pid) if pid else float("nan")
    ours = Milvus(None, "bench_ours", uri=uri, drop_old=True, hnsw_m=16, hnsw_ef_construction=64)
    ours_seconds = add_in_batches(ours, vectors, args.batch)
    began = time.perf_counter()
    ours.flush()
    index_seconds = time.perf_counter() - began
    time.sleep(SETTLE)
    sweep_ef(ours, EF, queries, truth)  # a warm-up pass (the first over a new index is slower), as the peer's
    engine_mib = (rss_mib(pid) - engine_before) if pid else float("nan")
    hnsw = sweep_ef(ours, EF, queries, truth)
    ours.delete_collection()
    ours.close()

    peer = run_peer(args.peer_python, "milvus_langchain_peer.py", uri, folder, vectors, queries, args.batch, EF)
    report(args, ours_seconds, index_seconds, engine_mib, hnsw, peer, faiss_seconds, faiss_mib, faiss_hnsw, truth)


def report(args, ours_seconds, index_seconds, engine_mib, hnsw, peer, faiss_seconds, faiss_mib, faiss_hnsw, truth) -> None:
    print("| measurement | ours (Milvus) | langchain-milvus | ratio | our FAISS HNSW16 (in process) |")
    print("|---|---|---|---|---|")
    rate = args.count / ours_seconds
    peer_rate = args.count / peer["insert_seconds"] if peer else None
    print(f"| insert, docs/s | {rate:,.0f} | {f'{peer_rate:,.0f}' if peer else ''} | "
          f"{f'{rate / peer_rate:.2f}x' if peer else ''} | {args.count / faiss_seconds:,.0f} |")
    peer_index = f"{peer['index_seconds']:.1f} s" if peer else ""
    print(f"| flush until the index covers every row | {index_seconds:.1f} s | {peer_index} | | (built while adding) |")
    print(f"| memory after loading | engine +{engine_mib:,.0f} MiB | (same engine) | | process +{faiss_mib:,.0f} MiB |")
    for ef, (latency, ours_recall) in hnsw.items():
        peer_text, ratio = "", ""
        if peer:
            entry = peer["hnsw"][str(ef)]
            peer_latency = p50(entry["times"])
            peer_text = f"{fmt_time(peer_latency)} (recall {recall(entry['ids'], truth):.3f})"
            ratio = f"{peer_latency / latency:.2f}x"
        faiss_latency, faiss_recall = faiss_hnsw[ef]
        print(f"| ef={ef} p50 (recall {ours_recall:.3f}) | {fmt_time(latency)} | {peer_text} | {ratio} | "
              f"{fmt_time(faiss_latency)} (recall {faiss_recall:.3f}, {latency / faiss_latency:.1f}x faster than ours) |")
    if peer:
        print(f"\nlangchain-milvus: relevance of the 10 best for a query opposite the data: "
              f"{[round(s, 3) for s in peer['relevance']]}; raw scores {[round(s, 3) for s in peer['raw']]}; "
              f"Document.id of results: {peer['document_ids']}")


if __name__ == "__main__":
    main()
