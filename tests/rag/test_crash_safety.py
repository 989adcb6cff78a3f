"""A save killed part-way (as a power cut would) leaves the previous index loadable.

The crash is injected by patching rag.persistence's own file helpers in a child process,
which then dies with ``os._exit(70)``: no cleanup, no ``finally`` blocks. Production code
has no crash hooks of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CRASH_EXIT = 70
POINTS = ("mid-write", "before-swap")

# Installs the crash at ``sys.argv[1]``, then runs the code given after it.
#   mid-write:   the first section file is on disk, the second is never written.
#   before-swap: the new folder is complete and fsynced, but never swapped in.
CRASH_PRELUDE = textwrap.dedent(
    """
    import os
    import sys

    from rag.persistence import atomic as persistence

    point = sys.argv[1]
    real_write_file, real_fsync_dir = persistence._write_file, persistence._fsync_dir
    written = []

    def write_file_then_die(path, payload):
        written.append(path)
        if len(written) == 2:
            os._exit({code})
        real_write_file(path, payload)

    def fsync_dir_then_die(path):
        real_fsync_dir(path)
        if ".saving-" in path.name:
            os._exit({code})

    if point == "mid-write":
        persistence._write_file = write_file_then_die
    elif point == "before-swap":
        persistence._fsync_dir = fsync_dir_then_die
    else:
        raise SystemExit(f"unknown crash point {{point!r}}")
    """
).format(code=CRASH_EXIT)


def run_crashing(point: str, body: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CRASH_PRELUDE + textwrap.dedent(body), point, *args],
                          capture_output=True, text=True, timeout=120)


def rag(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, timeout=120)


def sources_in(index: Path) -> int:
    result = rag("info", "--index", str(index), "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["sources"]


def index_with_hashing(index: Path, corpus: Path) -> dict:
    result = rag("index", str(corpus), "--index", str(index), "--embeddings", "hashing", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_crash_in_the_middle_of_saving_leaves_the_previous_index(corpus, tmp_path):
    index = tmp_path / "ix"
    index_with_hashing(index, corpus)
    (corpus / "new.txt").write_text("A brand new document about owls.\n")
    for point in POINTS:
        crashed = run_crashing(point, """
            from rag.cli import main
            sys.exit(main(sys.argv[2:]))
        """, "index", str(corpus), "--index", str(index), "--embeddings", "hashing")
        assert crashed.returncode == CRASH_EXIT, (point, crashed.stderr)
        assert sources_in(index) == 3
    assert index_with_hashing(index, corpus)["added"] == 1
    assert sources_in(index) == 4
    # The crashed saves' half-written folders are gone; only the index and its lock remain.
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ix.lock", "docs", "ix"]


@pytest.mark.parametrize("point", POINTS)
def test_a_killed_write_index_folder_keeps_the_old_folder_and_the_next_save_cleans_up(point, tmp_path):
    from rag.persistence import Manifest, read_index_folder, write_index_folder

    def manifest() -> Manifest:
        return Manifest(store_class="Test", model_id="M-4", dimension=4)

    write_index_folder(tmp_path / "ix", manifest(), {"docs": ["old"], "more": ["old"]})
    crashed = run_crashing(point, """
        from rag.persistence import Manifest, write_index_folder
        write_index_folder(sys.argv[2], Manifest(store_class="Test", model_id="M-4", dimension=4),
                           {"docs": ["new"], "more": ["new"]})
    """, str(tmp_path / "ix"))
    assert crashed.returncode == CRASH_EXIT, crashed.stderr
    assert read_index_folder(tmp_path / "ix").json("docs") == ["old"]
    assert any(p.name.startswith(".ix.saving-") for p in tmp_path.iterdir())  # the crash's leftovers
    write_index_folder(tmp_path / "ix", manifest(), {"docs": ["next"], "more": ["next"]})
    assert read_index_folder(tmp_path / "ix").json("docs") == ["next"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ix"]


def test_the_old_crash_variable_no_longer_kills_a_save(tmp_path):
    from rag.persistence import read_index_folder

    script = textwrap.dedent("""
        import sys
        from rag.persistence import Manifest, write_index_folder
        write_index_folder(sys.argv[1], Manifest(store_class="Test", model_id=None, dimension=None), {"a": [1], "b": [2]})
    """)
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path / "ix")], capture_output=True, text=True,
                            env={**os.environ, "RAG_TEST_CRASH_AT": "mid-write"}, timeout=120)
    assert result.returncode == 0, result.stderr
    assert read_index_folder(tmp_path / "ix").json("b") == [2]
