"""Long-term memory store: ``put`` and semantic ``search`` throughput against LangGraph's
``InMemoryStore`` and ``SqliteStore`` (langgraph-checkpoint-sqlite, sqlite-vec), with the
same embeddings, and search recall@10 against a brute-force numpy cosine scan.

LangGraph's SQLite store needs SQLite extension loading (sqlite-vec); where the peer's
Python lacks it, its side uses ``pysqlite3-binary`` (a newer SQLite: the version of each is
recorded). Both libraries get one embedding function: a lookup of precomputed vectors (random
normal, or the local MiniLM model's with ``--embeddings minilm``), so the store is what is
measured, not the model. Each side runs in its own subprocess (LangGraph from its own
virtualenv, ``--peer-python``; it is never installed beside ours), rounds alternate
ours / LangGraph so load changes hit both, and the best round of each is kept.

    OMP_WAIT_POLICY=PASSIVE python benchmarks/store.py [--items 10000] [--queries 200] [--dims 128] [--rounds 3]
        [--embeddings fake|minilm] [--peer-python /tmp/lgpeer/bin/python]

Writes ``benchmarks/results/store.json`` (or ``store_minilm.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
NAMESPACE = ("bench", "memories")


def _lookup(table_path: str) -> tuple[Any, list[str], list[str]]:
    data = np.load(table_path)
    texts, queries = [str(t) for t in data["texts"]], [str(q) for q in data["queries"]]
    vectors = dict(zip(texts + queries, np.concatenate([data["vectors"], data["query_vectors"]]).tolist()))

    def embed(batch: list[str]) -> list[list[float]]:  # the same cheap function for both stores
        return [vectors[text] for text in batch]

    return embed, texts, queries


def run_side(side: str, kind: str, table_path: str, folder: str) -> dict[str, Any]:
    """Time ``len(texts)`` puts then one search per query in a fresh store; the keys found."""
    embed, texts, queries = _lookup(table_path)
    dims = len(embed([texts[0]])[0])
    # "text_fields" is how LangGraph's SQLite store spells "fields" (ours reads either)
    index = {"dims": dims, "embed": embed, "fields": ["text"], "text_fields": ["text"]}
    if side == "ours":
        sys.path.insert(0, str(ROOT))
        from rag.graph.store.memory import InMemoryStore
        from rag.graph.store.sqlite import SqliteStore
    else:
        import sqlite3

        if not hasattr(sqlite3.Connection, "enable_load_extension"):
            # LangGraph's SqliteStore loads the sqlite-vec extension, which a Python built
            # without extension loading cannot: use pysqlite3-binary's sqlite3 there.
            import pysqlite3  # type: ignore[import-not-found]

            sys.modules["sqlite3"] = pysqlite3
        from langgraph.store.memory import InMemoryStore
        from langgraph.store.sqlite import SqliteStore
    path = os.path.join(folder, f"{side}-{kind}-{time.perf_counter_ns()}.db")
    if kind == "memory":
        store, closer = InMemoryStore(index=index), None
    else:
        closer = SqliteStore.from_conn_string(path, index=index)
        store = closer.__enter__()
        store.setup()
    try:
        start = time.perf_counter()
        for i, text in enumerate(texts):
            store.put(NAMESPACE, str(i), {"text": text, "n": i})
        put_seconds = time.perf_counter() - start
        start = time.perf_counter()
        found = [[item.key for item in store.search(NAMESPACE, query=query, limit=10)] for query in queries]
        search_seconds = time.perf_counter() - start
    finally:
        if closer is not None:
            closer.__exit__(None, None, None)
    return {"puts_per_s": len(texts) / put_seconds, "searches_per_s": len(queries) / search_seconds, "found": found,
            "sqlite_version": sys.modules["sqlite3"].sqlite_version if kind == "sqlite" else None}


def _spawn(python: str, side: str, kind: str, table_path: str, folder: str) -> dict[str, Any]:
    out = subprocess.run([python, __file__, "--side", side, "--kind", kind, "--table", table_path, "--folder", folder],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{side} {kind} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def make_table(items: int, queries: int, dims: int, embeddings: str, path: str) -> tuple[np.ndarray, np.ndarray]:
    texts = np.array([f"memory {i}: the user mentioned topic {i % 97} on day {i % 31}" for i in range(items)])
    asked = np.array([f"what did the user say about topic {j % 97}, day {j % 31}?" for j in range(queries)])
    if embeddings == "minilm":
        sys.path.insert(0, str(ROOT))
        from rag.embeddings import LocalEmbeddings

        model = LocalEmbeddings()
        vectors = model.embed_documents_array(list(texts))
        query_vectors = model.embed_documents_array(list(asked))
    else:
        rng = np.random.default_rng(0)
        vectors = rng.normal(size=(items, dims)).astype(np.float32)
        query_vectors = rng.normal(size=(queries, dims)).astype(np.float32)
    np.savez(path, texts=texts, queries=asked, vectors=vectors, query_vectors=query_vectors)
    return vectors, query_vectors


def brute_force_top10(vectors: np.ndarray, query_vectors: np.ndarray) -> list[list[str]]:
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    scores = (query_vectors / np.linalg.norm(query_vectors, axis=1, keepdims=True)) @ unit.T
    return [[str(i) for i in np.argsort(-row, kind="stable")[:10]] for row in scores]


def recall(found: list[list[str]], truth: list[list[str]]) -> float:
    return float(np.mean([len(set(f) & set(t)) / len(t) for f, t in zip(found, truth)]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--dims", type=int, default=128, help="vector length of the fake embeddings")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--embeddings", choices=["fake", "minilm"], default="fake")
    parser.add_argument("--peer-python", default="/tmp/lgpeer/bin/python",
                        help="a Python with langgraph==1.2.22 and langgraph-checkpoint-sqlite==3.1.2")
    parser.add_argument("--side", help=argparse.SUPPRESS)
    parser.add_argument("--kind", help=argparse.SUPPRESS)
    parser.add_argument("--table", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:  # a measuring subprocess
        print(json.dumps(run_side(args.side, args.kind, args.table, args.folder)))
        return
    with tempfile.TemporaryDirectory() as folder:
        table = os.path.join(folder, "table.npz")
        vectors, query_vectors = make_table(args.items, args.queries, args.dims, args.embeddings, table)
        truth = brute_force_top10(vectors, query_vectors)
        best: dict[tuple[str, str], dict[str, Any]] = {}
        for round_number in range(args.rounds):
            for kind in ("memory", "sqlite"):
                for side, python in (("ours", sys.executable), ("langgraph", args.peer_python)):
                    result = _spawn(python, side, kind, table, folder)
                    kept = best.setdefault((side, kind), {"puts_per_s": 0.0, "searches_per_s": 0.0})
                    kept["puts_per_s"] = max(kept["puts_per_s"], result["puts_per_s"])
                    kept["searches_per_s"] = max(kept["searches_per_s"], result["searches_per_s"])
                    kept["recall_at_10"] = recall(result["found"], truth)
                    kept["sqlite_version"] = result["sqlite_version"]
                    print(f"round {round_number + 1} {side:9} {kind:6} puts/s {result['puts_per_s']:9.0f} "
                          f"searches/s {result['searches_per_s']:8.1f} recall@10 {kept['recall_at_10']:.3f}",
                          flush=True)
    report: dict[str, Any] = {"items": args.items, "queries": args.queries, "embeddings": args.embeddings,
                              "dims": int(vectors.shape[1]), "rounds": args.rounds, "stores": {}}
    for kind in ("memory", "sqlite"):
        ours, theirs = best[("ours", kind)], best[("langgraph", kind)]
        report["stores"][kind] = {
            "ours": ours, "langgraph": theirs,
            "put_speedup": ours["puts_per_s"] / theirs["puts_per_s"],
            "search_speedup": ours["searches_per_s"] / theirs["searches_per_s"],
        }
        print(f"{kind:6}: put x{report['stores'][kind]['put_speedup']:.2f}, search "
              f"x{report['stores'][kind]['search_speedup']:.2f} (ours / LangGraph, above 1: ours faster); "
              f"recall@10 ours {ours['recall_at_10']:.3f}, LangGraph {theirs['recall_at_10']:.3f}")
    name = "store.json" if args.embeddings == "fake" else "store_minilm.json"
    out = ROOT / "benchmarks" / "results" / name
    out.parent.mkdir(exist_ok=True)
    temporary = out.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(report, indent=2) + "\n")
    temporary.replace(out)  # never a half-written results file
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
