"""Conformance: what an index says about itself (``info``, ``sources``, ``len``, ``where``)
and reading chunks by id."""

from __future__ import annotations

from pathlib import Path

from rag.index.testing._support import ANIMALS, source_names

__all__ = ["InfoTests", "ReadingTests"]


class InfoTests:
    """``info()``: sources, chunks, embeddings, chunking and roots, as of the last update."""

    def test_info_counts_the_sources_and_chunks_after_an_update(self, indexed):
        facts = indexed.info()
        assert facts.sources == len(ANIMALS)
        assert facts.chunks == len(indexed) == sum(len(ids) for ids in indexed.sources().values())

    def test_info_counts_what_is_left_after_a_deletion(self, indexed, docs):
        (docs / "owls.md").unlink()
        indexed.update([str(docs)])
        assert (indexed.info().sources, indexed.info().chunks) == (len(ANIMALS) - 1, len(indexed))

    def test_info_of_a_new_index_counts_nothing(self, index):
        assert (index.info().sources, index.info().chunks, len(index)) == (0, 0, 0)

    def test_info_names_the_embeddings_and_the_chunking_the_index_was_created_with(self, make_index, docs):
        index = make_index(chunk_size=500, chunk_overlap=50)
        index.update([str(docs)])
        facts = index.info()
        assert (facts.embeddings, facts.chunk_size, facts.chunk_overlap) == ("hashing", 500, 50)
        assert facts.dimension == len(index.embeddings.embed_query("owls"))

    def test_info_names_the_roots_updated(self, index, docs, tmp_path):
        (tmp_path / "extra.md").write_text("Herons wade in shallow water.")
        index.update([str(docs), str(tmp_path / "extra.md")])
        assert sorted(Path(root).name for root in index.info().roots) == ["docs", "extra.md"]

    def test_info_is_plain_data_for_json(self, indexed):
        facts = indexed.info().to_json()
        assert (facts["sources"], facts["chunks"], facts["embeddings"]) == (len(ANIMALS), len(indexed), "hashing")


class ReadingTests:
    """``sources()``, ``get_by_ids(ids)``, ``len(index)`` and ``where``."""

    def test_sources_maps_each_source_to_the_ids_of_its_chunks(self, indexed, docs):
        held = indexed.sources()
        assert sorted(held) == sorted(str(docs / name) for name in ANIMALS)
        for source, ids in held.items():
            assert ids and {d.metadata["source"] for d in indexed.get_by_ids(ids)} == {source}

    def test_get_by_ids_returns_the_stored_chunks_and_skips_unknown_ids(self, indexed, docs):
        [ids] = [ids for source, ids in indexed.sources().items() if Path(source).name == "fish.md"]
        found = indexed.get_by_ids([*ids, "no-such-chunk"])
        assert [(d.id, d.page_content) for d in found] == [(ids[0], ANIMALS["fish.md"])]

    def test_len_is_the_number_of_chunks_held(self, index, docs):
        assert len(index) == 0
        index.update([str(docs)])
        assert len(index) == len(ANIMALS)  # each file is one chunk at the default chunking

    def test_where_names_the_index_and_never_a_password(self, make_index):
        index = make_index()
        assert make_index.shown in index.where
        if make_index.secret is not None:
            assert make_index.secret not in index.where

    def test_sources_names_are_the_files_updated(self, indexed):
        assert source_names(indexed) == sorted(ANIMALS)
