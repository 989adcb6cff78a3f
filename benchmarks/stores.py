"""Vector store benchmark: ours against LangChain and raw faiss, side by side in one run.

    python benchmarks/stores.py              # full run (the 1M ANN part takes a while)
    python benchmarks/stores.py --quick      # smaller sizes, a smoke run

Needs the ``bench`` extra (langchain-core, langchain-community). Every comparison uses the
same random unit vectors (384 dimensions) and the same input types. Prints times and ratios
(peer time / our time: > 1 means we are faster).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

# This file is named like the `stores` package: run as a script, its own folder would come
# first on sys.path and shadow the package. Put the repository root there instead.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks._timing import best_of, fmt_time, paired, rss_mib  # noqa: E402

from rag.embeddings import DeterministicFakeEmbedding  # noqa: E402
from rag.process_defaults import apply_process_defaults  # noqa: E402
from stores import FAISS, InMemoryVectorStore  # noqa: E402
from stores.mmr import maximal_marginal_relevance  # noqa: E402

DIM = 384


def unit_vectors(count: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((count, DIM), dtype=np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def clustered_unit_vectors(count: int, seed: int, latent: int = 64, clusters: int = 1000) -> np.ndarray:
    """Unit vectors with the low intrinsic dimension of real sentence embeddings.

    Points of a Gaussian mixture in ``latent`` dimensions, mapped into 384 by a random
    orthonormal projection, plus small isotropic noise. Uniform random 384-d vectors have
    no neighbourhood structure, so no ANN index does well on them; text embeddings do.
    """
    rng = np.random.default_rng(seed)
    basis, _ = np.linalg.qr(np.random.default_rng(99).standard_normal((DIM, latent)))
    centres = np.random.default_rng(98).standard_normal((clusters, latent)).astype(np.float32)
    basis = basis.T.astype(np.float32)
    rows = np.empty((count, DIM), dtype=np.float32)
    step = 100_000
    for start in range(0, count, step):
        stop = min(start + step, count)
        size = stop - start
        points = centres[rng.integers(0, clusters, size)] + 1.0 * rng.standard_normal((size, latent), dtype=np.float32)
        rows[start:stop] = points @ basis + 0.02 * rng.standard_normal((size, DIM), dtype=np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def row(name: str, ours: float, peer: float | None = None, peer_name: str = "", note: str = "") -> None:
    if peer is None:
        print(f"| {name} | {fmt_time(ours)} | | | {note} |")
    else:
        print(f"| {name} | {fmt_time(ours)} | {peer_name} {fmt_time(peer)} | {peer / ours:.2f}x | {note} |")


def bench_build(count: int) -> None:
    from langchain_community.vectorstores import FAISS as LCFAISS
    from langchain_core.embeddings import DeterministicFakeEmbedding as LCFake

    vectors = unit_vectors(count, 1)
    pairs = [(f"text {i}", vectors[i]) for i in range(count)]
    ours = best_of(lambda: FAISS.from_embeddings(pairs, DeterministicFakeEmbedding(size=DIM)), repeat=3)
    theirs = best_of(lambda: LCFAISS.from_embeddings(pairs, LCFake(size=DIM)), repeat=3)
    row(f"FAISS.from_embeddings, {count:,} pairs", ours, theirs, "LangChain FAISS", "target >= 3x")
    theirs_mem = best_of(lambda: _lc_inmemory_build(pairs), repeat=1)
    ours_mem = best_of(lambda: _our_inmemory_build(pairs), repeat=3)
    row(f"InMemoryVectorStore build, {count:,} pairs", ours_mem, theirs_mem, "LangChain InMemory", "add_embeddings vs add_documents+store")


def _our_inmemory_build(pairs):
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=DIM))
    store.add_embeddings(pairs)
    return store


def _lc_inmemory_build(pairs):
    # langchain-core's InMemoryVectorStore has no add_embeddings: fill its store dict as its
    # add_documents does after embedding, so only the storing is timed.
    import uuid

    from langchain_core.embeddings import DeterministicFakeEmbedding as LCFake
    from langchain_core.vectorstores import InMemoryVectorStore as LCInMemory

    store = LCInMemory(LCFake(size=DIM))
    for text, vector in pairs:
        doc_id = str(uuid.uuid4())
        store.store[doc_id] = {"id": doc_id, "vector": vector.tolist(), "text": text, "metadata": {}}
    return store


def bench_inmemory_query(count: int) -> None:
    from langchain_core.embeddings import DeterministicFakeEmbedding as LCFake
    from langchain_core.vectorstores import InMemoryVectorStore as LCInMemory

    vectors = unit_vectors(count, 2)
    ours = InMemoryVectorStore(DeterministicFakeEmbedding(size=DIM))
    ours.add_embeddings([(f"text {i}", vectors[i]) for i in range(count)], ids=[str(i) for i in range(count)])
    theirs = LCInMemory(LCFake(size=DIM))
    for i in range(count):
        theirs.store[str(i)] = {"id": str(i), "vector": vectors[i].tolist(), "text": f"text {i}", "metadata": {}}
    query = unit_vectors(1, 3)[0]
    assert [d.id for d in ours.similarity_search_by_vector(query, 4)] == [d.id for d in theirs.similarity_search_by_vector(query.tolist(), 4)]
    t_ours = best_of(lambda: ours.similarity_search_by_vector(query, 4), repeat=5, number=20)
    t_theirs = best_of(lambda: theirs.similarity_search_by_vector(query.tolist(), 4), repeat=3, number=2)
    row(f"InMemory query, {count:,} vectors, k=4", t_ours, t_theirs, "LangChain InMemory", "target >= 100x")
    lc_mmr = best_of(lambda: theirs.max_marginal_relevance_search_by_vector(query.tolist(), k=10, fetch_k=100), repeat=3)
    our_mmr = best_of(lambda: ours.max_marginal_relevance_search_by_vector(query, k=10, fetch_k=100), repeat=5, number=10)
    row(f"InMemory MMR, {count:,} vectors, k=10 fetch_k=100", our_mmr, lc_mmr, "LangChain InMemory")


def bench_faiss_query(count: int) -> None:
    import faiss

    vectors = unit_vectors(count, 4)
    store = FAISS.from_embeddings([(f"text {i}", vectors[i]) for i in range(count)], DeterministicFakeEmbedding(size=DIM),
                                  metadatas=[{"bucket": i % 100} for i in range(count)])
    raw = faiss.IndexFlatL2(DIM)
    raw.add(vectors)
    query = unit_vectors(1, 5)
    t_ours, t_raw = paired(lambda: store.similarity_search_with_score_by_vector(query[0], 4), lambda: raw.search(query, 4))
    print(f"| FAISS single query, {count:,} vectors, k=4 | {fmt_time(t_ours)} | raw faiss {fmt_time(t_raw)} | "
          f"{t_ours / t_raw:.3f}x of raw | target <= 1.10x |")
    batch = unit_vectors(1000, 6)
    t_ours_b, t_raw_b = paired(lambda: store.similarity_search_with_score_by_vectors(batch, 10),
                               lambda: raw.search(batch, 10), repeat=5, number=1)
    print(f"| FAISS batched, 1,000 queries, k=10 | {1000 / t_ours_b:,.0f} q/s | raw faiss {1000 / t_raw_b:,.0f} q/s | "
          f"{t_raw_b / t_ours_b:.2f} of raw throughput | target ~1.0 |")
    t_mmr, t_search = paired(lambda: store.max_marginal_relevance_search_by_vector(query[0], k=10, fetch_k=100),
                             lambda: store.similarity_search_by_vector(query[0], 100))
    candidates = vectors[:100]
    t_rerank = best_of(lambda: maximal_marginal_relevance(query[0], candidates, 0.5, 10), repeat=7, number=20)
    print(f"| MMR k=10 fetch_k=100 on {count:,} | {fmt_time(t_mmr)} | search alone {fmt_time(t_search)} | "
          f"re-rank {fmt_time(t_rerank)} (total - search {fmt_time(max(t_mmr - t_search, 0))}) | target < 1 ms |")
    filtered = store.similarity_search_by_vector(query[0], 10, filter={"bucket": 7})
    assert len(filtered) == 10 and all(d.metadata["bucket"] == 7 for d in filtered)
    t_filtered, t_plain = paired(lambda: store.similarity_search_by_vector(query[0], 10, filter={"bucket": 7}),
                                 lambda: store.similarity_search_by_vector(query[0], 10))
    print(f"| Filtered search (1% of {count:,} match), k=10 | {fmt_time(t_filtered)} | unfiltered {fmt_time(t_plain)} | "
          f"{t_filtered / t_plain:.2f}x of unfiltered | 10 exact results |")
    matcher = lambda metadata: metadata["bucket"] == 7  # noqa: E731
    t_callable = best_of(lambda: store.similarity_search_by_vector(query[0], 10, filter=matcher), repeat=5)
    print(f"| Filtered search, callable filter | {fmt_time(t_callable)} | | | Python predicate per document |")


def bench_ann(count: int, queries: int) -> None:
    import faiss

    print(f"\nANN at {count:,} x {DIM} (unit vectors, 64-d latent mixture), {queries} queries, recall@10 against exact flat search:\n")
    print("| index | build | query (1 thread, per query) | speed-up vs flat | recall@10 | index size | process RSS growth |")
    print("|---|---|---|---|---|---|---|")
    data = clustered_unit_vectors(count, 7)
    query_rows = clustered_unit_vectors(queries, 8)
    embedding = DeterministicFakeEmbedding(size=DIM)
    faiss.omp_set_num_threads(1)  # per-query latency, as a single request sees it
    results = {}
    for label, factory, params in [
        ("Flat (exact)", "Flat", [{}]),
        ("HNSW32", "HNSW32", [{"efSearch": 32}, {"efSearch": 64}, {"efSearch": 128}, {"efSearch": 256}]),
        ("IVF4096,Flat", "IVF4096,Flat", [{"nprobe": 8}, {"nprobe": 16}, {"nprobe": 32}, {"nprobe": 64}]),
    ]:
        before = rss_mib()
        faiss.omp_set_num_threads(os.cpu_count() or 1)
        start = time.perf_counter()
        store = FAISS(embedding, index_factory=factory)
        if factory.startswith("IVF"):
            store.train(data[np.random.default_rng(0).choice(count, min(count, 200_000), replace=False)])
        store.add_vectors(data, _cheap_documents(count), ids=[str(i) for i in range(count)])
        build = time.perf_counter() - start
        memory = rss_mib() - before
        index_mib = faiss.serialize_index(store.index).nbytes / 2**20
        faiss.omp_set_num_threads(1)
        for setting in params:
            for name, value in setting.items():
                setattr(store, name, value)
            start = time.perf_counter()
            found = [[int(d.id) for d in store.similarity_search_by_vector(q, 10)] for q in query_rows]
            per_query = (time.perf_counter() - start) / queries
            if factory == "Flat":
                results["truth"], results["flat_time"] = found, per_query
                recall, speedup = 1.0, 1.0
            else:
                recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(found, results["truth"])])
                speedup = results["flat_time"] / per_query
            tag = f"{label} {setting}" if setting else label
            print(f"| {tag} | {build:.1f} s | {fmt_time(per_query)} | {speedup:.1f}x | {recall:.3f} | "
                  f"{index_mib:,.0f} MiB | {memory:,.0f} MiB |")
        del store
    faiss.omp_set_num_threads(os.cpu_count() or 1)


def _cheap_documents(count: int):
    from rag.documents import Document

    return [Document(f"text {i}") for i in range(count)]


def main() -> None:
    apply_process_defaults()  # first: faiss's OpenMP reads OMP_WAIT_POLICY once, when it loads
    import faiss

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke run)")
    parser.add_argument("--build-size", type=int, default=100_000)
    parser.add_argument("--inmemory-size", type=int, default=10_000)
    parser.add_argument("--query-size", type=int, default=100_000)
    parser.add_argument("--ann-size", type=int, default=1_000_000)
    parser.add_argument("--ann-queries", type=int, default=200)
    parser.add_argument("--skip-ann", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.build_size, args.inmemory_size, args.query_size, args.ann_size, args.ann_queries = 10_000, 2_000, 10_000, 50_000, 50
    warnings.simplefilter("ignore")
    print(f"faiss {faiss.__version__}, numpy {np.__version__}, {os.cpu_count()} cores\n")
    print("| measurement | ours | peer | ratio | note |")
    print("|---|---|---|---|---|")
    bench_build(args.build_size)
    bench_inmemory_query(args.inmemory_size)
    bench_faiss_query(args.query_size)
    if not args.skip_ann:
        bench_ann(args.ann_size, args.ann_queries)


if __name__ == "__main__":
    main()
