"""Conformance: creating, opening and closing an index at its location."""

from __future__ import annotations

import pytest

from rag.errors import EmbeddingMismatchError, IndexNotFoundError, ValidationError
from rag.index.testing._support import ANIMALS, names, snapshot, source_names

__all__ = ["OpeningTests"]


class OpeningTests:
    """``Index.create``, ``Index.open``, ``Index.open_or_create`` and ``close`` at one location:
    everything an index needs lives there, so its location alone opens it."""

    def test_an_index_opened_again_holds_what_was_written(self, make_index, docs):
        written = make_index()
        written.update([str(docs)])
        expected = snapshot(written)
        written.close()
        assert snapshot(make_index.open()) == expected

    def test_opened_by_its_location_alone_an_index_has_the_settings_it_was_created_with(self, make_index, docs):
        make_index(chunk_size=500, chunk_overlap=50).update([str(docs)])
        facts = make_index.open().info()
        assert (facts.embeddings, facts.chunk_size, facts.chunk_overlap, facts.sources) == ("hashing", 500, 50, 4)

    def test_opened_by_its_location_alone_an_index_has_the_config_it_was_saved_with(self, indexed, make_index):
        assert make_index.open().config == indexed.config

    def test_two_open_indexes_at_one_location_agree(self, indexed, make_index, docs):
        other = make_index.open()
        assert names(other.search("owls hunt at night", k=1)) == ["owls.md"]
        assert source_names(other) == sorted(ANIMALS)

    def test_an_index_opened_after_another_ones_update_sees_it(self, indexed, make_index, docs):
        (docs / "heron.md").write_text("Herons wade in shallow water.")
        indexed.update([str(docs)])
        assert names(make_index.open().search("herons wade", k=1, search_type="bm25")) == ["heron.md"]

    def test_opening_a_missing_index_says_how_to_create_one(self, make_index):
        with pytest.raises(IndexNotFoundError, match="rag index"):
            make_index.open()

    def test_opening_with_other_embeddings_is_refused_naming_both(self, indexed, make_index):
        with pytest.raises(EmbeddingMismatchError, match="hashing") as refused:
            make_index.open(embeddings="local")
        assert "local" in str(refused.value)

    def test_opening_with_the_embeddings_it_was_built_with_is_accepted(self, indexed, make_index):
        assert make_index.open(embeddings="hashing").info().sources == len(ANIMALS)

    def test_open_or_create_opens_an_existing_index(self, indexed, make_index):
        assert source_names(make_index.open_or_create(embeddings="hashing")) == sorted(ANIMALS)

    def test_open_or_create_creates_a_missing_index(self, make_index, docs):
        created = make_index.open_or_create(embeddings="hashing", chunk_size=500, chunk_overlap=50)
        assert created.update([str(docs)]).added == len(ANIMALS)
        assert (make_index.open().info().chunk_size, make_index.open().info().chunk_overlap) == (500, 50)

    def test_open_or_create_with_other_chunking_is_refused_naming_it(self, indexed, make_index):
        before = snapshot(indexed)
        with pytest.raises(ValidationError, match="500") as refused:
            make_index.open_or_create(chunk_size=500)
        assert "1000" in str(refused.value) and "\n" not in str(refused.value)
        assert snapshot(make_index.open()) == before

    def test_creating_an_index_where_one_is_kept_is_refused_and_changes_nothing(self, indexed, make_index):
        before = snapshot(indexed)
        with pytest.raises(ValidationError):
            make_index()
        assert snapshot(make_index.open()) == before

    def test_a_closed_index_can_be_opened_again(self, indexed, make_index):
        indexed.close()
        assert make_index.open().info().sources == len(ANIMALS)
