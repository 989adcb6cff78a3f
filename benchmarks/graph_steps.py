"""Per-step overhead of a state graph against LangGraph 1.2, and SQLite checkpoint size.

The same two-node loop in both libraries (``a`` increments ``n`` and writes a short note,
``b`` appends ``n`` to a list reduced with ``operator.add``, which grows as a message
history does; a conditional edge loops until the step count is reached), run with no checkpointer, with the in-memory saver and with a
SQLite file (with SQLite's default ``synchronous=FULL``, an fsync per commit, and with
``synchronous=NORMAL``, which shows the libraries' own overhead rather than the disk's).
Reports microseconds per node step (median of ``--repeats`` alternating runs) and the
ratio LangGraph / ours (above 1: we are faster). LangGraph runs with its default
``durability="async"`` (checkpoints written in a background thread while the next step
runs) and with ``durability="sync"`` (saved before the next step, our default); both
libraries also run with ``durability="exit"`` (one checkpoint when the run ends), with the
ratio of the two.

Then the SQLite file size after ``--size-steps`` steps (default 1,000) on one thread with
every checkpoint kept (equal retention), and ours with ``keep_last=10`` separately.

    pip install ".[bench]"        # langgraph==1.2.22, langgraph-checkpoint-sqlite
    python benchmarks/graph_steps.py [--steps 200] [--repeats 7] [--size-steps 1000]
"""

from __future__ import annotations

import argparse
import operator
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any, Callable, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import langgraph.checkpoint.memory as lg_memory  # noqa: E402
import langgraph.checkpoint.sqlite as lg_sqlite  # noqa: E402
import langgraph.graph as lg_graph  # noqa: E402

import rag.graph as our_graph  # noqa: E402
from rag.graph.checkpoint import InMemorySaver, SqliteSaver  # noqa: E402


class LoopState(TypedDict):
    n: int
    note: str
    recent: Annotated[list, operator.add]


def build(lib: Any, steps: int) -> Any:
    """``a`` -> ``b`` -> ``a`` ... until ``a`` has run ``steps // 2`` times."""
    graph = lib.StateGraph(LoopState)
    graph.add_node("a", lambda s: {"n": s["n"] + 1, "note": f"step {s['n']} of the loop"})
    graph.add_node("b", lambda s: {"recent": [s["n"]]})
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", lambda s: "b" if s["n"] * 2 < steps else lib.END, ["b", lib.END])
    graph.add_edge("b", "a")
    return graph


def run_once(app: Any, steps: int, thread: str, **kwargs: Any) -> None:
    config = {"configurable": {"thread_id": thread}, "recursion_limit": steps + 10}
    out = app.invoke({"n": 0, "note": "", "recent": []}, config, **kwargs)
    assert out["n"] * 2 >= steps, out


def per_step(make: Callable[[], Any], steps: int, **kwargs: Any) -> float:
    """Microseconds per node step of one run on a fresh graph and thread."""
    app = make()
    start = time.perf_counter()
    run_once(app, steps, f"r{time.perf_counter_ns()}", **kwargs)
    return (time.perf_counter() - start) / steps * 1e6


def sqlite_size(path: Path) -> int:
    """Bytes of the database once its WAL is folded in and free pages are dropped."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")
    conn.close()
    return path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200, help="node steps per timed run")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--size-steps", type=int, default=1000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="graph-bench-"))
    ours_graph, lg_graph_ = build(our_graph, args.steps), build(lg_graph, args.steps)

    commits: dict[str, int] = {}

    def counted(conn: sqlite3.Connection, key: str) -> None:
        """Count the transactions committed on ``conn`` (each is an fsync under FULL)."""
        commits[key] = 0

        def trace(statement: str) -> None:
            if statement.lstrip().upper().startswith("COMMIT"):
                commits[key] += 1
        conn.set_trace_callback(trace)

    def our_sqlite(synchronous: str) -> Callable[[], Any]:
        def make() -> Any:
            saver = SqliteSaver.from_conn_string(str(folder / f"o{time.perf_counter_ns()}.db"))
            saver.conn.execute(f"PRAGMA synchronous={synchronous}")
            counted(saver.conn, "ours")
            return ours_graph.compile(checkpointer=saver)
        return make

    def lg_sqlite_app(synchronous: str) -> Callable[[], Any]:
        def make() -> Any:
            conn = sqlite3.connect(folder / f"l{time.perf_counter_ns()}.db", check_same_thread=False)
            conn.execute(f"PRAGMA synchronous={synchronous}")
            counted(conn, "langgraph")
            return lg_graph_.compile(checkpointer=lg_sqlite.SqliteSaver(conn))
        return make

    cases = [
        ("no checkpointer", lambda: ours_graph.compile(), lambda: lg_graph_.compile()),
        ("in-memory saver", lambda: ours_graph.compile(checkpointer=InMemorySaver()),
         lambda: lg_graph_.compile(checkpointer=lg_memory.InMemorySaver())),
        ("SQLite, FULL", our_sqlite("FULL"), lg_sqlite_app("FULL")),
        ("SQLite, NORMAL", our_sqlite("NORMAL"), lg_sqlite_app("NORMAL")),
    ]
    print(f"µs per node step, {args.steps} steps per run, median of {args.repeats} alternating runs "
          "(best in brackets)")
    print(f"{'checkpointer':<17}{'ours':>16}{'LangGraph async':>18}{'LangGraph sync':>18}"
          f"{'ratio async':>13}{'ratio sync':>12}{'ours exit':>16}{'LangGraph exit':>18}{'ratio exit':>12}")
    for label, ours_make, lg_make in cases:
        for make in (ours_make, lg_make):  # warm-up: imports, first-call caches
            per_step(make, args.steps)
        samples: dict[str, list[float]] = {"ours": [], "async": [], "sync": [], "ours exit": [], "exit": []}
        for _ in range(args.repeats):  # alternate, so load changes hit all of them alike
            # LangGraph 1.2.22 fails on durability="sync" without a checkpointer; without
            # one, durability means nothing (LangGraph warns), so those columns repeat.
            checkpointed = label != "no checkpointer"
            if checkpointed:  # first: the commit counts below are the sync runs'
                samples["ours exit"].append(per_step(ours_make, args.steps, durability="exit"))
                samples["exit"].append(per_step(lg_make, args.steps, durability="exit"))
            samples["ours"].append(per_step(ours_make, args.steps))
            samples["async"].append(per_step(lg_make, args.steps))
            if checkpointed:
                samples["sync"].append(per_step(lg_make, args.steps, durability="sync"))
            else:
                samples["sync"].append(samples["async"][-1])
                samples["ours exit"].append(samples["ours"][-1])
                samples["exit"].append(samples["async"][-1])
        med = {k: statistics.median(v) for k, v in samples.items()}
        cell = {k: f"{med[k]:.1f} [{min(samples[k]):.1f}]" for k in med}
        print(f"{label:<17}{cell['ours']:>16}{cell['async']:>18}{cell['sync']:>18}"
              f"{med['async'] / med['ours']:>12.2f}x{med['sync'] / med['ours']:>11.2f}x"
              f"{cell['ours exit']:>16}{cell['exit']:>18}{med['exit'] / med['ours exit']:>11.2f}x")
        if label.startswith("SQLite"):  # the last runs' commits (the LangGraph run was durability="sync")
            print(f"{'':<17}commits per step: ours {commits['ours'] / args.steps:.2f}, "
                  f"LangGraph {commits['langgraph'] / args.steps:.2f}")

    steps = args.size_steps
    big_ours, big_lg = build(our_graph, steps), build(lg_graph, steps)
    sizes = {}
    with SqliteSaver.from_conn_string(str(folder / "size-ours.db")) as saver:
        run_once(big_ours.compile(checkpointer=saver), steps, "size")
    sizes["ours, every checkpoint"] = sqlite_size(folder / "size-ours.db")
    with SqliteSaver.from_conn_string(str(folder / "size-ours-10.db"), keep_last=10) as saver:
        run_once(big_ours.compile(checkpointer=saver), steps, "size")
    sizes["ours, keep_last=10"] = sqlite_size(folder / "size-ours-10.db")
    conn = sqlite3.connect(folder / "size-lg.db", check_same_thread=False)
    run_once(big_lg.compile(checkpointer=lg_sqlite.SqliteSaver(conn)), steps, "size", durability="sync")
    conn.close()
    sizes["LangGraph, every checkpoint"] = sqlite_size(folder / "size-lg.db")
    print(f"\nSQLite file after {steps} steps (one thread, WAL folded in, VACUUMed)")
    for label, size in sizes.items():
        print(f"{label:<30}{size / 1024:>10.1f} KiB")
    print(f"ratio LangGraph / ours at equal retention: {sizes['LangGraph, every checkpoint'] / sizes['ours, every checkpoint']:.2f}x")
    for path in folder.iterdir():
        os.unlink(path)
    folder.rmdir()


if __name__ == "__main__":
    main()
