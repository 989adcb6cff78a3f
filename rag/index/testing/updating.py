"""Conformance: incremental updates (added, unchanged, replaced, deleted, failed) and dry runs."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from rag.index.testing._support import ANIMALS, names, snapshot, source_names, write_files

__all__ = ["UpdateTests", "DryRunTests"]

#: A folder root with a subfolder (for deletions seen from the parent root).
NESTED = {
    "top.md": "Tapirs browse on leaves at the edge of the forest.",
    "sub/a.md": "Axolotls regrow their limbs.",
    "sub/b.md": "Badgers dig setts under hedgerows.",
}
HERONS = json.dumps({"text": "Herons wade in shallow water."})


def _ids_of(index, name: str) -> list[str]:
    [ids] = [ids for source, ids in index.sources().items() if Path(source).name == name]
    return ids


def _age(folder: Path) -> None:
    """Date every file of ``folder`` ten seconds back: older than any same-second window in
    which an index may distrust a file's modification time."""
    old = time.time() - 10
    for path in folder.rglob("*"):
        os.utime(path, (old, old))


class UpdateTests:
    """``update(sources)`` brings the index in line with the files: new ones added, unchanged
    ones skipped, changed ones replaced, vanished ones deleted, failed ones left as they were."""

    def test_a_first_update_adds_every_file(self, index, docs):
        summary = index.update([str(docs)])
        assert (summary.added, summary.updated, summary.unchanged, summary.deleted, summary.failed) == (4, 0, 0, 0, [])
        assert source_names(index) == sorted(ANIMALS)

    def test_the_summary_counts_the_chunks_embedded_and_held(self, index, docs):
        summary = index.update([str(docs)])
        held = sum(len(ids) for ids in index.sources().values())
        assert summary.chunks == summary.total_chunks == len(index) == held >= 4

    def test_a_second_update_skips_every_unchanged_source(self, indexed, docs):
        again = indexed.update([str(docs)])
        assert (again.added, again.updated, again.unchanged, again.deleted, again.chunks) == (0, 0, 4, 0, 0)

    def test_an_update_of_unchanged_sources_changes_nothing_stored(self, indexed, docs):
        before = snapshot(indexed)
        indexed.update([str(docs)])
        assert snapshot(indexed) == before

    def test_a_changed_file_is_replaced(self, indexed, docs):
        (docs / "fish.md").write_text("Carp swim in muddy rivers.")
        summary = indexed.update([str(docs)])
        assert (summary.updated, summary.unchanged) == (1, 3)
        assert names(indexed.search("goldfish", k=4, search_type="bm25")) == []
        assert names(indexed.search("carp rivers", k=1, search_type="bm25")) == ["fish.md"]
        assert [d.page_content for d in indexed.get_by_ids(_ids_of(indexed, "fish.md"))] == [
            "Carp swim in muddy rivers."]

    def test_a_file_that_shrank_keeps_no_stale_chunks(self, index, tmp_path):
        folder = tmp_path / "long"
        folder.mkdir()
        page = folder / "page.md"
        page.write_text("\n\n".join(f"Paragraph {n} about owls and their silent feathers. " * 12 for n in range(6)))
        assert index.update([str(folder)]).chunks > 1
        page.write_text("Owls hunt at night.")
        index.update([str(folder)])
        assert len(index) == 1
        assert [d.page_content for d, _ in index.search("owls", k=10, search_type="bm25")] == ["Owls hunt at night."]
        assert [d.page_content for d, _ in index.search("owls", k=10, search_type="similarity")] == [
            "Owls hunt at night."]

    def test_a_deleted_file_is_deleted(self, indexed, docs):
        (docs / "owls.md").unlink()
        summary = indexed.update([str(docs)])
        assert (summary.deleted, summary.unchanged) == (1, 3)
        assert "owls.md" not in source_names(indexed)
        assert names(indexed.search("owls hunt at night", k=4, search_type="bm25")) == []
        assert "owls.md" not in names(indexed.search("owls hunt at night", k=4, search_type="similarity"))
        assert len(indexed) == sum(len(ids) for ids in indexed.sources().values())

    def test_a_file_that_vanishes_from_a_subfolder_of_a_root_is_deleted(self, index, tmp_path):
        docs = write_files(tmp_path / "docs", NESTED)
        index.update([str(docs)])
        (docs / "sub" / "a.md").unlink()
        summary = index.update([str(docs)])
        assert summary.deleted == 1
        assert source_names(index) == ["b.md", "top.md"]
        assert names(index.search("axolotls regrow limbs", k=4, search_type="bm25")) == []

    def test_a_file_that_vanishes_from_a_subfolder_indexed_first_as_its_own_root_is_deleted_by_an_update_of_the_parent(
            self, index, tmp_path):
        docs = write_files(tmp_path / "docs", NESTED)
        index.update([str(docs / "sub")])
        (docs / "sub" / "a.md").unlink()
        summary = index.update([str(docs)])
        assert (summary.added, summary.deleted) == (1, 1)
        assert source_names(index) == ["b.md", "top.md"]
        assert names(index.search("axolotls regrow limbs", k=4, search_type="bm25")) == []

    def test_a_subfolder_indexed_as_its_own_root_and_then_with_its_parent_holds_each_file_once(self, index, tmp_path):
        docs = write_files(tmp_path / "docs", NESTED)
        index.update([str(docs / "sub")])
        summary = index.update([str(docs)])
        assert (summary.added, summary.unchanged) == (1, 2)
        assert source_names(index) == ["a.md", "b.md", "top.md"]
        assert len(index) == 3
        assert names(index.search("badgers dig setts", k=4, search_type="bm25")) == ["b.md"]

    def test_a_root_left_out_of_an_update_keeps_its_sources(self, index, tmp_path):
        left = write_files(tmp_path / "left", {"owls.md": ANIMALS["owls.md"]})
        right = write_files(tmp_path / "right", {"fish.md": ANIMALS["fish.md"], "dogs.md": ANIMALS["dogs.md"]})
        index.update([str(left), str(right)])
        (right / "dogs.md").unlink()
        summary = index.update([str(left)])
        assert (summary.unchanged, summary.deleted) == (1, 0)
        assert source_names(index) == ["dogs.md", "fish.md", "owls.md"]

    def test_a_source_that_fails_to_load_keeps_what_the_index_held_of_it(self, index, tmp_path):
        docs = write_files(tmp_path / "docs", {"owls.md": ANIMALS["owls.md"], "notes.json": HERONS})
        index.update([str(docs)])
        (docs / "notes.json").write_text("{not json")
        summary = index.update([str(docs)])
        assert [Path(source).name for source, _ in summary.failed] == ["notes.json"]
        assert (summary.deleted, summary.updated) == (0, 0)
        assert source_names(index) == ["notes.json", "owls.md"]
        assert names(index.search("herons wade", k=1, search_type="bm25")) == ["notes.json"]

    def test_a_root_where_nothing_could_be_read_deletes_nothing_under_it(self, index, tmp_path):
        docs = write_files(tmp_path / "docs", {"owls.md": ANIMALS["owls.md"], "notes.json": HERONS})
        index.update([str(docs)])
        (docs / "owls.md").unlink()
        (docs / "notes.json").write_text("{not json")
        summary = index.update([str(docs)])
        assert [Path(source).name for source, _ in summary.failed] == ["notes.json"]
        assert summary.deleted == 0
        assert source_names(index) == ["notes.json", "owls.md"]
        assert names(index.search("owls hunt at night", k=1, search_type="bm25")) == ["owls.md"]

    def test_a_renamed_file_is_held_under_its_new_name_only(self, indexed, docs):
        (docs / "owls.md").rename(docs / "birds.md")
        summary = indexed.update([str(docs)])
        assert (summary.added, summary.deleted) == (1, 1)
        assert source_names(indexed) == ["birds.md", "cats.md", "dogs.md", "fish.md"]
        assert names(indexed.search("owls hunt at night", k=4, search_type="bm25")) == ["birds.md"]

    def test_a_renamed_file_keeps_its_vectors(self, indexed, docs, monkeypatch):
        embedded: list[str] = []
        real = indexed.embeddings.embed_documents

        def counting(texts):
            embedded.extend(texts)
            return real(texts)

        monkeypatch.setattr(indexed.embeddings, "embed_documents", counting)
        (docs / "owls.md").rename(docs / "barn-owls.md")
        summary = indexed.update([str(docs)])
        assert (summary.added, summary.deleted, embedded) == (1, 1, [])
        assert names(indexed.search("owls hunt at night", k=1, search_type="similarity")) == ["barn-owls.md"]

    def test_an_unchanged_file_is_not_read_again_by_the_next_update(self, index, docs, monkeypatch):
        import rag.index.sources

        _age(docs)
        index.update([str(docs)])

        def unread(*args, **kwargs):
            raise AssertionError("an unchanged file was read again")

        monkeypatch.setattr(rag.index.sources.DirectoryLoader, "load_path", unread)
        summary = index.update([str(docs)])
        assert (summary.unchanged, summary.failed) == (4, [])

    def test_an_update_embedding_in_worker_processes_adds_every_file(self, index, docs):
        summary = index.update([str(docs)], workers=2)
        assert (summary.added, summary.failed) == (4, [])
        assert names(index.search("owls hunt at night", k=1)) == ["owls.md"]

    def test_excluded_files_are_left_out(self, index, docs):
        index.update([str(docs)], exclude=["dogs.md", "cats.*"])
        assert source_names(index) == ["fish.md", "owls.md"]

    def test_a_glob_takes_only_the_files_it_matches(self, index, docs):
        (docs / "notes.txt").write_text("Herons wade in shallow water.")
        index.update([str(docs)], glob="*.txt")
        assert source_names(index) == ["notes.txt"]

    def test_an_update_with_new_chunk_settings_rechunks_every_source(self, index, tmp_path):
        docs = write_files(tmp_path / "docs", {
            "long.md": "\n\n".join(f"Paragraph {n} about owls and their silent feathers." for n in range(12)),
            "owls.md": ANIMALS["owls.md"]})
        index.update([str(docs)])
        summary = index.update([str(docs)], chunk_size=120, chunk_overlap=0)
        assert (summary.updated, summary.unchanged) == (2, 0)
        assert (index.info().chunk_size, index.info().chunk_overlap) == (120, 0)
        chunks = index.get_by_ids([i for ids in index.sources().values() for i in ids])
        assert len(chunks) == len(index) > 2 and all(len(chunk.page_content) <= 120 for chunk in chunks)

    def test_progress_is_reported_while_loading(self, index, docs):
        calls = []
        index.update([str(docs)], progress=lambda stage, done, total: calls.append((stage, done, total)))
        assert ("load", 4, 4) in calls


class DryRunTests:
    """``dry_run(sources)`` says what an update would read, and writes nothing."""

    def test_a_dry_run_of_a_new_index_counts_every_file_and_writes_nothing(self, index, docs):
        planned = index.dry_run([str(docs)])
        assert (planned.files, planned.unchanged) == (4, 0)
        assert index.sources() == {} and len(index) == 0

    def test_a_dry_run_leaves_out_files_the_index_holds_as_they_are(self, index, docs):
        _age(docs)
        index.update([str(docs)])
        (docs / "heron.md").write_text("Herons wade in shallow water.")
        before = snapshot(index)
        planned = index.dry_run([str(docs)])
        assert (planned.files, planned.unchanged) == (1, 4)
        assert snapshot(index) == before
