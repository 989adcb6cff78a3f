"""A large single file is checkpointed as it is embedded: memory holds one batch of its
chunks, an interruption keeps what was committed (every stored chunk still belongs to a
record), and the next update resumes without embedding those chunks again."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.index import Index
from rag.index.update import _FIRST_BATCH

PARAGRAPHS = 400


def _large(path: Path, marker: str = "") -> Path:
    path.write_text("\n\n".join(f"Paragraph {n} {marker} tells of herons number {n} wading slowly."
                                for n in range(PARAGRAPHS)))
    return path


def _index(path: Path) -> Index:
    index = Index.create(path, embeddings="hashing", chunk_size=100, chunk_overlap=0)
    index.checkpoint_chunks, index.checkpoint_seconds = 64, float("inf")
    return index


def _batches(index: Index, stop_after: int = 0) -> list[int]:
    """Record each commit's batch size; raise KeyboardInterrupt at commit ``stop_after``."""
    sizes: list[int] = []
    real = index.backend.commit

    def commit(batch, config, *, final, exclusive):
        if stop_after and len(sizes) + 1 == stop_after:
            raise KeyboardInterrupt
        sizes.append(len(batch.ids))
        return real(batch, config, final=final, exclusive=exclusive)

    index.backend.commit = commit  # type: ignore[method-assign]
    return sizes


def _consistent(index: Index) -> None:
    """Every chunk a record names is stored, with its text."""
    ids = [i for chunk_ids in index.sources().values() for i in chunk_ids]
    assert len(index.get_by_ids(ids)) == len(ids) == len(index)


def test_a_large_file_commits_checkpoints_of_bounded_size_as_it_is_embedded(tmp_path):
    index = _index(tmp_path / "ix")
    sizes = _batches(index)
    summary = index.update([str(_large(tmp_path / "large.md"))])
    assert summary.chunks >= PARAGRAPHS and len(sizes) >= summary.chunks // 64
    assert max(sizes) <= index.checkpoint_chunks + _FIRST_BATCH


def test_an_interrupted_large_file_keeps_its_checkpoints_and_stays_consistent(tmp_path):
    large = _large(tmp_path / "large.md")
    index = _index(tmp_path / "ix")
    _batches(index, stop_after=4)
    with pytest.raises(KeyboardInterrupt):
        index.update([str(large)])
    reopened = Index.open(tmp_path / "ix")
    assert 0 < len(reopened) < PARAGRAPHS
    _consistent(reopened)
    assert "Paragraph 0 " in reopened.search("herons number 0", k=1, search_type="bm25")[0][0].page_content


def test_the_next_update_resumes_without_embedding_the_committed_chunks_again(tmp_path):
    large = _large(tmp_path / "large.md")
    index = _index(tmp_path / "ix")
    _batches(index, stop_after=4)
    with pytest.raises(KeyboardInterrupt):
        index.update([str(large)])
    kept = len(Index.open(tmp_path / "ix"))
    resumed = _index(tmp_path / "ix2")  # the expected end state, built in one go
    whole = resumed.update([str(large)])
    again = Index.open(tmp_path / "ix")
    summary = again.update([str(large)])
    assert summary.chunks == whole.chunks - kept and summary.updated == 1
    assert again.sources()[str(large.resolve())] == resumed.sources()[str(large.resolve())]
    _consistent(again)


def test_an_interrupted_change_of_a_large_file_keeps_old_and_new_chunks_consistent(tmp_path):
    large = _large(tmp_path / "large.md", "old")
    index = _index(tmp_path / "ix")
    index.update([str(large)])
    _large(large, "new")
    _batches(index, stop_after=3)
    with pytest.raises(KeyboardInterrupt):
        index.update([str(large)])
    reopened = Index.open(tmp_path / "ix")
    _consistent(reopened)
    texts = [d.page_content for d in reopened.get_by_ids(reopened.sources()[str(large.resolve())])]
    assert any(" new " in t for t in texts) and any(" old " in t for t in texts)
    Index.open(tmp_path / "ix").update([str(large)])
    final = Index.open(tmp_path / "ix")
    assert all(" old " not in d.page_content for d in final.get_by_ids(final.sources()[str(large.resolve())]))
    _consistent(final)


def test_a_process_killed_inside_a_large_file_keeps_its_checkpoints(tmp_path):
    """A real kill -9 while one file is being embedded (the child's model slowed down so
    that the kill lands inside the file; the test waits on the folder, not on a clock)."""
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    large = _large(tmp_path / "large.md")
    script = f"""
import time
from rag.embeddings import HashingEmbeddings
from rag.index import Index
real = HashingEmbeddings.embed_documents_array
def slow(self, texts):
    time.sleep(0.2)
    return real(self, texts)
HashingEmbeddings.embed_documents_array = slow
index = Index.create({str(tmp_path / 'ix')!r}, embeddings="hashing", chunk_size=100, chunk_overlap=0)
index.checkpoint_chunks, index.checkpoint_seconds = 64, float("inf")
index.update([{str(large)!r}])
"""
    child = subprocess.Popen([sys.executable, "-c", script])
    manifest = tmp_path / "ix" / "manifest.json"
    try:
        for _ in range(6000):  # up to ~10 minutes on a loaded machine; normally a few seconds
            if manifest.exists() and len(json.loads(manifest.read_text())["segments"]) >= 2:
                break
            if child.poll() is not None:
                pytest.fail(f"the child ended (status {child.returncode}) before it committed two checkpoints")
            time.sleep(0.1)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=60)
    interrupted = Index.open(tmp_path / "ix")
    kept = len(interrupted)
    assert 0 < kept < PARAGRAPHS
    _consistent(interrupted)
    summary = _index_reopened(tmp_path / "ix").update([str(large)])
    assert summary.chunks == summary.total_chunks - kept  # only what was not committed is embedded again
    _consistent(Index.open(tmp_path / "ix"))


def _index_reopened(path: Path) -> Index:
    index = Index.open(path)
    index.checkpoint_chunks, index.checkpoint_seconds = 64, float("inf")
    return index
