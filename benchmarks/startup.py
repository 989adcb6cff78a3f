"""`rag search` start-up: cold wall time and import time, code trees side by side.

    python benchmarks/startup.py --index IDX [--tree before=/path/to/old/checkout] [--runs 9]

Every run is a new process (``python -m rag search QUERY --index IDX``), so it pays
the imports, opening the index and loading the model, as a user's command does; the
files themselves are in the page cache after the first run (the same for every tree).
Trees alternate run by run so that load on the machine hits each alike. The current
checkout is always measured, as ``this``; ``--tree NAME=PATH`` adds others (an older
checkout, say) for before/after. Also reports, for each tree, ``python -X importtime``
of the same command: the total time spent importing and the heaviest top-level packages,
and which of bs4 / httpx / loaders / splitters it imported.

Prints the median and best wall time per tree, ratios to the first tree, and the median
CPU time of the process (user + system, every thread): on a busy machine the wall time
mostly measures the neighbours, the CPU time much less so.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

THIS = Path(__file__).resolve().parents[1]
WATCHED = ("bs4", "httpx", "loaders", "splitters", "onnxruntime", "faiss", "asyncio")


def command(index: Path, query: str) -> list[str]:
    return [sys.executable, "-m", "rag", "search", query, "--index", str(index)]


def environment(tree: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("PYTHONWARNINGS", None)
    return env


def wall_time(tree: Path, index: Path, query: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the child, all its threads)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command(index, query), env=environment(tree), cwd="/", capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"rag search failed with {tree}:\n{result.stderr}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_profile(tree: Path, index: Path, query: str) -> tuple[float, list[tuple[float, str]], list[str]]:
    """(seconds importing, heaviest top-level imports, watched packages imported)."""
    result = subprocess.run([sys.executable, "-X", "importtime", *command(index, query)[1:]], env=environment(tree),
                            cwd="/", capture_output=True, text=True)
    top: list[tuple[float, str]] = []
    names: set[str] = set()
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line or "cumulative" in line:
            continue
        _, cumulative, name = line.split("|")
        names.add(name.strip().split(".")[0])
        if not name.startswith("  "):  # depth 0: imported by the program itself
            top.append((int(cumulative) / 1e6, name.strip()))
    top.sort(reverse=True)
    return sum(seconds for seconds, _ in top), top[:8], sorted(n for n in WATCHED if n in names)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True, help="an index folder built by `rag index`")
    parser.add_argument("--query", default="how do I create an index concurrently")
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=PATH",
                        help="another checkout to measure (repeatable); listed first")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    trees = [(name, Path(path)) for name, _, path in (spec.partition("=") for spec in args.tree)]
    trees.append(("this", THIS))
    print(f"load average at start: {os.getloadavg()}")
    for tree_name, tree in trees:
        seconds, top, watched = import_profile(tree, args.index, args.query)
        heaviest = ", ".join(f"{name} {value * 1e3:.0f} ms" for value, name in top)
        print(f"{tree_name}: imports {seconds * 1e3:.0f} ms (top level: {heaviest}); imported {watched}")
    times: dict[str, list[float]] = {name: [] for name, _ in trees}
    cpu: dict[str, list[float]] = {name: [] for name, _ in trees}
    wall_time(THIS, args.index, args.query)  # warm the page cache once
    for run in range(args.runs):
        order = trees if run % 2 == 0 else trees[::-1]
        for tree_name, tree in order:
            wall, used = wall_time(tree, args.index, args.query)
            times[tree_name].append(wall)
            cpu[tree_name].append(used)
    first = statistics.median(times[trees[0][0]])
    print(f"\n`rag search` cold, {args.runs} runs each, index {args.index}:")
    print("| code | wall median | wall best | median vs first | CPU median (all threads) |")
    print("|---|---|---|---|---|")
    for tree_name, _ in trees:
        median = statistics.median(times[tree_name])
        print(f"| {tree_name} | {median:.3f} s | {min(times[tree_name]):.3f} s | {first / median:.2f}x | "
              f"{statistics.median(cpu[tree_name]):.3f} s |")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
