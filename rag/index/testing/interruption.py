"""Conformance: an update killed part way (kill -9) leaves an index that opens, holds every
source wholly or not at all, and that the next update completes."""

from __future__ import annotations

import signal
import subprocess
import threading
from pathlib import Path

from rag.index.backend import ATOMIC_COMMIT
from rag.index.testing._support import run_python, write_files

__all__ = ["KilledUpdateTests"]

FILES = 300
#: The child is killed once it reports having loaded this many files (of FILES).
KILL_AFTER_LOADING = 60
#: Each paragraph is one chunk: short enough alone, too long with another (chunk_size 200).
CHUNK_SIZE = 200

_UPDATE_REPORTING_PROGRESS = """
import json, sys
from rag.index import Index
spec = json.loads(sys.argv[1])
index = Index.open(spec["target"], **spec["location"])
index.update([sys.argv[2]], progress=lambda stage, done, total: print(stage, done, total, flush=True))
print("finished", flush=True)
"""


def paragraphs(n: int) -> list[str]:
    """The three paragraphs of note ``n``: about 170 characters each, words of their own."""
    return [f"Note {n} part {p}: " + " ".join(f"w{n}x{p}x{i}" for i in range(18)) for p in range(3)]


def notes(folder: Path) -> Path:
    return write_files(folder, {f"note-{n:03d}.md": "\n\n".join(paragraphs(n)) for n in range(FILES)})


def assert_each_source_whole_or_absent(index, expected: dict[str, list[str]], *, strays: bool = True) -> None:
    """Every source ``index`` holds has exactly its expected chunks, and (``strays``) no
    chunk of a source it does not hold is searchable. ``expected``: file name -> chunk
    texts, in order."""
    held = index.sources()
    for source, ids in held.items():
        by_id = {chunk.id: chunk.page_content for chunk in index.get_by_ids(ids)}
        assert [by_id.get(chunk_id) for chunk_id in ids] == expected[Path(source).name], source
    recorded = {chunk_id for ids in held.values() for chunk_id in ids}
    assert len(index) == len(recorded)
    if not strays:
        return
    everything = len(expected) * 3 + 10
    for search_type in ("similarity", "bm25"):
        found = {Path(chunk.metadata["source"]).name for chunk, _ in index.search(
            "note part", k=everything, search_type=search_type) if chunk.id not in recorded}
        assert not found, f"a {search_type} search finds chunks of {len(found)} sources the index does not " \
                          f"hold: {', '.join(sorted(found)[:5])}"


class KilledUpdateTests:
    """``kill -9`` during ``update``: what was committed stays whole, the rest is redone."""

    def test_an_update_killed_part_way_leaves_each_source_whole_or_absent_and_the_next_completes(
            self, make_index, tmp_path):
        seed = write_files(tmp_path / "seed", {"seed.md": "Herons wade in shallow water."})
        make_index(chunk_size=CHUNK_SIZE, chunk_overlap=0).update([str(seed)])  # the index exists before the kill
        docs = notes(tmp_path / "notes")
        expected = {f"note-{n:03d}.md": paragraphs(n) for n in range(FILES)}
        expected["seed.md"] = ["Herons wade in shallow water."]

        with open(tmp_path / "child-stderr.txt", "w") as stderr:
            child = run_python(_UPDATE_REPORTING_PROGRESS, make_index.spec(), str(docs), stdout=subprocess.PIPE,
                               stderr=stderr)
            assert child.stdout is not None
            output = child.stdout
            guard = threading.Timer(300, child.kill)  # against a hang only
            guard.start()
            try:
                for line in output:
                    stage, *counts = line.split()
                    if stage == "finished" or (stage == "load" and int(counts[0]) >= KILL_AFTER_LOADING):
                        break
                child.kill()  # SIGKILL: no handler, no clean-up
                child.wait()
            finally:
                guard.cancel()
                output.close()
        assert child.returncode == -signal.SIGKILL, (tmp_path / "child-stderr.txt").read_text()

        survivor = make_index.open()
        assert "seed.md" in {Path(source).name for source in survivor.sources()}
        # A backend whose commits are not all or nothing (Milvus) may show chunks of the
        # sources its last checkpoint wrote but did not record yet, until the next update.
        assert_each_source_whole_or_absent(survivor, expected,
                                           strays=ATOMIC_COMMIT in survivor.backend.capabilities)

        summary = survivor.update([str(docs)])
        assert summary.failed == []
        assert sorted(Path(source).name for source in survivor.sources()) == sorted(expected)
        assert_each_source_whole_or_absent(survivor, expected)
        assert len(survivor) == FILES * 3 + 1
