"""Exit codes a script can rely on, and reports of what was skipped (progress: test_cli_progress.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def rag(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ))


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.md").write_text("Otters hold hands while they sleep.\n")
    (folder / "bad.txt").write_bytes(b"\x81\x8d\x8f\x90\x9d not decodable")
    (folder / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00binary")
    return folder


def test_a_partial_failure_exits_0_with_a_failed_line(docs, tmp_path):
    result = rag("index", str(docs), "--index", str(tmp_path / "ix"), "--embeddings", "hashing")
    assert result.returncode == 0, result.stderr
    assert "failed: 1" in result.stdout


def test_strict_makes_a_partial_failure_exit_1(docs, tmp_path):
    result = rag("index", str(docs), "--index", str(tmp_path / "ix"), "--embeddings", "hashing", "--strict")
    assert result.returncode == 1 and "1 source(s) failed (--strict)" in result.stderr


def test_when_no_source_could_be_read_the_command_exits_1(docs, tmp_path):
    result = rag("index", str(docs / "bad.txt"), "--index", str(tmp_path / "ix"), "--embeddings", "hashing")
    assert result.returncode == 1 and "none could be read" in result.stderr


def test_json_lists_skipped_files_with_their_reason(docs, tmp_path):
    result = rag("index", str(docs), "--index", str(tmp_path / "ix"), "--embeddings", "hashing", "--json")
    skipped = json.loads(result.stdout)["skipped_files"]
    assert [Path(row["source"]).name for row in skipped] == ["image.png"] and skipped[0]["reason"]


@pytest.mark.parametrize("command", ["search", "ask"])
@pytest.mark.parametrize("text", ["", "   "])
def test_a_blank_query_is_a_usage_error(command, text, tmp_path):
    result = rag(command, text, "--index", str(tmp_path / "ix"))
    assert result.returncode == 2 and "non-empty" in result.stderr


def test_a_reader_that_stops_reading_ends_the_command_quietly_with_141(docs, tmp_path):
    # `rag search ... | head -1`: the reader closes the pipe before the command has printed.
    assert rag("index", str(docs), "--index", str(tmp_path / "ix"), "--embeddings", "hashing").returncode == 0
    command = [sys.executable, "-m", "rag", "search", "otters", "--index", str(tmp_path / "ix")]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
    process.stdout.close()  # the child is still importing: its first write meets a closed pipe
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141  # 128 + SIGPIPE, as a shell reports a tool a pipe stopped
    assert stderr == ""
