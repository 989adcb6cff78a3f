"""Adding many documents with the cyclic garbage collector paused (the old stores) and on (now).

    python benchmarks/gc_add.py                 # 100,000 documents, median of 3 runs
    python benchmarks/gc_add.py --count 20000   # a smoke run

The stores used to switch the process-wide collector off around bulk adds. They no longer
do: another thread of a server sharing the store would have run without cycle collection
too, and a library must not change process state. This measures what that costs. "paused"
wraps each call in ``gc.disable()`` / ``gc.enable()`` here, in the benchmark, which is
what the old code did inside the store; "on" is the call as it is. Inputs (384-d random
unit float32 vectors, texts, metadata dicts, and for ``add_vectors`` the Documents) are
built once, before timing, and kept alive, as a caller's would be. Runs alternate between
the two modes so that load changes hit both alike; each figure is the median of
``--repeat`` runs, a fresh store each run. Ratio = on / paused (> 1: the collector costs
that much).

The collection the old code deferred (its first young-generation pass after re-enabling
walks every object the add created) runs after the timed call, so "paused" is, if
anything, flattered.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rag.process_defaults import apply_process_defaults  # noqa: E402

DIM = 384


def unit_vectors(count: int, seed: int) -> Any:
    import numpy as np

    rows = np.random.default_rng(seed).standard_normal((count, DIM), dtype=np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def make_inputs(count: int) -> dict[str, Any]:
    """Chunk-like inputs: ~90-character texts, metadata as a splitter leaves it."""
    from rag.documents import Document

    vectors = unit_vectors(count, 1)
    texts = [f"chunk {i}: retrieval augmented generation answers questions from documents split into chunks"
             for i in range(count)]
    metadatas = [{"source": f"docs/file{i // 20}.md", "start_index": (i % 20) * 800} for i in range(count)]
    return {
        "vectors": vectors,
        "pairs": list(zip(texts, vectors)),  # rows of one array, as a caller's embeddings would be
        "metadatas": metadatas,
        "documents": [Document(text, metadata) for text, metadata in zip(texts, metadatas)],
    }


def timed(call: Callable[[], Any], paused: bool) -> float:
    """Wall time of one ``call``; ``paused``: with the collector off, as the old stores did."""
    gc.collect()
    start = time.perf_counter()
    if paused:
        gc.disable()
    try:
        result = call()
    finally:
        if paused:
            gc.enable()
    elapsed = time.perf_counter() - start
    del result
    return elapsed


def cases(inputs: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    from rag.embeddings import DeterministicFakeEmbedding
    from stores import FAISS, InMemoryVectorStore

    embedding = DeterministicFakeEmbedding(size=DIM)  # never called: vectors are given

    def add_vectors(store_class: type) -> Callable[[], Any]:
        def run() -> Any:
            store = store_class(embedding=embedding)
            store.add_vectors(inputs["vectors"], inputs["documents"])
            return store
        return run

    def add_embeddings(store_class: type) -> Callable[[], Any]:
        def run() -> Any:
            store = store_class(embedding=embedding)
            store.add_embeddings(inputs["pairs"], inputs["metadatas"])
            return store
        return run

    return {
        "FAISS.add_vectors": add_vectors(FAISS),
        "FAISS.add_embeddings": add_embeddings(FAISS),
        "InMemoryVectorStore.add_vectors": add_vectors(InMemoryVectorStore),
        "InMemoryVectorStore.add_embeddings": add_embeddings(InMemoryVectorStore),
    }


def main(argv: list[str] | None = None) -> int:
    apply_process_defaults()  # before faiss loads (its OpenMP reads OMP_WAIT_POLICY once)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=100_000, help="documents per add (default 100,000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per mode; the median is reported (default 3)")
    args = parser.parse_args(argv)

    import faiss
    import numpy as np

    print(f"Python {sys.version.split()[0]}, faiss {faiss.__version__}, numpy {np.__version__}, "
          f"{os.cpu_count()} cores, gc thresholds {gc.get_threshold()}")
    print(f"{args.count:,} documents x {DIM} dimensions, median of {args.repeat} runs\n")
    inputs = make_inputs(args.count)
    print("| call | gc paused (before) | gc on (after) | on / paused |")
    print("|---|---|---|---|")
    for name, call in cases(inputs).items():
        call()  # warm-up: first faiss use, allocator
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(args.repeat):
            for paused in (True, False):
                times[paused].append(timed(call, paused))
        before, after = statistics.median(times[True]), statistics.median(times[False])
        print(f"| {name} | {before * 1e3:,.0f} ms | {after * 1e3:,.0f} ms | {after / before:.2f}x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
