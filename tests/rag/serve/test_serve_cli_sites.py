"""`rag serve` as a user runs it, for issue 35's items 2-4: on ``--host ::1``, with
``--allowed-host``, with its caps as flags, and serving what a later `rag index` run
committed. Real processes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("uvicorn")

from tests.rag.serve.hostile import ipv6_loopback  # noqa: E402
from tests.rag.serve.index_server import build_index  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
PATIENCE_SECONDS = 60.0


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("RAG_API_KEY", None)
    return env


def serve(*args: str) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, "-m", "rag", "serve", "--port", "0", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=_env())
    lines = []
    for line in process.stdout:
        lines.append(line)
        found = re.search(r" at (http://\S+):(\d+)/", line)
        if found:
            return process, f"{found.group(1)}:{found.group(2)}"
    process.wait(timeout=30)
    raise AssertionError("rag serve did not start:\n" + "".join(lines))


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    process.communicate(timeout=30)


@pytest.fixture(scope="module")
def index_path(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("serve-cli-sites")
    build_index(folder)
    return folder / "index"


@pytest.mark.skipif(not ipv6_loopback(), reason="this machine has no IPv6 loopback")
def test_rag_serve_on_ipv6_loopback_announces_a_url_that_works(index_path):
    process, url = serve("--index", str(index_path), "--host", "::1")
    try:
        assert url.startswith("http://[::1]:")
        assert httpx.post(f"{url}/search", json={"query": "cats"}).status_code == 200
    finally:
        stop(process)


def test_allowed_hosts_and_caps_are_flags(index_path):
    process, url = serve("--index", str(index_path), "--allowed-host", "rag.internal", "--max-batch", "2",
                         "--max-query-chars", "50")
    try:
        assert httpx.get(f"{url}/v1/models", headers={"host": "rag.internal"}).status_code == 200
        assert httpx.get(f"{url}/v1/models", headers={"host": "evil.example"}).status_code == 403
        assert httpx.post(f"{url}/retriever/batch", json={"inputs": ["a", "b", "c"]}).status_code == 413
        assert httpx.post(f"{url}/search", json={"query": "x" * 51}).status_code == 422
    finally:
        stop(process)


def test_rag_serve_serves_what_a_later_rag_index_run_committed(index_path, tmp_path):
    import shutil

    own = tmp_path / "index"
    shutil.copytree(index_path, own)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "birds.md").write_text("# Birds\n\nParrots mimic human speech.\n")
    process, url = serve("--index", str(own))
    try:
        indexed = subprocess.run([sys.executable, "-m", "rag", "index", str(docs), "--index", str(own)],
                                 capture_output=True, text=True, timeout=300, env=_env())
        assert indexed.returncode == 0, indexed.stderr
        deadline = time.monotonic() + PATIENCE_SECONDS
        while True:
            hits = httpx.post(f"{url}/search", json={"query": "parrots", "search_type": "bm25"}).json()["results"]
            if any(hit["source"].endswith("birds.md") for hit in hits):
                break
            assert time.monotonic() < deadline, "rag serve never served birds.md"
            time.sleep(0.05)
    finally:
        stop(process)
