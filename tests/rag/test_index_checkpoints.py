"""Indexing that survives: checkpoints, resumption, cheap edits and no-op runs."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from loaders import DirectoryLoader
from rag.embeddings import HashingEmbeddings
from rag.index import Index
from rag.persistence import atomic


class CountingEmbeddings(HashingEmbeddings):
    """Hashing embeddings that count the texts they embed, and can fail after a number."""

    def __init__(self, fail_after: int | None = None) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.fail_after = fail_after

    def embed_documents(self, texts):
        if self.fail_after is not None and len(self.texts) + len(texts) > self.fail_after:
            raise KeyboardInterrupt  # as Ctrl-C would, in the middle of the embedding
        self.texts.extend(texts)
        return super().embed_documents(texts)


def _corpus(folder: Path, files: int = 40, paragraphs: int = 3) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(files):
        text = "\n\n".join(f"File {n} paragraph {p}: " + " ".join(f"word{n}x{p}x{w}" for w in range(30))
                           for p in range(paragraphs))
        (folder / f"doc-{n:03d}.md").write_text(text)
    old = time.time() - 10  # older than the same-second window
    for path in folder.iterdir():
        os.utime(path, (old, old))
    return folder


def _index(path: Path, embeddings: CountingEmbeddings, checkpoint_chunks: int = 16) -> Index:
    index = Index.create(path, embeddings="hashing", chunk_size=200, chunk_overlap=0)
    index.backend._state.embeddings = embeddings  # count what is embedded (same model id as "hashing")
    index.checkpoint_chunks = checkpoint_chunks
    return index


def test_an_interrupted_build_keeps_its_checkpoints_and_a_rerun_embeds_only_the_rest(tmp_path):
    docs = _corpus(tmp_path / "docs")
    interrupted = CountingEmbeddings(fail_after=200)
    with pytest.raises(KeyboardInterrupt):
        _index(tmp_path / "ix", interrupted).update([str(docs)])
    committed = Index.open(tmp_path / "ix")
    assert 0 < len(committed) < 200 + 16
    rerun = CountingEmbeddings()
    committed.backend._state.embeddings = rerun
    summary = committed.update([str(docs)])
    total = len(committed)
    assert summary.unchanged > 0  # the committed files are not embedded again
    assert len(rerun.texts) + len(interrupted.texts) - total <= 16 + 10  # redone: at most one checkpoint's worth
    fresh = Index.create(tmp_path / "fresh", embeddings="hashing", chunk_size=200, chunk_overlap=0)
    fresh.update([str(docs)])
    assert sorted(committed.sources()) == sorted(fresh.sources()) and len(committed) == len(fresh)


def test_editing_one_paragraph_re_embeds_only_the_chunks_whose_text_changed(tmp_path):
    docs = _corpus(tmp_path / "docs", files=3, paragraphs=6)
    index = _index(tmp_path / "ix", CountingEmbeddings())
    index.update([str(docs)])
    path = docs / "doc-001.md"
    text = path.read_text().replace("File 1 paragraph 4:", "File 1 paragraph 4 (edited):")
    path.write_text(text)
    counting = CountingEmbeddings()
    index.backend._state.embeddings = counting
    summary = index.update([str(docs)])
    file_chunks = len(index.sources()[str(path.resolve())])
    assert summary.updated == 1 and 1 <= len(counting.texts) < file_chunks
    assert all("word1x4x" in text for text in counting.texts)  # only the edited paragraph's chunks


def test_a_rerun_with_nothing_changed_reads_no_file_and_writes_nothing(tmp_path, monkeypatch):
    docs = _corpus(tmp_path / "docs", files=10)
    index = _index(tmp_path / "ix", CountingEmbeddings())
    index.update([str(docs)])
    reads, writes = [], []
    real_load, real_write = DirectoryLoader.load_path, atomic._write_file
    monkeypatch.setattr(DirectoryLoader, "load_path", lambda self, path: reads.append(path) or real_load(self, path))
    monkeypatch.setattr(atomic, "_write_file", lambda path, payload: writes.append(path) or real_write(path, payload))
    summary = Index.open(tmp_path / "ix").update([str(docs)])
    assert (summary.unchanged, reads, writes) == (10, [], [])


def test_a_file_edited_in_the_same_second_as_the_last_read_is_read_again(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("first version")
    index = _index(tmp_path / "ix", CountingEmbeddings())
    index.update([str(docs)])
    stat = (docs / "a.md").stat()
    (docs / "a.md").write_text("other version")  # same size; keep the old mtime to fool a stat-only check
    os.utime(docs / "a.md", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert index.update([str(docs)]).updated == 1


def test_a_full_build_writes_at_most_twice_the_final_index_size(tmp_path, monkeypatch):
    docs = _corpus(tmp_path / "docs", files=60)
    written = []
    real_write = atomic._write_file
    monkeypatch.setattr(atomic, "_write_file", lambda path, payload: written.append(len(payload)) or real_write(path, payload))
    index = _index(tmp_path / "ix", CountingEmbeddings(), checkpoint_chunks=20)
    index.update([str(docs)])
    final_size = sum(p.stat().st_size for p in (tmp_path / "ix").rglob("*") if p.is_file())
    assert len(written) > 3 * 10  # many checkpoints were written
    assert sum(written) <= 2 * final_size


def test_chunks_no_longer_indexed_leave_the_folder_when_segments_are_compacted(tmp_path):
    docs = _corpus(tmp_path / "docs", files=20)
    index = _index(tmp_path / "ix", CountingEmbeddings())
    index.update([str(docs)])
    for _ in range(4):  # every chunk replaced several times over
        for path in docs.iterdir():
            path.write_text(path.read_text() + " more")
        index.update([str(docs)])
    stored_rows = sum(part["rows"] for part in index.backend._state.segments)
    assert stored_rows <= 2 * len(index) + 1000
    assert len(Index.open(tmp_path / "ix")) == len(index)


def test_a_file_that_vanishes_mid_run_is_reported_as_failed_and_the_rest_indexed(tmp_path, monkeypatch):
    docs = _corpus(tmp_path / "docs", files=5)
    import rag.index.sources

    real_select = rag.index.sources.select_files

    def select_then_lose_one(*args, **kwargs):  # listed by the walk, gone before it is read
        selection = real_select(*args, **kwargs)
        selection.files.append(docs / "gone.md")
        return selection

    monkeypatch.setattr(rag.index.sources, "select_files", select_then_lose_one)
    summary = _index(tmp_path / "ix", CountingEmbeddings()).update([str(docs)])
    assert summary.added == 5 and [Path(s).name for s, _ in summary.failed] == ["gone.md"]
    assert "FileNotFoundError" in summary.failed[0][1]


def test_an_unreadable_file_is_reported_with_its_cause(tmp_path, monkeypatch):
    docs = _corpus(tmp_path / "docs", files=3)
    real_load = DirectoryLoader.load_path

    def load(self, path):
        if Path(path).name == "doc-001.md":
            raise PermissionError(13, "Permission denied", str(path))
        return real_load(self, path)

    monkeypatch.setattr(DirectoryLoader, "load_path", load)
    summary = _index(tmp_path / "ix", CountingEmbeddings()).update([str(docs)])
    assert summary.added == 2 and "Permission denied" in summary.failed[0][1]


def test_a_full_disk_mid_build_raises_and_keeps_every_earlier_checkpoint(tmp_path, monkeypatch):
    docs = _corpus(tmp_path / "docs", files=40)
    real_write = atomic._write_file
    calls = []

    def fill_up(path, payload):
        calls.append(path)
        if len(calls) > 12:  # a few checkpoints (3 segment files + a manifest each) fit
            raise OSError(28, "No space left on device", str(path))
        real_write(path, payload)

    monkeypatch.setattr(atomic, "_write_file", fill_up)
    with pytest.raises(OSError, match="No space left"):
        _index(tmp_path / "ix", CountingEmbeddings()).update([str(docs)])
    monkeypatch.undo()
    kept = Index.open(tmp_path / "ix")
    assert 0 < len(kept) and len(kept.search("paragraph", k=3)) == 3


def test_a_renamed_file_reuses_its_vectors(tmp_path):
    docs = _corpus(tmp_path / "docs", files=3)
    index = _index(tmp_path / "ix", CountingEmbeddings())
    index.update([str(docs)])
    (docs / "doc-001.md").rename(docs / "renamed.md")
    counting = CountingEmbeddings()
    index.backend._state.embeddings = counting
    summary = index.update([str(docs)])
    assert (summary.added, summary.deleted, counting.texts) == (1, 1, [])


def test_reused_vectors_always_belong_to_their_text(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    paragraphs = [f"Paragraph {n} " + " ".join(f"t{n}w{w}" for w in range(25)) for n in range(6)]
    (docs / "a.md").write_text("\n\n".join(paragraphs))
    (docs / "b.md").write_text("Something else entirely about b.")
    index = _index(tmp_path / "ix", CountingEmbeddings(), checkpoint_chunks=2)
    index.update([str(docs)])
    # a's paragraphs are rewritten (committed first); two of the old ones move into b.
    (docs / "a.md").write_text("\n\n".join(p.replace("Paragraph", "Section") for p in paragraphs))
    (docs / "b.md").write_text("\n\n".join([paragraphs[0], paragraphs[4]]))
    index.update([str(docs)])
    reference = HashingEmbeddings()
    for source in index.sources():
        for chunk in index.backend._state.store.get_by_ids(index.sources()[source]):
            stored = index.backend._state.store.get_vectors_by_ids([chunk.id])[0]
            expected = reference.embed_documents([chunk.page_content])[0]
            assert abs(float(stored @ expected) - 1.0) < 1e-5, chunk.page_content[:40]


def test_new_chunk_settings_re_read_files_whose_stat_is_unchanged(tmp_path):
    docs = _corpus(tmp_path / "docs", files=2)
    index = _index(tmp_path / "ix", CountingEmbeddings())
    index.update([str(docs)])
    summary = index.update([str(docs)], chunk_size=80, chunk_overlap=0)
    assert summary.updated == 2
    assert max(len(chunk.page_content) for chunk in index.backend._state.store.get_by_ids(
        [c for ids in index.sources().values() for c in ids])) <= 80


def test_an_update_ending_on_a_checkpoint_still_writes_bm25_and_compacts(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for version in range(6):
        (docs / "big.md").write_text("\n\n".join(f"v{version} part {n} " + "x" * 150 for n in range(40)))
        index = _index(tmp_path / "ix", CountingEmbeddings(), checkpoint_chunks=8) if version == 0 else Index.open(tmp_path / "ix")
        index.checkpoint_chunks = 8
        index.update([str(docs)])
    reopened = Index.open(tmp_path / "ix")
    assert reopened.info().bm25 and sum(part["rows"] for part in reopened.backend._state.segments) <= 2 * len(reopened) + 1000


def test_a_file_read_soon_after_its_last_edit_is_not_read_again_on_every_run(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("fresh text")  # edited just now: inside the same-second window
    index = _index(tmp_path / "ix", CountingEmbeddings())
    index.update([str(docs)])
    index.update([str(docs)])  # read again (too recent to trust), and its read recorded as later
    real_time = time.time
    monkeypatch.setattr(time, "time", lambda: real_time() + 10)
    reads = []
    real_load = DirectoryLoader.load_path
    monkeypatch.setattr(DirectoryLoader, "load_path", lambda self, path: reads.append(path) or real_load(self, path))
    index.update([str(docs)])
    index.update([str(docs)])
    assert len(reads) <= 1


def test_a_first_build_cut_short_can_be_run_again(tmp_path, monkeypatch):
    docs = _corpus(tmp_path / "docs", files=5)
    real_write = atomic._write_file

    def die_on_second_file(path, payload, calls=[]):
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt
        real_write(path, payload)

    monkeypatch.setattr(atomic, "_write_file", die_on_second_file)
    with pytest.raises(KeyboardInterrupt):
        _index(tmp_path / "ix", CountingEmbeddings()).update([str(docs)])
    monkeypatch.undo()
    assert _index(tmp_path / "ix", CountingEmbeddings()).update([str(docs)]).added == 5


def test_a_no_op_update_reads_no_vectors_or_texts_of_the_index(tmp_path, monkeypatch):
    from rag.index.segments import SegmentFolder

    docs = _corpus(tmp_path / "docs", files=10)
    _index(tmp_path / "ix", CountingEmbeddings()).update([str(docs)])
    reads = []
    real_replay = SegmentFolder.replay
    monkeypatch.setattr(SegmentFolder, "replay", lambda self, segments: reads.append(1) or real_replay(self, segments))
    index = Index.open_or_create(tmp_path / "ix")
    assert index.update([str(docs)]).unchanged == 10 and reads == []
    assert len(index.search("paragraph", k=2)) == 2 and reads == [1]  # read on first need


class _FakeClock:
    """time.monotonic/time.time for rag.index.update, advanced by the embeddings below."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return self.now


def test_a_slow_model_commits_every_few_seconds_of_embedding(tmp_path, monkeypatch):
    import rag.index.update

    clock = _FakeClock()
    monkeypatch.setattr(rag.index.update, "time", clock)

    class SlowEmbeddings(CountingEmbeddings):
        def embed_documents(self, texts):
            clock.now += 1.0 * len(texts)  # one second per chunk
            return super().embed_documents(texts)

    docs = _corpus(tmp_path / "docs", files=60)
    index = _index(tmp_path / "ix", SlowEmbeddings(), checkpoint_chunks=10**6)
    index.checkpoint_seconds = 5.0
    commits = []
    real_commit = index.backend.commit
    monkeypatch.setattr(index.backend, "commit",
                        lambda batch, *args, **kwargs: commits.append(len(batch.ids)) or real_commit(batch, *args, **kwargs))
    index.update([str(docs)])
    assert commits[0] <= 64 + 10  # a first small batch measures the rate
    assert max(commits[1:-1]) <= 5 + 10  # then about five seconds of embedding per checkpoint
