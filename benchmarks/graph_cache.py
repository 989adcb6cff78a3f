"""Node caching and runtime injection against LangGraph 1.2: what a run costs per invoke.

The same one-node graph in both libraries (state: an int and a 200-character string; the
node adds one), invoked ``--invokes`` times per timed run:

- ``plain``: no cache, the node declares only the state (the baseline);
- ``runtime injected``: the node also declares ``runtime`` and reads ``runtime.context``
  (``invoke(..., context=...)``);
- ``cache hit, memory`` / ``cache hit, sqlite``: ``cache_policy=CachePolicy()`` with
  ``InMemoryCache`` / ``SqliteCache`` on a file, every invoke with the same input (all hits
  after the first), so the node never runs;
- ``cache miss, memory`` / ``cache miss, sqlite``: a new input every invoke, so each one
  looks up, runs the node and stores its result.

Reported: microseconds per invoke (best of ``--rounds`` in a round), median of ``--repeats``
alternating rounds (a fresh process each), and the ratio LangGraph / ours (above 1: we
are faster). LangGraph runs in its own virtualenv (``--peer-python``, default
``/tmp/lgpeer/bin/python``), this script being the worker on both sides. Results go to
``benchmarks/results/graph_cache.json``.

    python benchmarks/graph_cache.py [--invokes 300] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TypedDict

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from _timing import alternating_rounds, peer_version  # noqa: E402  (the script runs from any folder)
CASES = ("plain", "runtime injected", "cache hit, memory", "cache hit, sqlite", "cache miss, memory",
         "cache miss, sqlite")


class State(TypedDict):
    n: int
    text: str


@dataclass
class Ctx:
    step: int


def _library(name: str) -> dict[str, Any]:
    if name == "ours":
        sys.path.insert(0, str(ROOT))
        from rag.graph import START, StateGraph
        from rag.graph.cache import InMemoryCache, SqliteCache
        from rag.graph.runtime import Runtime
        from rag.graph.types import CachePolicy
    else:
        from langgraph.cache.memory import InMemoryCache  # type: ignore[no-redef]
        from langgraph.cache.sqlite import SqliteCache  # type: ignore[no-redef]
        from langgraph.graph import START, StateGraph  # type: ignore[no-redef]
        from langgraph.runtime import Runtime  # type: ignore[no-redef]
        from langgraph.types import CachePolicy  # type: ignore[no-redef]
    return {"StateGraph": StateGraph, "START": START, "InMemoryCache": InMemoryCache, "SqliteCache": SqliteCache,
            "Runtime": Runtime, "CachePolicy": CachePolicy}


def _runs(name: str, folder: str) -> dict[str, Callable[[int], None]]:
    """Case -> ``run(k)``: ``k`` invokes of the case's graph."""
    lib = _library(name)
    StateGraph, START = lib["StateGraph"], lib["START"]

    def add(state: State) -> dict:
        return {"n": state["n"] + 1}

    def add_with_runtime(state: State, runtime: lib["Runtime"]) -> dict:  # type: ignore[valid-type]
        return {"n": state["n"] + runtime.context.step}

    def graph(node: Callable[..., Any], **compile_args: Any) -> Any:
        policy = lib["CachePolicy"]() if "cache" in compile_args else None
        builder = StateGraph(State, context_schema=Ctx) if node is add_with_runtime else StateGraph(State)
        return builder.add_node("add", node, cache_policy=policy).add_edge(START, "add").compile(**compile_args)

    text = "x" * 200
    caches = {"memory": lambda tag: lib["InMemoryCache"](),
              "sqlite": lambda tag: lib["SqliteCache"](path=str(Path(folder) / f"{name}-{tag}.sqlite"))}
    runs: dict[str, Callable[[int], None]] = {}
    plain, injected = graph(add), graph(add_with_runtime)
    runs["plain"] = lambda k: [plain.invoke({"n": 1, "text": text}) for _ in range(k)] and None
    runs["runtime injected"] = lambda k: [injected.invoke({"n": 1, "text": text}, context=Ctx(1))
                                          for _ in range(k)] and None
    counter = [0]
    for kind, make in caches.items():
        hit = graph(add, cache=make("hit"))
        miss = graph(add, cache=make("miss"))

        def hits(k: int, app: Any = hit) -> None:
            for _ in range(k):
                app.invoke({"n": 1, "text": text})

        def misses(k: int, app: Any = miss) -> None:
            for _ in range(k):
                counter[0] += 1
                app.invoke({"n": counter[0], "text": text})

        runs[f"cache hit, {kind}"] = hits
        runs[f"cache miss, {kind}"] = misses
    return runs


def worker(name: str, invokes: int, rounds: int) -> dict[str, float]:
    """Microseconds per invoke of each case (best of ``rounds``)."""
    with tempfile.TemporaryDirectory() as folder:
        runs = _runs(name, folder)
        found = {}
        for case in CASES:
            run = runs[case]
            run(5)  # warm-up: imports, first-call caches, the first (missing) cache entry
            best = float("inf")
            for _ in range(rounds):
                start = time.perf_counter()
                run(invokes)
                best = min(best, time.perf_counter() - start)
            found[case] = best / invokes * 1e6
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--invokes", type=int, default=300, help="invokes per timed run")
    parser.add_argument("--repeats", type=int, default=5, help="alternating rounds (a fresh process each)")
    parser.add_argument("--rounds", type=int, default=3, help="timed runs per case in a round (best kept)")
    parser.add_argument("--peer-python", default="/tmp/lgpeer/bin/python")
    parser.add_argument("--worker", choices=["ours", "langgraph"], help=argparse.SUPPRESS)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "graph_cache.json"))
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.invokes, args.rounds)))
        return

    def measure(which: str) -> dict[str, float]:
        python = sys.executable if which == "ours" else args.peer_python
        command = [python, __file__, "--worker", which, "--invokes", str(args.invokes), "--rounds", str(args.rounds)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        return json.loads(done.stdout.strip().splitlines()[-1])

    version = peer_version(args.peer_python, "langgraph")
    samples = alternating_rounds(measure, ("ours", "langgraph"), CASES, args.repeats)
    print(f"µs per invoke of a one-node graph ({args.invokes} per run), median of {args.repeats} alternating "
          f"rounds; LangGraph {version}")
    print(f"{'case':<22}{'ours':>10}{'LangGraph':>12}{'ratio':>9}")
    rows = {}
    for case in CASES:
        ours, peer = statistics.median(samples["ours"][case]), statistics.median(samples["langgraph"][case])
        rows[case] = {"ours_us_per_invoke": round(ours, 1), "langgraph_us_per_invoke": round(peer, 1),
                      "ratio_langgraph_over_ours": round(peer / ours, 2)}
        print(f"{case:<22}{ours:>10.1f}{peer:>12.1f}{peer / ours:>8.2f}x")
    result = {"benchmark": "graph_cache", "langgraph_version": version, "invokes_per_run": args.invokes,
              "repeats": args.repeats, "rounds": args.rounds, "python": sys.version.split()[0],
              "command": "python benchmarks/graph_cache.py " + " ".join(sys.argv[1:]), "cases": rows}
    out = Path(args.out)
    tmp = out.with_suffix(".json.tmp")  # written whole, then renamed: never a half-written file
    tmp.write_text(json.dumps(result, indent=2) + "\n")
    tmp.replace(out)
    print(f"written {out}")


if __name__ == "__main__":
    main()
