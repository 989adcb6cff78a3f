"""Per-task overhead of the functional API (``@entrypoint`` + ``@task``) against LangGraph 1.2.

The same workflows in both libraries, each task a trivial function (``x + 1``), so what is
timed is the machinery: starting a task, its future, recording its result, streaming it.

- ``sequential``: the entrypoint calls ``--tasks`` tasks one after another (``.result()`` each);
- ``fan-out``: it starts them all, then waits for each (they may run concurrently);
- ``async``: an async entrypoint awaiting async tasks one after another (``ainvoke``);
- each with no checkpointer and with the in-memory saver (a thread per run);
- ``replay``: a run pauses at ``interrupt()`` after its tasks; the time of the resume,
  where every finished task is replayed from the checkpoint instead of run.

Reported: microseconds per task, ``(run with N tasks - run with none) / N``, median of
``--repeats`` alternating rounds, and the ratio LangGraph / ours (above 1: we are faster).
LangGraph runs in its own virtualenv (``--peer-python``, default ``/tmp/lgpeer/bin/python``:
``python -m venv /tmp/lgpeer && /tmp/lgpeer/bin/pip install langgraph==1.2.22``), this
script being the worker on both sides (``--worker ours|langgraph``), so neither library is
imported into the other's process. Results go to ``benchmarks/results/graph_functional.json``.

    python benchmarks/graph_functional.py [--tasks 200] [--repeats 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from _timing import alternating_rounds, peer_version  # noqa: E402  (the script runs from any folder)
CASES = ("sequential", "fan-out", "async", "sequential, in-memory saver", "fan-out, in-memory saver",
         "async, in-memory saver", "replay on resume")


def _library(name: str) -> tuple[Any, Any, Any, Any, Any]:
    if name == "ours":
        sys.path.insert(0, str(ROOT))
        from rag.graph.checkpoint.memory import InMemorySaver
        from rag.graph.func import entrypoint, task
        from rag.graph.types import Command, interrupt
    else:
        from langgraph.checkpoint.memory import InMemorySaver  # type: ignore[no-redef]
        from langgraph.func import entrypoint, task  # type: ignore[no-redef]
        from langgraph.types import Command, interrupt  # type: ignore[no-redef]
    return entrypoint, task, InMemorySaver, Command, interrupt


def _workflows(name: str) -> dict[str, Callable[[int], None]]:
    """Case -> ``run(n)``: one run of the case's workflow with ``n`` tasks."""
    entrypoint, task, InMemorySaver, Command, interrupt = _library(name)

    @task
    def step(x: int) -> int:
        return x + 1

    @task
    async def astep(x: int) -> int:
        return x + 1

    def sequential(n: int) -> int:
        value = 0
        for _ in range(n):
            value = step(value).result()
        return value

    def fan_out(n: int) -> int:
        futures = [step(i) for i in range(n)]
        return sum(f.result() for f in futures)

    async def in_turn(n: int) -> int:
        value = 0
        for _ in range(n):
            value = await astep(value)
        return value

    def paused(n: int) -> list:
        return [sequential(n), interrupt("go on?")]

    runs: dict[str, Callable[[int], None]] = {}
    for label, saver in (("", None), (", in-memory saver", InMemorySaver())):
        graphs = {"sequential": entrypoint(checkpointer=saver)(sequential),
                  "fan-out": entrypoint(checkpointer=saver)(fan_out),
                  "async": entrypoint(checkpointer=saver)(in_turn)}
        for case, graph in graphs.items():
            def run(n: int, graph: Any = graph, case: str = case) -> None:
                config = {"configurable": {"thread_id": uuid.uuid4().hex}}
                if case == "async":
                    assert asyncio.run(graph.ainvoke(n, config)) == n
                else:
                    graph.invoke(n, config)
            runs[case + label] = run
    replayed = entrypoint(checkpointer=InMemorySaver())(paused)

    def replay(n: int) -> float:
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        replayed.invoke(n, config)
        start = time.perf_counter()
        assert replayed.invoke(Command(resume="yes"), config) == [n, "yes"]
        return time.perf_counter() - start

    runs["replay on resume"] = replay  # type: ignore[assignment]
    return runs


def worker(name: str, tasks: int, rounds: int) -> dict[str, float]:
    """Microseconds per task of each case (best of ``rounds``), printed as JSON."""
    runs = _workflows(name)
    found = {}
    for case in CASES:
        run = runs[case]

        def timed(n: int) -> float:
            start = time.perf_counter()
            inner = run(n)
            return inner if isinstance(inner, float) else time.perf_counter() - start

        timed(tasks), timed(0)  # warm-up: imports, first-call caches, thread pools
        with_tasks = min(timed(tasks) for _ in range(rounds))
        without = min(timed(0) for _ in range(rounds))
        found[case] = max(0.0, with_tasks - without) / tasks * 1e6
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=200, help="tasks per timed run")
    parser.add_argument("--repeats", type=int, default=7, help="alternating rounds (a fresh process each)")
    parser.add_argument("--rounds", type=int, default=5, help="timed runs per case in a round (best kept)")
    parser.add_argument("--peer-python", default="/tmp/lgpeer/bin/python")
    parser.add_argument("--worker", choices=["ours", "langgraph"], help=argparse.SUPPRESS)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "graph_functional.json"))
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.tasks, args.rounds)))
        return

    def measure(which: str) -> dict[str, float]:
        python = sys.executable if which == "ours" else args.peer_python
        command = [python, __file__, "--worker", which, "--tasks", str(args.tasks), "--rounds", str(args.rounds)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        return json.loads(done.stdout.strip().splitlines()[-1])

    version = peer_version(args.peer_python, "langgraph")
    samples = alternating_rounds(measure, ("ours", "langgraph"), CASES, args.repeats)
    print(f"µs per task (trivial task, {args.tasks} per run), median of {args.repeats} alternating rounds; "
          f"LangGraph {version}")
    print(f"{'case':<30}{'ours':>10}{'LangGraph':>12}{'ratio':>9}")
    rows = {}
    for case in CASES:
        ours, peer = statistics.median(samples["ours"][case]), statistics.median(samples["langgraph"][case])
        rows[case] = {"ours_us_per_task": round(ours, 2), "langgraph_us_per_task": round(peer, 2),
                      "ratio_langgraph_over_ours": round(peer / ours, 2) if ours else None}
        print(f"{case:<30}{ours:>10.1f}{peer:>12.1f}{peer / ours if ours else float('nan'):>8.2f}x")
    result = {"benchmark": "graph_functional", "langgraph_version": version, "tasks_per_run": args.tasks,
              "repeats": args.repeats, "rounds": args.rounds, "python": sys.version.split()[0],
              "command": "python benchmarks/graph_functional.py " + " ".join(sys.argv[1:]), "cases": rows}
    out = Path(args.out)
    tmp = out.with_suffix(".json.tmp")  # written whole, then renamed: never a half-written file
    tmp.write_text(json.dumps(result, indent=2) + "\n")
    tmp.replace(out)
    print(f"written {out}")


if __name__ == "__main__":
    main()
