"""`rag serve` as a user runs it: a real process, its refusals, and the key kept out of logs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

pytest.importorskip("uvicorn")

from tests.rag.serve.index_server import build_index  # noqa: E402

KEY = "k3y-that-must-never-be-logged"
REPO = Path(__file__).resolve().parents[3]


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""), **extra}
    env.pop("RAG_API_KEY", None)
    env.update(extra)
    return env


def _rag(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, timeout=120,
                          env=_env(**env))


@pytest.fixture(scope="module")
def index_path(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("serve-cli")
    build_index(folder)
    return folder / "index"


def test_a_missing_index_refuses_to_start_with_rag_searchs_error(tmp_path):
    missing = str(tmp_path / "nowhere")
    served, searched = _rag("serve", "--index", missing, "--port", "0"), _rag("search", "cats", "--index", missing)
    assert served.returncode == searched.returncode == 1
    assert served.stderr == searched.stderr and served.stderr.count("\n") == 1
    assert served.stderr.startswith("rag: error: no index at")


def test_a_corrupt_index_refuses_to_start_with_rag_searchs_error(index_path, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(index_path, broken)
    (broken / "manifest.json").write_text("{ this is not json")
    served, searched = _rag("serve", "--index", str(broken), "--port", "0"), _rag("search", "cats", "--index", str(broken))
    assert served.returncode == searched.returncode == 1
    assert served.stderr == searched.stderr and served.stderr.count("\n") == 1


def test_a_non_loopback_host_without_a_key_is_refused(index_path):
    result = _rag("serve", "--index", str(index_path), "--host", "0.0.0.0", "--port", "0")
    assert result.returncode == 1
    assert "reachable from other machines" in result.stderr and "--insecure" in result.stderr


def _serve(*args: str, **env: str) -> tuple[subprocess.Popen, str, list[str]]:
    # stdout (uvicorn's access log) joins stderr so the test reads every line the server logs.
    process = subprocess.Popen([sys.executable, "-m", "rag", "serve", "--port", "0", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=_env(**env))
    lines = []
    for line in process.stdout:  # the announcement comes once the socket is bound
        lines.append(line)
        found = re.search(r"at (http://127\.0\.0\.1:\d+)/", line)
        if found:
            return process, found.group(1), lines
    process.wait(timeout=30)
    raise AssertionError("rag serve did not start:\n" + "".join(lines))


def _stop(process: subprocess.Popen) -> str:
    process.terminate()
    rest, _ = process.communicate(timeout=30)
    return rest


def test_the_key_from_the_environment_is_required_and_never_logged(index_path):
    process, url, started = _serve("--index", str(index_path), RAG_API_KEY=KEY)
    try:
        assert httpx.post(f"{url}/search", json={"query": "cats"}).status_code == 401
        assert httpx.post(f"{url}/search", json={"query": "cats"}, headers={"authorization": "Bearer nope"}).status_code == 401
        ok = httpx.post(f"{url}/search", json={"query": "cats"}, headers={"authorization": f"Bearer {KEY}"})
        assert ok.status_code == 200
    finally:
        log = "".join(started) + _stop(process)
    assert "POST /search" in log and KEY not in log


def test_the_key_can_come_from_a_file(index_path, tmp_path):
    key_file = tmp_path / "key"
    key_file.write_text(KEY + "\n")
    process, url, _ = _serve("--index", str(index_path), "--api-key-file", str(key_file))
    try:
        assert httpx.get(f"{url}/v1/models").status_code == 401
        assert httpx.get(f"{url}/v1/models", headers={"authorization": f"Bearer {KEY}"}).status_code == 200
    finally:
        _stop(process)


def test_white_space_around_the_key_in_the_environment_is_not_part_of_it(index_path):
    # A header value cannot end in white space, so a key kept with it could never be sent.
    process, url, _ = _serve("--index", str(index_path), RAG_API_KEY=f" {KEY}\n")
    try:
        assert httpx.get(f"{url}/v1/models", headers={"authorization": f"Bearer {KEY}"}).status_code == 200
    finally:
        _stop(process)
