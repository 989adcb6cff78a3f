"""Per-step cost of two checkouts of ``rag.graph`` side by side: before and after a change.

Runs the loop of ``graph_steps.py`` (``a`` increments ``n`` and writes a note, ``b`` appends
to a reduced list, a conditional edge loops) in a fresh subprocess per sample, alternating
the two trees round by round so load changes on a shared machine hit both alike; reports
microseconds per node step (median of ``--rounds``, best in brackets) and after/before.

    git worktree add /tmp/before HEAD~1      # or: git archive <commit> rag | tar -x -C /tmp/before
    python benchmarks/graph_steps_ab.py --before /tmp/before --after . [--steps 200] [--rounds 9]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

# One sample: µs per node step for each saver, on the tree first on sys.path. The loop is
# written out again here, not imported from graph_steps.py: that script puts this repository
# on sys.path, and the sample must load only the tree under test.
_SAMPLE = r"""
import json, operator, sqlite3, sys, tempfile, time
from pathlib import Path
from typing import Annotated, TypedDict
import rag.graph as graph_lib
from rag.graph.checkpoint import InMemorySaver, SqliteSaver

class LoopState(TypedDict):
    n: int
    note: str
    recent: Annotated[list, operator.add]

steps = int(sys.argv[1])
builder = graph_lib.StateGraph(LoopState)
builder.add_node("a", lambda s: {"n": s["n"] + 1, "note": f"step {s['n']} of the loop"})
builder.add_node("b", lambda s: {"recent": [s["n"]]})
builder.add_edge(graph_lib.START, "a")
builder.add_conditional_edges("a", lambda s: "b" if s["n"] * 2 < steps else graph_lib.END, ["b", graph_lib.END])
builder.add_edge("b", "a")
folder = Path(tempfile.mkdtemp(prefix="graph-ab-"))

def sqlite(synchronous):
    saver = SqliteSaver.from_conn_string(str(folder / f"{time.perf_counter_ns()}.db"))
    saver.conn.execute(f"PRAGMA synchronous={synchronous}")
    return saver

makers = {"no checkpointer": lambda: None, "in-memory saver": InMemorySaver,
          "SQLite, NORMAL": lambda: sqlite("NORMAL"), "SQLite, FULL": lambda: sqlite("FULL")}
out = {}
for label, make in makers.items():
    best = None
    for attempt in range(2):  # the first warms up imports and caches
        app = builder.compile(checkpointer=make())
        config = {"configurable": {"thread_id": "t"}, "recursion_limit": steps + 10}
        start = time.perf_counter()
        app.invoke({"n": 0, "note": "", "recent": []}, config)
        best = (time.perf_counter() - start) / steps * 1e6
    out[label] = best
print(json.dumps(out))
"""


def sample(tree: Path, steps: int) -> dict[str, float]:
    result = subprocess.run([sys.executable, "-c", _SAMPLE, str(steps)], capture_output=True, text=True,
                            env={"PYTHONPATH": str(tree.resolve()), "PATH": "/usr/bin:/bin"}, check=True)
    return json.loads(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="a checkout (folder holding rag/) before the change")
    parser.add_argument("--after", type=Path, required=True, help="a checkout after the change")
    parser.add_argument("--steps", type=int, default=200, help="node steps per timed run")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    for tree in (args.before, args.after):
        if not (tree / "rag" / "graph").is_dir():
            parser.error(f"{tree} holds no rag/graph package: pass the folder that contains rag/")
    samples: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    for round_number in range(args.rounds):
        order = [("before", args.before), ("after", args.after)]
        for name, tree in order if round_number % 2 == 0 else reversed(order):
            for label, value in sample(tree, args.steps).items():
                samples[name].setdefault(label, []).append(value)
    print(f"µs per node step, {args.steps} steps per run, median of {args.rounds} alternating rounds (best)")
    print(f"{'checkpointer':<18}{'before':>16}{'after':>16}{'after/before':>14}")
    for label in samples["before"]:
        before, after = samples["before"][label], samples["after"][label]
        ratio = statistics.median(after) / statistics.median(before)
        print(f"{label:<18}{statistics.median(before):>9.1f} ({min(before):>4.0f}){statistics.median(after):>9.1f} "
              f"({min(after):>4.0f}){ratio:>14.3f}")


if __name__ == "__main__":
    main()
