"""Filtered search over 100k documents: numpy columns against a Python call per document.

    python benchmarks/filtering.py [--count 100000] [--repeats 200]

Each document has ``category`` (one of 100 strings) and ``year`` (an int in [0, 10000));
both filters keep 1 % of the documents: ``{"category": "c42"}`` and
``{"year": {"$gte": 5000, "$lt": 5100}}``. Reported, median of ``--repeats`` runs:

- the filter alone: our columnar evaluation (:mod:`stores._metadata_columns`) against the
  same filter as a Python predicate over every metadata dict (what the stores did before,
  and what LangChain's FAISS does);
- a filtered ``similarity_search_by_vector`` (k=10) on our InMemoryVectorStore and flat
  FAISS, against LangChain's InMemoryVectorStore (callable filter, its only kind) and
  LangChain's FAISS (dict filter, ``fetch_k=20`` then filtered: it returns fewer than k).

Needs the ``bench`` extra (langchain-core, langchain-community) for the peer rows.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the repository, not benchmarks/ (see stores.py)

from benchmarks._timing import fmt_time  # noqa: E402
from rag.documents import Document  # noqa: E402
from rag.process_defaults import apply_process_defaults  # noqa: E402
from stores import FAISS, InMemoryVectorStore  # noqa: E402
from stores.filters import compile_filter, parse_filter  # noqa: E402

DIM = 384
FILTERS = {
    "equality, 1 of 100 categories": {"category": "c42"},
    "range $gte/$lt on an int": {"year": {"$gte": 5000, "$lt": 5100}},
}


def median_time(func: Callable[[], Any], repeats: int) -> float:
    func()  # warm: builds the columns on the first filtered call
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def corpus(count: int) -> tuple[np.ndarray, list[dict[str, Any]], list[str]]:
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((count, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    years = rng.integers(0, 10_000, count)
    metadatas = [{"category": f"c{i % 100:02d}", "year": int(years[i]), "source": f"doc{i}.txt"} for i in range(count)]
    return vectors, metadatas, [str(i) for i in range(count)]


def row(name: str, ours: float, peer: float | None, peer_name: str, note: str = "") -> None:
    ratio = f"{peer / ours:.0f}x" if peer is not None else ""
    peer_text = f"{peer_name} {fmt_time(peer)}" if peer is not None else ""
    print(f"| {name} | {fmt_time(ours)} | {peer_text} | {ratio} | {note} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--no-peers", action="store_true", help="skip LangChain")
    args = parser.parse_args()
    apply_process_defaults()
    vectors, metadatas, ids = corpus(args.count)
    documents = [Document(f"text {i}", m) for i, m in enumerate(metadatas)]
    memory = InMemoryVectorStore()
    memory.add_vectors(vectors, documents, ids=ids)
    flat = FAISS(distance_strategy="COSINE")
    flat.add_vectors(vectors, documents, ids=ids)
    query = vectors[12345 % args.count]
    peers: dict[str, Any] = {}
    if not args.no_peers:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from langchain_community.vectorstores import FAISS as LCFAISS
            from langchain_community.vectorstores.utils import DistanceStrategy as LCDistance
            from langchain_core.documents import Document as LCDocument
            from langchain_core.embeddings import FakeEmbeddings
            from langchain_core.vectorstores import InMemoryVectorStore as LCInMemory
        fake = FakeEmbeddings(size=DIM)
        pairs = [(f"text {i}", vectors[i]) for i in range(args.count)]
        peers["faiss"] = LCFAISS.from_embeddings(pairs, fake, metadatas=metadatas, ids=ids,
                                                 distance_strategy=LCDistance.MAX_INNER_PRODUCT)
        lc_memory = LCInMemory(fake)
        lc_memory.store = {i: {"id": i, "vector": vectors[n].tolist(), "text": f"text {n}", "metadata": metadatas[n]}
                           for n, i in enumerate(ids)}
        peers["memory"] = lc_memory
        peers["lc_document"] = LCDocument
    print(f"{args.count:,} documents x {DIM}, median of {args.repeats} runs\n")
    print("| measurement | ours | peer | ratio | note |\n|---|---|---|---|---|")
    for name, spec in FILTERS.items():
        expr, predicate = parse_filter(spec), compile_filter(spec)
        columns = memory._columns
        matches = columns.labels_matching(expr).size
        ours = median_time(lambda: columns.labels_matching(expr), args.repeats)
        python = median_time(lambda: columns.allowed_labels(predicate, False), max(10, args.repeats // 10))
        row(f"{name}: the filter alone ({matches:,} match)", ours, python, "Python predicate per document")
        ours = median_time(lambda: memory.similarity_search_by_vector(query, k=10, filter=spec), args.repeats)
        peer = found = None
        if peers:
            lc_filter = lambda d: predicate(d.metadata)  # noqa: E731  (its only filter kind)
            peer = median_time(lambda: peers["memory"].similarity_search_by_vector(query.tolist(), k=10, filter=lc_filter),
                               max(5, args.repeats // 40))
        row(f"{name}: InMemoryVectorStore search, k=10", ours, peer, "LangChain InMemory (callable)")
        ours = median_time(lambda: flat.similarity_search_by_vector(query, k=10, filter=spec), args.repeats)
        count = len(flat.similarity_search_by_vector(query, k=10, filter=spec))
        if peers:
            peer = median_time(lambda: peers["faiss"].similarity_search_by_vector(query, k=10, filter=spec),
                               max(10, args.repeats // 10))
            found = len(peers["faiss"].similarity_search_by_vector(query, k=10, filter=spec))
        note = f"ours {count} results" + (f", LangChain {found} (fetch_k=20 then filtered)" if found is not None else "")
        row(f"{name}: FAISS flat search, k=10", ours, peer, "LangChain FAISS (dict)", note)
        if peers:  # the same 10 results from LangChain need fetch_k = every document
            peer = median_time(lambda: peers["faiss"].similarity_search_by_vector(
                query, k=10, filter=spec, fetch_k=args.count), max(3, args.repeats // 40))
            found = len(peers["faiss"].similarity_search_by_vector(query, k=10, filter=spec, fetch_k=args.count))
            row(f"{name}: FAISS flat search, k=10, LangChain fetch_k={args.count:,}", ours, peer,
                "LangChain FAISS (dict)", f"LangChain {found} results")
    unfiltered = median_time(lambda: flat.similarity_search_by_vector(query, k=10), max(10, args.repeats // 10))
    print(f"\nunfiltered FAISS flat search, k=10: {fmt_time(unfiltered)}")


if __name__ == "__main__":
    main()
