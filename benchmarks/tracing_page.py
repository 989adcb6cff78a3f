"""The /traces page over a large trace store (issue 41): time to the first list and to
open a tree, in Chromium (Playwright), with the JSON routes timed alone beside.

Fills a fresh database with ``--traces`` traces (default 100,000) of ``--runs`` runs each
(default 3: a chain, a retriever with two documents, a model step; every 50th trace
failed, projects alternating), then serves it with ``rag trace serve``'s app and, for
``--repeats`` fresh pages (default 5), measures: page load to the first 50 traces shown;
opening a trace from the middle of the list to its tree shown; and the list filtered by
name (a substring scan), by project, by status and by latency. Medians reported.

    python benchmarks/tracing_page.py [--traces 100000] [--runs 3] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from rag.callbacks.tracer import TraceRun, dotted_segment  # noqa: E402
from rag.documents import Document  # noqa: E402
from rag.serve import serve_in_thread  # noqa: E402
from rag.serve.traces import traces_app  # noqa: E402
from rag.tracing.records import rows_of  # noqa: E402
from rag.tracing.store import TraceStore  # noqa: E402

CHROMIUM = "/usr/bin/chromium"


def tree(number: int, runs: int, started: datetime) -> TraceRun:
    question = f"question {number} about topic {number % 97}"
    root = TraceRun(uuid.uuid4(), f"ask-{number % 13}", "chain", None, {"input": question}, started)
    root.trace_id, root.dotted_order = root.id, dotted_segment(started, root.id)
    kinds = ["retriever", "chat_model", "parser", "tool", "chain"]
    for index in range(runs - 1):
        kind = kinds[index % len(kinds)]
        at = started + timedelta(microseconds=100 * (index + 1))
        child = TraceRun(uuid.uuid4(), f"{kind}-step", kind, root.id, {"query": question}, at, depth=1,
                         trace_id=root.id, dotted_order=f"{root.dotted_order}.{dotted_segment(at, uuid.uuid4())}")
        child.dotted_order = f"{root.dotted_order}.{dotted_segment(at, child.id)}"
        child.end_time, child.duration_ms = at + timedelta(milliseconds=3), 3.0
        child.outputs = ({"documents": [Document(f"passage {number}-{k}", {"source": f"doc{k}.md"}) for k in (1, 2)]}
                         if kind == "retriever" else f"answer {number}")
        if kind == "chat_model":
            child.token_usage = {"input_tokens": 120, "output_tokens": 30, "total_tokens": 150}
        root.children.append(child)
    root.end_time, root.duration_ms = started + timedelta(milliseconds=5 + number % 40), 5.0 + number % 40
    root.outputs = {"answer": f"answer {number}"}
    if number % 50 == 0:
        root.error = "RuntimeError: the model server refused"
    return root


def fill(db: Path, traces: int, runs: int) -> float:
    store = TraceStore(db)
    connection = store.connect()
    began = time.perf_counter()
    start = datetime.now(timezone.utc) - timedelta(days=2)
    batch = []
    for number in range(traces):
        project = "v1" if number % 2 else "v2"
        batch.append(rows_of(tree(number, runs, start + timedelta(seconds=number)), project, 65536))
        if len(batch) == 2000:
            store.write(connection, batch)
            batch = []
    if batch:
        store.write(connection, batch)
    connection.close()
    return time.perf_counter() - began


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e3:.0f} ms (min {min(values) * 1e3:.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    db = Path(tempfile.mkdtemp(prefix="rag-traces-page-")) / "traces.sqlite3"
    seconds = fill(db, args.traces, args.runs)
    store = TraceStore(db, readonly=True)
    print(f"{args.traces} traces, {store.count_runs()} runs, {db.stat().st_size / 1e6:.0f} MB, filled in {seconds:.0f} s")
    first_list, open_tree, api_list, api_tree = [], [], [], []
    filters: dict[str, list[float]] = {"name=ask-7": [], "project=v1": [], "status=error": [], "slower_than=40": []}
    project_totals: list[float] = []
    with serve_in_thread(traces_app(store)) as base, sync_playwright() as playwright, httpx.Client(timeout=60) as http:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        for _ in range(args.repeats):
            page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
            began = time.perf_counter()
            page.goto(base + "/traces")
            page.wait_for_selector("#runs[data-loaded=true] li:nth-child(50)")
            first_list.append(time.perf_counter() - began)
            began = time.perf_counter()
            page.locator("#runs li").nth(25).get_by_role("link").click()
            page.wait_for_selector("#detail[data-loaded=true]")
            open_tree.append(time.perf_counter() - began)
            page.context.close()
            began = time.perf_counter()
            listed = http.get(base + "/traces/api/traces").json()["traces"]
            api_list.append(time.perf_counter() - began)
            began = time.perf_counter()
            http.get(base + f"/traces/api/runs/{listed[25]['trace_id']}").raise_for_status()
            api_tree.append(time.perf_counter() - began)
            began = time.perf_counter()
            http.get(base + "/traces/api/projects").raise_for_status()
            project_totals.append(time.perf_counter() - began)
            for query, times in filters.items():
                key, value = query.split("=")
                began = time.perf_counter()
                http.get(base + "/traces/api/traces", params={key: value}).raise_for_status()
                times.append(time.perf_counter() - began)
        browser.close()
    print(f"page load to the first 50 traces shown: {median_ms(first_list)}")
    print(f"click to the tree shown:                {median_ms(open_tree)}")
    print(f"GET /traces/api/traces (50 newest):     {median_ms(api_list)}")
    print(f"GET /traces/api/runs/ID (one tree):     {median_ms(api_tree)}")
    print(f"GET /traces/api/projects (totals):      {median_ms(project_totals)}")
    for query, times in filters.items():
        print(f"GET /traces/api/traces?{query:15} {median_ms(times)}")


if __name__ == "__main__":
    main()
