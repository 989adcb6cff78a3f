"""Embedding fanned out (issue 17): chunks/s of one process, ``--workers 2`` and a two-worker
local Dask cluster on the same folder, and the per-batch overhead a cluster adds.

    apt-get install -y postgresql-doc-15
    pip install -e ".[bench]"                       # the local model and distributed
    python benchmarks/embedding_fanout.py [--files 80] [--repeats 2] [--json OUT]

Every build is a fresh ``Index.update`` with the local MiniLM model in a child process (the
writer), over the first ``--files`` HTML files; chunks/s = chunks embedded / update wall.
The cluster is a real ``dask scheduler`` and ``dask worker`` processes on 127.0.0.1 (one
thread each, no nanny). Per-batch overhead: the same 64-chunk batches embedded one at a time
in this process (the model with all cores) and sent one at a time, each waited for, to a
one-worker cluster whose worker runs the model with all cores: (cluster - local) / local.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

CORPUS = Path("/usr/share/doc/postgresql-doc-15/html")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    """``dask scheduler`` and ``workers`` ``dask worker`` processes on 127.0.0.1."""

    def __init__(self, workers: int, threads_env: str) -> None:
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": threads_env}
        port = self.address.rsplit(":", 1)[1]
        self.processes = [subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1",
                                            "--port", port, "--no-dashboard"], env=env,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
        for _ in range(workers):
            self.processes.append(subprocess.Popen(
                [sys.executable, "-m", "dask", "worker", self.address, "--nthreads", "1", "--no-nanny",
                 "--no-dashboard", "--host", "127.0.0.1"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        from distributed import Client

        try:
            with Client(self.address, timeout=60) as client:
                client.wait_for_workers(workers, timeout=120)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        for process in self.processes:
            process.kill()
            process.wait()


def build(corpus: Path, **options: Any) -> dict[str, float]:
    """One build in a fresh child process (a model session left in this process would keep
    its threads and skew the next measurement)."""
    argv = [sys.executable, str(Path(__file__).resolve()), "--child-build", str(corpus), json.dumps(options)]
    result = subprocess.run(argv, capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    return json.loads(result.stdout.strip().splitlines()[-1])


def child_build(corpus: str, options: str) -> None:
    from rag.index import Index

    folder = Path(tempfile.mkdtemp(prefix="fanout-"))
    try:
        index = Index.create(folder / "ix", embeddings="local")
        summary = index.update([corpus], **json.loads(options))
        print(json.dumps({"chunks": summary.chunks, "seconds": summary.seconds,
                          "chunks_per_s": summary.chunks / summary.seconds}))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def batch_overhead(texts: list[str], batches: int) -> dict[str, float]:
    """Seconds per 64-chunk batch: in this process, and through a one-worker cluster."""
    from rag.embeddings import LocalEmbeddings
    from rag.embeddings.base import embed_texts
    from rag.index.workers import embed_batch

    work = [texts[i * 64:(i + 1) * 64] for i in range(batches)]
    model = LocalEmbeddings()
    embed_texts(model, work[0])  # model load outside the clock
    local = []
    for batch in work:
        began = time.perf_counter()
        embed_texts(model, batch)
        local.append(time.perf_counter() - began)
    cluster = Cluster(1, threads_env=str(os.cpu_count() or 1))
    try:
        from distributed import Client

        with Client(cluster.address, timeout=60) as client:
            client.submit(embed_batch, "local", work[0], None, pure=False).result()  # the worker loads the model
            remote = []
            for batch in work:
                began = time.perf_counter()
                client.submit(embed_batch, "local", batch, None, pure=False).result()
                remote.append(time.perf_counter() - began)
    finally:
        cluster.stop()
    local_s, remote_s = statistics.median(local), statistics.median(remote)
    return {"local_s": local_s, "cluster_s": remote_s, "overhead": (remote_s - local_s) / local_s}


def main() -> int:
    if sys.argv[1:2] == ["--child-build"]:
        child_build(sys.argv[2], sys.argv[3])
        return 0
    if sys.argv[1:2] == ["--child-overhead"]:
        print(json.dumps(batch_overhead(json.loads(Path(sys.argv[2]).read_text()), int(sys.argv[3]))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--files", type=int, default=80, help="HTML files to index (default 80)")
    parser.add_argument("--repeats", type=int, default=2, help="builds per setup, alternating (median; default 2)")
    parser.add_argument("--batches", type=int, default=12, help="64-chunk batches for the overhead (default 12)")
    parser.add_argument("--json", type=Path, metavar="OUT")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        parser.error(f"no corpus at {args.corpus}: apt-get install -y postgresql-doc-15, or pass --corpus DIR")
    corpus = Path(tempfile.mkdtemp(prefix="fanout-corpus-"))
    for path in sorted(args.corpus.glob("*.html"))[:args.files]:
        shutil.copy(path, corpus / path.name)
    print(f"# Embedding fan-out, {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f}, {args.files} HTML files")
    cluster = Cluster(2, threads_env="1")
    runs: dict[str, list[dict[str, float]]] = {"1 process": [], "--workers 2": [], "Dask, 2 workers": []}
    try:
        for _ in range(args.repeats):
            runs["1 process"].append(build(corpus))
            runs["--workers 2"].append(build(corpus, workers=2))
            runs["Dask, 2 workers"].append(build(corpus, cluster=cluster.address))
    finally:
        cluster.stop()
    one = statistics.median(r["chunks_per_s"] for r in runs["1 process"])
    print("\n| setup | chunks | wall (median) | chunks/s | vs 1 process |\n| --- | ---: | ---: | ---: | ---: |")
    for name, rows in runs.items():
        rate = statistics.median(r["chunks_per_s"] for r in rows)
        print(f"| {name} | {rows[0]['chunks']:,} | {statistics.median(r['seconds'] for r in rows):.1f} s | "
              f"{rate:.1f} | {rate / one:.2f}x |")
    from rag.index.sources import iter_root, parse_root
    from splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)
    texts = [chunk.page_content for item in iter_root(parse_root(str(corpus), crawl=None, sitemap=False, beir=False),
                                                       glob=None) if item.documents
             for chunk in splitter.split_documents(item.documents)]
    texts_file = corpus / "texts.json"
    texts_file.write_text(json.dumps(texts))
    result = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child-overhead", str(texts_file),
                             str(min(args.batches, len(texts) // 64))], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    overhead = json.loads(result.stdout.strip().splitlines()[-1])
    print(f"\nper 64-chunk batch: {overhead['local_s'] * 1000:.0f} ms in process, {overhead['cluster_s'] * 1000:.0f} ms "
          f"through a one-worker cluster: overhead {overhead['overhead']:+.1%}")
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "overhead": overhead}, indent=1))
    shutil.rmtree(corpus, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
