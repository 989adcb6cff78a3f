"""`rag chat --memory`: facts a user asked to be remembered are recalled in a later session
(a real subprocess, a real SQLite file), and bad input is refused clearly."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from rag.embeddings import HashingEmbeddings
from rag.errors import ValidationError
from rag.index import Index
from rag.memory.long_term import LongTermMemory


def rag(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rag", *args], input=stdin, capture_output=True, text=True,
                          env={**os.environ, "USER": "ann.lee"}, timeout=120)


@pytest.fixture
def index(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "servers.md").write_text("# Servers\n\nRestart a server with systemctl restart; logs are in journalctl.\n")
    Index.create(tmp_path / "ix", embeddings="hashing").update([str(docs)])
    return tmp_path / "ix"


def test_a_fact_remembered_in_one_session_is_recalled_in_the_next(index, tmp_path):
    memory = str(tmp_path / "memory.db")
    first = rag("chat", "--index", str(index), "--memory", memory, "--session", "monday",
                stdin="remember that my web server is called atlas\n")
    assert first.returncode == 0, first.stderr
    assert "Remembered: my web server is called atlas" in first.stdout
    second = rag("chat", "--index", str(index), "--memory", memory, "--session", "tuesday",
                 stdin="how do I restart my web server?\nwhat are cron tabs?\n")
    assert second.returncode == 0, second.stderr
    restart, cron = second.stdout.split("> ")[1:]
    assert "From memory:\n  - my web server is called atlas" in restart
    assert "From memory" not in cron  # an unrelated question recalls nothing
    assert "Sources:" in restart  # the index still answers


def test_each_user_recalls_only_their_own_facts(index, tmp_path):
    memory = str(tmp_path / "memory.db")
    assert rag("chat", "--index", str(index), "--memory", memory, "--user", "bob",
               stdin="remember: my web server is called zeus\n").returncode == 0
    other = rag("chat", "--index", str(index), "--memory", memory, stdin="how do I restart my web server?\n")
    assert other.returncode == 0 and "zeus" not in other.stdout
    rows = sqlite3.connect(memory).execute("SELECT prefix FROM store WHERE prefix LIKE 'memories.%'").fetchall()
    assert rows == [("memories.bob",)]


def test_a_user_name_with_a_period_is_refused(index, tmp_path):
    result = rag("chat", "--index", str(index), "--memory", str(tmp_path / "m.db"), "--user", "ann.lee", stdin="hi\n")
    assert result.returncode != 0 and "--user 'ann.lee'" in result.stderr


def test_user_without_memory_is_refused(index):
    result = rag("chat", "--index", str(index), "--user", "bob", stdin="hi\n")
    assert result.returncode != 0 and "--user needs --memory PATH" in result.stderr


def test_a_memory_file_made_with_another_model_is_refused(tmp_path):
    path = tmp_path / "memory.db"
    with LongTermMemory.open(str(path), HashingEmbeddings(dim=64), "ann") as memory:
        memory.remember("my server is atlas")
    with pytest.raises(ValidationError, match="written with the embeddings"):
        with LongTermMemory.open(str(path), HashingEmbeddings(dim=128), "ann"):
            pass


def test_remembering_the_same_fact_twice_keeps_one(tmp_path):
    with LongTermMemory.open(str(tmp_path / "m.db"), HashingEmbeddings(dim=64), "ann") as memory:
        memory.remember("My server is  atlas")
        memory.remember("my server is atlas")
        assert [item.value["text"] for item in memory.facts()] == ["my server is atlas"]


@pytest.mark.parametrize("line, fact", [("remember that X is 3", "X is 3"), ("Remember: tea, no sugar", "tea, no sugar"),
                                        ("remember the alamo", "the alamo"), ("do you remember me?", None),
                                        ("remember", None)])
def test_which_lines_are_facts_to_remember(line, fact):
    assert LongTermMemory.fact_in(line) == fact
