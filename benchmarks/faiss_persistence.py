"""FAISS save and load: ours against langchain-community's FAISS, one process per measurement.

    python benchmarks/faiss_persistence.py                       # 100k and 1M vectors, 3 rounds
    python benchmarks/faiss_persistence.py --sizes 100000 --rounds 1   # a smoke run

Needs the ``bench`` extra (langchain-core, langchain-community). Both sides store the same
documents (a ~130-character text and two metadata fields each) with the same 384-d
float32 vectors in a flat L2 index. Every save and every load runs in a fresh subprocess,
ours and the peer's alternating, so that each peak RSS is that operation's alone:

- save: the worker builds the store (not timed), resets the kernel's peak-RSS mark
  (``/proc/self/clear_refs``), then times ``save_local``; peak = the highest RSS during it;
- load: the worker imports everything, resets the mark, then times ``load_local``, then
  one search (``k=4``, which reads every vector: a memory-mapped index pages in here).

Files are read from the page cache on both sides (each load follows a save of the same
folder). Prints each round, then the best time and the highest peak of each side, and
ratios (peer / ours: > 1 means we are faster or smaller).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the repository, not benchmarks/

DIM = 384


def _status(field: str) -> float:
    """A /proc/self/status field in MiB (VmRSS, VmHWM)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as handle:  # "5" resets VmHWM to the current RSS
        handle.write("5")


def corpus(count: int) -> tuple[list[str], list[dict], np.ndarray]:
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((count, DIM), dtype=np.float32)
    texts = [f"passage {i}: the quick brown fox jumps over the lazy dog while the index keeps every "
             f"chunk of text close at hand for search {i % 977}" for i in range(count)]
    metadatas = [{"source": f"doc-{i // 20}.html", "start_index": (i % 20) * 180} for i in range(count)]
    return texts, metadatas, vectors


def worker(side: str, operation: str, count: int, folder: Path) -> dict:
    warnings.filterwarnings("ignore")
    if side == "ours":
        from rag.embeddings import DeterministicFakeEmbedding
        from rag.process_defaults import apply_process_defaults
        from stores import FAISS

        apply_process_defaults()
        embedding = DeterministicFakeEmbedding(size=DIM)
        load = lambda: FAISS.load_local(folder, embedding)  # noqa: E731
    else:
        from langchain_community.vectorstores import FAISS
        from langchain_core.embeddings import FakeEmbeddings

        embedding = FakeEmbeddings(size=DIM)
        load = lambda: FAISS.load_local(str(folder), embedding, allow_dangerous_deserialization=True)  # noqa: E731
    import faiss  # noqa: F401  (loaded on both sides before the clock starts)

    result: dict = {"side": side, "operation": operation, "count": count}
    if operation == "save":
        texts, metadatas, vectors = corpus(count)
        store = FAISS.from_embeddings(list(zip(texts, vectors)), embedding, metadatas=metadatas)
        del texts, metadatas, vectors
        result["rss_before_mib"] = _status("VmRSS")
        _reset_peak()
        start = time.perf_counter()
        store.save_local(str(folder))
        result["seconds"] = time.perf_counter() - start
    else:
        query = np.random.default_rng(1).standard_normal(DIM).astype(np.float32)
        result["rss_before_mib"] = _status("VmRSS")
        _reset_peak()
        start = time.perf_counter()
        store = load()
        result["seconds"] = time.perf_counter() - start
        result["rss_after_mib"] = _status("VmRSS")
        start = time.perf_counter()
        found = store.similarity_search_by_vector(query.tolist() if side == "peer" else query, k=4)
        result["first_search_seconds"] = time.perf_counter() - start
        result["rss_after_search_mib"] = _status("VmRSS")
        assert len(found) == 4
    result["peak_mib"] = _status("VmHWM")
    result["bytes_on_disk"] = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    return result


def run(side: str, operation: str, count: int, folder: Path) -> dict:
    completed = subprocess.run(
        [sys.executable, __file__, "--worker", side, operation, str(count), str(folder)],
        capture_output=True, text=True, check=False,
    )
    if completed.returncode != 0:
        raise SystemExit(f"{side} {operation} failed:\n{completed.stderr}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", nargs=4, metavar=("SIDE", "OPERATION", "COUNT", "FOLDER"))
    parser.add_argument("--json", action="store_true", help="print every measurement as JSON lines too")
    args = parser.parse_args()
    if args.worker:
        side, operation, count, folder = args.worker
        print(json.dumps(worker(side, operation, int(count), Path(folder))))
        return
    print(f"load average at start: {os.getloadavg()}")
    root = Path(tempfile.mkdtemp(prefix="faiss-persistence-"))
    try:
        for count in args.sizes:
            results: list[dict] = []
            for round_number in range(args.rounds):
                for operation in ("save", "load"):
                    sides = ("ours", "peer") if round_number % 2 == 0 else ("peer", "ours")
                    for side in sides:
                        outcome = run(side, operation, count, root / f"{side}-{count}")
                        results.append(outcome)
                        if args.json:
                            print(json.dumps(outcome))
                        extra = (f", search {outcome['first_search_seconds']:.3f} s, RSS after load "
                                 f"{outcome['rss_after_mib']:.0f} MiB, after search {outcome['rss_after_search_mib']:.0f} MiB"
                                 if operation == "load" else "")
                        print(f"{count:>9,} round {round_number + 1} {side:4} {operation}: {outcome['seconds']:.3f} s, "
                              f"peak {outcome['peak_mib']:.0f} MiB (from {outcome['rss_before_mib']:.0f}){extra}",
                              flush=True)
            summarise(count, results)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"load average at end: {os.getloadavg()}")


def summarise(count: int, results: list[dict]) -> None:
    print(f"\n{count:,} x {DIM} vectors (best time, highest peak RSS over the rounds):")
    print("| operation | ours | peer | ratio (peer / ours) | peak RSS ours | peak RSS peer | ratio |")
    print("|---|---|---|---|---|---|---|")
    for operation in ("save", "load"):
        ours = [r for r in results if r["side"] == "ours" and r["operation"] == operation]
        peer = [r for r in results if r["side"] == "peer" and r["operation"] == operation]
        best_ours, best_peer = min(r["seconds"] for r in ours), min(r["seconds"] for r in peer)
        peak_ours, peak_peer = max(r["peak_mib"] for r in ours), max(r["peak_mib"] for r in peer)
        print(f"| {operation} | {best_ours:.2f} s | {best_peer:.2f} s | {best_peer / best_ours:.2f}x | "
              f"{peak_ours:,.0f} MiB | {peak_peer:,.0f} MiB | {peak_peer / peak_ours:.2f}x |")
    for side in ("ours", "peer"):
        loads = [r for r in results if r["side"] == side and r["operation"] == "load"]
        print(f"{side}: first search after load {min(r['first_search_seconds'] for r in loads):.3f} s, "
              f"RSS after it {max(r['rss_after_search_mib'] for r in loads):,.0f} MiB, "
              f"on disk {loads[-1]['bytes_on_disk'] / 2**20:,.0f} MiB")
    print()


if __name__ == "__main__":
    main()
