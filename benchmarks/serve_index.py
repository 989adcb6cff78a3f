"""A warm `rag serve` against the in-process library and against a `rag search` process per question.

    pip install ".[serve]"
    python benchmarks/serve_index.py [--index DIR] [--embeddings hashing|local] [--requests 200]
                                     [--processes 10] [--clients 50] [--seconds 30]

The index is SciFact's corpus (/work/shared/data/beir/scifact, 5,183 abstracts; built into a
temporary folder with ``--embeddings``, default hashing, unless ``--index`` names one) and
the questions are SciFact's queries. Three parts:

1. Latency, one client (httpx, keep-alive) against ``rag serve`` (its own process, uvicorn,
   127.0.0.1): p50/p99 of ``POST /search`` (hybrid, k=4) and ``POST /ask/invoke`` (offline
   extractive answer, k=4), measured alternately with the same call in process
   (``Index.search``, ``Index.ask``) on the same index.
2. ``rag search QUERY --index DIR`` as a new process per question (p50 over ``--processes``).
3. Load: ``--clients`` concurrent clients (asyncio + httpx) for ``--seconds``, each
   alternating search and ask on its own query: throughput, p50/p99, failed requests, and
   the server's RSS after warm-up and after the run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
# benchmarks/ holds a loaders.py of its own: the repository's packages must come first.
sys.path[0] = str(ROOT)
SCIFACT = Path("/work/shared/data/beir/scifact")


def _queries(limit: int) -> list[str]:
    with open(SCIFACT / "queries.jsonl", encoding="utf-8") as handle:
        return [json.loads(line)["text"] for line in handle][:limit]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
            "ORT_DISABLE_TELEMETRY": "1"}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f}"


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _build(folder: Path, embeddings: str) -> Path:
    from rag.index import Index

    index = Index.create(folder, embeddings=embeddings)
    began = time.perf_counter()
    summary = index.update([str(SCIFACT)], beir=True)
    print(f"built {folder}: {summary.total_chunks} chunks with {embeddings} in {time.perf_counter() - began:.1f} s",
          file=sys.stderr)
    return folder


def _start_server(index: Path) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, "-m", "rag", "serve", "--index", str(index), "--port", "0"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_env())
    for line in process.stderr:
        found = re.search(r"at (http://127\.0\.0\.1:\d+)/", line)
        if found:
            # Drain the log (uvicorn's access lines) so the pipe never fills and blocks the server.
            import threading

            threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
            return process, found.group(1)
    raise SystemExit("rag serve did not start")


def latency(index_path: Path, url: str, queries: list[str], requests: int) -> dict[str, dict[str, float]]:
    from rag.index import Index

    index = Index.open(index_path)
    calls = {
        "search": (lambda q: index.search(q, k=4),
                   lambda client, q: client.post(f"{url}/search", json={"query": q, "k": 4})),
        "ask": (lambda q: index.ask(q, k=4),
                lambda client, q: client.post(f"{url}/ask/invoke", json={"input": {"input": q}})),
    }
    results: dict[str, dict[str, float]] = {}
    with httpx.Client(timeout=60) as client:
        for name, (local, remote) in calls.items():
            for q in queries[:20]:  # warm both sides (caches, first-call imports)
                local(q)
                remote(client, q).raise_for_status()
            inproc, served = [], []
            for i in range(requests):
                q = queries[i % len(queries)]
                began = time.perf_counter()
                local(q)
                inproc.append(time.perf_counter() - began)
                began = time.perf_counter()
                reply = remote(client, q)
                served.append(time.perf_counter() - began)
                reply.raise_for_status()
            results[name] = {"inproc_p50": statistics.median(inproc), "inproc_p99": _pct(inproc, 0.99),
                             "served_p50": statistics.median(served), "served_p99": _pct(served, 0.99)}
    return results


def per_process(index_path: Path, queries: list[str], count: int) -> float:
    times = []
    for q in queries[:count]:
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "rag", "search", q, "--index", str(index_path), "--k", "4"],
                       check=True, capture_output=True, env=_env())
        times.append(time.perf_counter() - began)
    return statistics.median(times)


async def load(url: str, queries: list[str], clients: int, seconds: float) -> dict[str, Any]:
    latencies: dict[str, list[float]] = {"search": [], "ask": []}
    failures: list[str] = []
    deadline = time.perf_counter() + seconds

    async def client(number: int, http: httpx.AsyncClient) -> None:
        i = number
        while time.perf_counter() < deadline:
            q = queries[i % len(queries)]
            kind = "search" if i % 2 == 0 else "ask"
            began = time.perf_counter()
            try:
                if kind == "search":
                    reply = await http.post(f"{url}/search", json={"query": q, "k": 4})
                else:
                    reply = await http.post(f"{url}/ask/invoke", json={"input": {"input": q}})
                if reply.status_code != 200:
                    failures.append(f"{kind} {reply.status_code}")
                else:
                    latencies[kind].append(time.perf_counter() - began)
            except httpx.HTTPError as exc:
                failures.append(f"{kind} {type(exc).__name__}")
            i += clients

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(timeout=120, limits=limits) as http:
        began = time.perf_counter()
        await asyncio.gather(*(client(n, http) for n in range(clients)))
        elapsed = time.perf_counter() - began
    done = sum(len(v) for v in latencies.values())
    return {"elapsed": elapsed, "requests": done, "throughput": done / elapsed, "failures": failures,
            **{f"{k}_p50": statistics.median(v) for k, v in latencies.items() if v},
            **{f"{k}_p99": _pct(v, 0.99) for k, v in latencies.items() if v},
            **{f"{k}_count": len(v) for k, v in latencies.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, help="an index of SciFact (default: build one in a temporary folder)")
    parser.add_argument("--embeddings", default="hashing", help="for the built index (default hashing)")
    parser.add_argument("--requests", type=int, default=200, help="requests per latency measurement (default 200)")
    parser.add_argument("--processes", type=int, default=10, help="rag search processes timed (default 10)")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    from rag.process_defaults import apply_process_defaults

    apply_process_defaults()  # as `rag serve` does, so both sides search alike (OMP_WAIT_POLICY)
    queries = _queries(300)
    with tempfile.TemporaryDirectory() as scratch:
        index_path = args.index or _build(Path(scratch) / "scifact", args.embeddings)
        process, url = _start_server(index_path)
        try:
            lat = latency(index_path, url, queries, args.requests)
            rss_warm = _rss_mib(process.pid)
            result = asyncio.run(load(url, queries, args.clients, args.seconds))
            rss_after = _rss_mib(process.pid)
        finally:
            process.terminate()
            process.wait(timeout=30)
        cli = per_process(index_path, queries, args.processes)
    print("\n| call | in-process p50 / p99 (ms) | rag serve p50 / p99 (ms) | p50 overhead (ms) |")
    print("| --- | ---: | ---: | ---: |")
    for name, r in lat.items():
        print(f"| {name} | {_ms(r['inproc_p50'])} / {_ms(r['inproc_p99'])} | {_ms(r['served_p50'])} / "
              f"{_ms(r['served_p99'])} | {_ms(r['served_p50'] - r['inproc_p50'])} |")
    search_p50 = lat["search"]["served_p50"]
    print(f"\n`rag search` process per question: p50 {cli * 1e3:.0f} ms ({cli / search_p50:.0f}x the warm server's "
          f"search p50)")
    print(f"\nLoad: {args.clients} clients for {result['elapsed']:.1f} s: {result['requests']} requests "
          f"({result.get('search_count', 0)} search, {result.get('ask_count', 0)} ask), "
          f"{result['throughput']:.0f} requests/s, {len(result['failures'])} failed")
    for kind in ("search", "ask"):
        if f"{kind}_p50" in result:
            print(f"  {kind}: p50 {_ms(result[kind + '_p50'])} ms, p99 {_ms(result[kind + '_p99'])} ms")
    print(f"  server RSS: {rss_warm:.0f} MiB after warm-up, {rss_after:.0f} MiB after the run "
          f"({(rss_after / rss_warm - 1) * 100:+.1f} %)")
    if result["failures"]:
        print("  failures:", sorted(set(result["failures"]))[:10])


if __name__ == "__main__":
    main()
