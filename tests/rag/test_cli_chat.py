"""`rag chat` through a real subprocess: piped questions, a terminal, sessions that survive
`rag index`, a model on 127.0.0.1, bad input."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from chat_completions_server import Reply, ScriptedServer, completion, delta_event
from rag.index import Index

DOCS = {
    "indexes.md": "# Indexes\n\nCREATE INDEX builds an index on a column so that lookups are faster.\n\n"
                  "DROP INDEX deletes an index; the table keeps its rows.\n",
    "tables.md": "# Tables\n\nCREATE TABLE makes a table. To remove a table, run DROP TABLE.\n",
    "backups.md": "# Backups\n\nBack up a database with pg_dump; restore the dump with psql.\n",
}


def rag(*args: str, stdin: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rag", *args], input=stdin, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=120)


@pytest.fixture
def index(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text)
    Index.create(tmp_path / "ix", embeddings="hashing").update([str(docs)])  # in process: quicker
    return tmp_path / "ix"


def _answers(stdout: str) -> list[str]:
    """Each answer block (question echo removed)."""
    return [block.split("\n", 1)[1] for block in stdout.split("> ")[1:]]


def test_piped_questions_are_answered_in_turn_with_numbered_sources(index):
    result = rag("chat", "--index", str(index), stdin="How do I create an index?\n\nand how do I remove it?\n")
    assert result.returncode == 0, result.stderr
    first, follow_up = _answers(result.stdout)
    assert "> How do I create an index?" in result.stdout and "> and how do I remove it?" in result.stdout
    for answer in (first, follow_up):
        assert "[1]" in answer and "Sources:\n  [1] Indexes — " in answer and "indexes.md" in answer
    assert (index / "chats" / "default.jsonl").is_file()


def test_a_session_survives_rag_index_and_carries_on(index, tmp_path):
    assert rag("chat", "--index", str(index), "--session", "work", stdin="How do I create an index?\n").returncode == 0
    (tmp_path / "docs" / "views.md").write_text("# Views\n\nCREATE VIEW names a query.\n")
    (tmp_path / "docs" / "tables.md").write_text(DOCS["tables.md"] + "\nALTER TABLE changes a table.\n")
    reindexed = rag("index", str(tmp_path / "docs"), "--index", str(index), "--embeddings", "hashing")
    assert reindexed.returncode == 0 and "1 added, 1 updated" in reindexed.stdout
    result = rag("chat", "--index", str(index), "--session", "work", stdin="and how do I remove it?\n")
    assert result.returncode == 0, result.stderr
    [answer] = _answers(result.stdout)
    assert "Sources:\n  [1] Indexes — " in answer  # the follow-up still knows what "it" was
    assert len((index / "chats" / "work.jsonl").read_text().splitlines()) == 4


def test_on_a_terminal_it_prompts_for_each_question(index):
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "rag", "chat", "--index", str(index)], stdin=terminal,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    os.close(terminal)
    os.write(controller, b"How do I create an index?\n\x04")  # a question, then Ctrl-D
    stdout, stderr = process.communicate(timeout=120)
    os.close(controller)
    assert process.returncode == 0, stderr
    assert "session 'default', new; Ctrl-D to end" in stderr
    assert stdout.startswith("> ") and "CREATE INDEX" in stdout and "[1] Indexes" in stdout


def test_with_a_model_it_rewrites_the_follow_up_and_streams_the_answer(index):
    with ScriptedServer() as server:
        server.script(Reply(events=[delta_event("Use CREATE INDEX "), delta_event("[1]."), delta_event(finish="stop"),
                                    "[DONE]"]),
                      Reply(body=completion("How do I drop an index?")),
                      Reply(events=[delta_event("Run DROP INDEX "), delta_event("[1]."), delta_event(finish="stop"),
                                    "[DONE]"]))
        result = rag("chat", "--index", str(index), "--model", "test-model", "--base-url", server.base_url,
                     stdin="How do I create an index?\nand how do I remove it?\n", env={"OPENAI_API_KEY": "sk-test"})
    assert result.returncode == 0, result.stderr
    first, follow_up = _answers(result.stdout)
    assert first.startswith("Use CREATE INDEX [1].") and follow_up.startswith("Run DROP INDEX [1].")
    assert server.requests[1]["messages"][-1]["content"] == "and how do I remove it?"  # the rewrite request
    assert "DROP INDEX deletes an index" in server.requests[2]["messages"][0]["content"]
    assert "Sources:\n  [1] Indexes" in follow_up


@pytest.mark.parametrize("damage", ["garbage", "[" * 100_000 + "]" * 100_000], ids=["not-json", "nested-100000-deep"])
def test_a_corrupt_history_is_reported_with_its_line_and_kept(index, damage):
    assert rag("chat", "--index", str(index), stdin="How do I create an index?\n").returncode == 0
    path = index / "chats" / "default.jsonl"
    with open(path, "a") as handle:
        handle.write(damage + "\n")
    before = path.read_bytes()
    result = rag("chat", "--index", str(index), stdin="and how do I remove it?\n")
    assert result.returncode == 1 and "default.jsonl:3: not a chat message record" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr) < 1000
    assert path.read_bytes() == before


def test_a_bad_session_name_is_refused(index):
    result = rag("chat", "--index", str(index), "--session", "../elsewhere", stdin="hi\n")
    assert result.returncode == 1 and "chat session name '../elsewhere' is not allowed" in result.stderr


def test_a_missing_index_says_how_to_make_one(tmp_path):
    result = rag("chat", "--index", str(tmp_path / "none"), stdin="hi\n")
    assert result.returncode == 1 and "rag index" in result.stderr
