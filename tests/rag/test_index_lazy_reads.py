"""An index that has not read its store yet (a build streams its checkpoints; an update opens
lazily): searches during and after updates, here and by other processes."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from rag.index import Index


def _big_file(path: Path, chunks: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n\n".join(f"paragraph {n} about alpha word{n}" for n in range(chunks)))
    old = time.time() - 10
    os.utime(path, (old, old))
    return path


def test_an_index_built_here_still_searches_after_another_writer_compacts(tmp_path):
    docs = tmp_path / "docs"
    big = _big_file(docs / "big.md", 1100)
    small = _big_file(docs / "small.md", 3)
    writer = Index.create(tmp_path / "ix", embeddings="hashing", chunk_size=40, chunk_overlap=0)
    writer.update([str(docs)])
    assert len(writer) > 1000
    other = Index.open(tmp_path / "ix")
    big.unlink()
    other.update([str(docs)])  # deletes > 1000 chunks: compacts, dropping the old segments
    # The first object serves the version it committed (or the newer one): never an error.
    results = writer.search("alpha", k=2)
    assert results


def _corpus(folder: Path, files: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(files):
        (folder / f"doc-{n:03d}.md").write_text("\n\n".join(
            f"File {n} paragraph {p} about alpha " + " ".join(f"w{n}x{p}x{w}" for w in range(20)) for p in range(3)))
    old = time.time() - 10
    for path in folder.iterdir():
        os.utime(path, (old, old))
    return folder


def test_searches_during_an_update_see_committed_chunks_only(tmp_path):
    docs = _corpus(tmp_path / "docs", 12)
    index = Index.create(tmp_path / "ix", embeddings="hashing", chunk_size=200, chunk_overlap=0)
    index.checkpoint_chunks = 8
    seen = []

    def progress(stage, done, total):
        if stage == "embed":
            sources = index.sources()
            ids = {i for chunk_ids in sources.values() for i in chunk_ids}
            for search_type in ("hybrid", "bm25", "similarity"):
                found = [(d.id, round(s, 6)) for d, s in index.search("alpha w5x1x3", k=50, search_type=search_type)]
                assert {i for i, _ in found} <= ids
                if ids:
                    cold = Index.open(tmp_path / "ix").search("alpha w5x1x3", k=50, search_type=search_type)
                    assert found == [(d.id, round(s, 6)) for d, s in cold], search_type
            seen.append(len(ids))

    index.update([str(docs)], progress=progress)
    assert seen[0] == 0 and seen[-1] > 0
    (docs / "doc-003.md").write_text("rewritten alpha text")
    (docs / "doc-004.md").unlink()
    seen.clear()
    index.update([str(docs)], progress=progress)
    reopened = Index.open(tmp_path / "ix")
    for search_type in ("hybrid", "bm25", "similarity"):
        warm = [(d.id, round(s, 6)) for d, s in index.search("alpha w5x1x3", k=10, search_type=search_type)]
        cold = [(d.id, round(s, 6)) for d, s in reopened.search("alpha w5x1x3", k=10, search_type=search_type)]
        assert warm == cold


def test_a_failed_checkpoint_of_a_streaming_build_leaves_memory_as_on_disk(tmp_path, monkeypatch):
    from rag.index.segments import SegmentFolder

    docs = _corpus(tmp_path / "docs", 12)
    index = Index.create(tmp_path / "ix", embeddings="hashing", chunk_size=200, chunk_overlap=0)
    index.checkpoint_chunks = 8
    calls = []
    real = SegmentFolder.write_manifest

    def flaky(self, data):
        calls.append(1)
        if len(calls) == 3:
            raise OSError("disk full")
        real(self, data)

    monkeypatch.setattr(SegmentFolder, "write_manifest", flaky)
    with pytest.raises(OSError):
        index.update([str(docs)])
    on_disk = Index.open(tmp_path / "ix")
    assert index.sources() == on_disk.sources()
    assert [d.id for d, _ in index.search("alpha", k=50, search_type="bm25")] == \
        [d.id for d, _ in on_disk.search("alpha", k=50, search_type="bm25")]
    summary = index.update([str(docs)])
    assert summary.total_chunks == len(Index.open(tmp_path / "ix"))
    assert [d.id for d, _ in index.search("alpha", k=50, search_type="bm25")] == \
        [d.id for d, _ in Index.open(tmp_path / "ix").search("alpha", k=50, search_type="bm25")]


def test_a_search_that_arrives_while_a_checkpoint_is_saved_never_rolls_the_update_back(tmp_path, monkeypatch):
    """A streaming build's state has not read its store; a search arriving just after a
    checkpoint's manifest swap (before the state knows its new version) must not read the
    folder and put what it read in place of the state the update goes on committing to."""
    import threading

    import rag.index.backend_folder
    from rag.index.segments import SegmentFolder
    from rag.index.state import IndexState

    docs = _corpus(tmp_path / "docs", 12)
    index = Index.create(tmp_path / "ix", embeddings="hashing", chunk_size=200, chunk_overlap=0)
    index.checkpoint_chunks, index.checkpoint_seconds = 8, float("inf")
    real_write, real_load, real_commit = SegmentFolder.write_manifest, IndexState.load, index.backend.commit
    manifests, commits = [], []
    next_commit_done, searcher_read = threading.Event(), threading.Event()
    searches: list[BaseException] = []

    def slow_load(*args, **kwargs):  # the searcher's read of the folder takes a while
        state = real_load(*args, **kwargs)
        searcher_read.set()
        next_commit_done.wait(30)
        return state

    def search():
        try:
            index.search("alpha", k=3)
        except BaseException as exc:
            searches.append(exc)

    searcher = threading.Thread(target=search)

    def write_manifest(self, data):
        real_write(self, data)
        manifests.append(1)
        if len(manifests) == 2:  # a search arrives right after the second checkpoint's swap
            monkeypatch.setattr(rag.index.backend_folder.IndexState, "load", slow_load)
            searcher.start()
            searcher_read.wait(1)

    def commit(batch, config, *, final, exclusive):
        real_commit(batch, config, final=final, exclusive=exclusive)
        commits.append(1)
        if len(commits) == 3:
            next_commit_done.set()

    monkeypatch.setattr(SegmentFolder, "write_manifest", write_manifest)
    monkeypatch.setattr(index.backend, "commit", commit)
    index.update([str(docs)])
    next_commit_done.set()
    searcher.join(30)
    assert searches == [] and len(commits) > 3
    assert index.sources() == Index.open(tmp_path / "ix").sources()
    assert len(Index.open(tmp_path / "ix").sources()) == 12
