"""Re-indexing a folder after an edit reads only the pages that changed: each page's
record keeps what finding the boilerplate needs (its raw hash and block profiles), and
the boilerplate decided from records and fresh reads equals the one a full read gives."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loaders import DirectoryLoader
from rag.index import Index
from rag.index.site_pages import HASH_PREFIX, plan_folder
from rag.index.state import SourceRecord

OLD = time.time() - 100  # older than the update's same-second guard (see SAME_SECOND)
#: Blocks a page may open or close with; which of them count as boilerplate depends on
#: how many pages carry them.
SHARED = [f"<p>Shared block number {n} that several pages may carry.</p>" for n in range(4)]


def page_html(number: int, top: frozenset[int], bottom: frozenset[int], revision: int = 0) -> str:
    opening = "".join(SHARED[n] for n in sorted(top))
    closing = "".join(SHARED[n] for n in sorted(bottom))
    return (f"<html><title>P{number}</title><body>{opening}<h1>Page {number}</h1>"
            f"<p>Own text of page {number}, revision {revision}.</p>{closing}</body></html>")


def write(folder: Path, number: int, html: str, revision: int = 0) -> Path:
    path = folder / f"p{number}.html"
    path.write_text(html)
    os.utime(path, (OLD + revision, OLD + revision))  # an edit of the same size still changes the stat
    return path


def records(index: Index) -> dict[str, tuple[str, list[str]]]:
    """Each page's content hash and chunk texts (what a re-index must get right)."""
    return {Path(source).name: (record.content_hash,
                                [chunk.page_content for chunk in index.get_by_ids(list(record.chunk_ids))])
            for source, record in index.backend.record.items()}


def counting_loads(monkeypatch) -> list[str]:
    reads: list[str] = []
    real_load = DirectoryLoader.load_path
    monkeypatch.setattr(DirectoryLoader, "load_path", lambda self, path: reads.append(Path(path).name)
                        or real_load(self, path))
    return reads


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    for number in range(8):
        write(root, number, page_html(number, frozenset({0}), frozenset({1, 2}) if number < 4 else frozenset({1})))
    return root


def test_a_one_page_edit_reads_only_that_page(folder, tmp_path, monkeypatch):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(folder)])
    write(folder, 3, page_html(3, frozenset({0}), frozenset({1, 2}), revision=1), revision=1)
    reads = counting_loads(monkeypatch)
    summary = index.update([str(folder)])
    assert reads == ["p3.html"]
    assert (summary.updated, summary.unchanged) == (1, 7)


def test_an_edit_that_changes_the_boilerplate_rereads_the_pages_it_touches(folder, tmp_path, monkeypatch):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(folder)])
    # Block 2 was on 4 of 8 pages (boilerplate: more than 3); on 3 of 8 it no longer is.
    write(folder, 3, page_html(3, frozenset({0}), frozenset({1}), revision=1), revision=1)
    reads = counting_loads(monkeypatch)
    index.update([str(folder)])
    assert sorted(reads) == [f"p{n}.html" for n in range(4)]
    fresh = Index.create(tmp_path / "ix2", embeddings="hashing")
    fresh.update([str(folder)])
    assert records(index) == records(fresh)


def test_a_record_keeps_its_pages_block_profiles_through_json():
    record = SourceRecord("/site", HASH_PREFIX + "ab", ["c1"], "T", (1, 2, 3), 4.0,
                          ("raw", [["0123456789abcdef", "", None], []]))
    assert SourceRecord.from_json(record.to_json()) == record


def test_a_record_saved_without_profiles_loads_as_needing_one_read():
    row = {"root": "/site", "hash": HASH_PREFIX + "ab", "chunks": ["c1"], "title": "T", "stat": [1, 2, 3],
           "read_at": 4.0}
    assert SourceRecord.from_json(row).plan is None
    assert "plan" not in SourceRecord("/site", "h", []).to_json()


def test_after_an_edit_pages_recorded_without_profiles_are_read_and_those_with_them_are_not(folder, tmp_path, monkeypatch):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(folder)])
    state = index.backend.record
    # As an index written before records kept profiles: every page must be read once.
    older = {source: SourceRecord(r.root, r.content_hash, r.chunk_ids, r.title, r.stat, r.read_at)
             for source, r in state.items()}
    files = sorted(folder.glob("*.html"))
    reads: list[str] = []

    def load(path: Path):
        reads.append(path.name)
        return DirectoryLoader(str(folder), silent_errors=True).load_path(path)

    from rag.index.update import _content_hash
    raw_hash = lambda documents: _content_hash(documents, index.config.chunking)  # noqa: E731
    write(folder, 6, page_html(6, frozenset({0}), frozenset({1}), revision=1), revision=1)
    plan_folder(str(folder.resolve()), files, older, rechunk=False, load=load, raw_hash=raw_hash)
    assert len(reads) == 8
    reads.clear()
    plan_folder(str(folder.resolve()), files, state, rechunk=False, load=load, raw_hash=raw_hash)
    assert reads == ["p6.html"]


pages_strategy = st.lists(st.tuples(st.frozensets(st.integers(0, 3)), st.frozensets(st.integers(0, 3))),
                          min_size=2, max_size=7)


@settings(deadline=None, max_examples=12)
@given(pages=pages_strategy, edit=st.data())
def test_the_incremental_plan_after_one_edit_equals_a_full_reindex(pages, edit):
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "site"
        root.mkdir()
        for number, (top, bottom) in enumerate(pages):
            write(root, number, page_html(number, top, bottom))
        updated = Index.create(Path(scratch) / "ix1", embeddings="hashing")
        updated.update([str(root)])
        number = edit.draw(st.integers(0, len(pages) - 1), label="edited page")
        top = edit.draw(st.frozensets(st.integers(0, 3)), label="its new opening blocks")
        bottom = edit.draw(st.frozensets(st.integers(0, 3)), label="its new closing blocks")
        write(root, number, page_html(number, top, bottom, revision=1), revision=1)
        updated.update([str(root)])
        fresh = Index.create(Path(scratch) / "ix2", embeddings="hashing")
        fresh.update([str(root)])
        assert records(updated) == records(fresh)


def test_a_shared_postgres_index_also_reads_only_the_edited_page(folder, postgres_uri, monkeypatch):
    pytest.importorskip("psycopg")
    import uuid

    index = Index.open_or_create(postgres_uri, collection=f"bp-{uuid.uuid4().hex[:10]}", embeddings="hashing")
    try:
        index.update([str(folder)])
        write(folder, 5, page_html(5, frozenset({0}), frozenset({1}), revision=1), revision=1)
        reads = counting_loads(monkeypatch)
        index.update([str(folder)])
        assert reads == ["p5.html"]
    finally:
        index.backend.store.delete_collection()
        index.close()


def test_an_index_whose_records_lack_profiles_reads_its_pages_once_then_only_edited_ones(folder, tmp_path,
                                                                                         monkeypatch):
    from rag.index.site_pages import SitePlan

    index = Index.create(tmp_path / "ix", embeddings="hashing")
    with monkeypatch.context() as older:  # as written before records kept page profiles
        older.setattr(SitePlan, "profile", lambda self, source: None)
        index.update([str(folder)])
    assert all(record.plan is None for record in index.backend.record.values())
    reads = counting_loads(monkeypatch)
    write(folder, 5, page_html(5, frozenset({0}), frozenset({1}), revision=1), revision=1)
    index.update([str(folder)])
    assert len(reads) == 8 and all(record.plan is not None for record in index.backend.record.values())
    reads.clear()
    write(folder, 6, page_html(6, frozenset({0}), frozenset({1}), revision=1), revision=1)
    index.update([str(folder)])
    assert reads == ["p6.html"]
