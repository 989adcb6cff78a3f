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
