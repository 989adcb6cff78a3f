"""The `rag` command's own behaviour: version, the make-demo commands, the samples."""

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def rag(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_version_prints_the_package_version():
    result = rag("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"rag {version('ragpath')}"


def test_there_is_no_command_that_overwrites_a_folder_without_checking_it():
    assert "invalid choice: 'demo'" in rag("demo").stderr


@pytest.mark.parametrize("before", [(), ("--chunk-size", "300", "--chunk-overlap", "30"), ("--store", "faiss")])
def test_the_make_demo_commands_work_after_other_commands_on_the_same_index(tmp_path, before):
    index = str(tmp_path / "demo")
    if before:
        assert rag("index", "rag/samples", "--index", index, "--embeddings", "hashing", *before).returncode == 0
    for _ in range(2):
        indexed = rag("index", "README.md", "rag/samples", "--index", index)
        assert indexed.returncode == 0, indexed.stderr
        asked = rag("ask", "What happens to the previous index if the machine crashes during a save?", "--index", index)
        assert asked.returncode == 0, asked.stderr
        assert "Sources:" in asked.stdout


def test_indexing_into_a_folder_saved_by_a_bare_store_is_refused_with_the_way_out(tmp_path):
    from rag.embeddings import HashingEmbeddings
    from stores import InMemoryVectorStore

    InMemoryVectorStore.from_texts(["an old demo"], HashingEmbeddings()).dump(tmp_path / "demo")
    before = sorted(p.name for p in (tmp_path / "demo").iterdir())
    result = rag("index", "README.md", "--index", str(tmp_path / "demo"), "--embeddings", "hashing")
    assert result.returncode == 1
    assert "holds a InMemoryVectorStore index, not a RagIndex" in result.stderr and "choose another --index" in result.stderr
    assert sorted(p.name for p in (tmp_path / "demo").iterdir()) == before
