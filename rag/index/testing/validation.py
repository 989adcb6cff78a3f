"""Conformance: bad input is a one-line ValidationError naming the bad value, and leaves
everything stored as it was."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from rag.errors import IndexNotFoundError, ValidationError
from rag.index.testing._support import snapshot

__all__ = ["BadInputTests"]

#: Searches refused, each with the text its message must show.
BAD_SEARCHES = [
    ({"k": 0}, "0"),
    ({"k": -3}, "-3"),
    ({"search_type": "similarty"}, "similarty"),
    ({"search_type": "threshold", "threshold": -0.5}, "-0.5"),
    ({"search_type": "threshold", "threshold": 1.5}, "1.5"),
    ({"search_type": "threshold"}, "threshold"),
    ({"search_type": "similarity", "threshold": 0.5}, "threshold"),
    ({"search_type": "mmr", "lambda_mult": 1.5}, "1.5"),
    ({"search_type": "mmr", "fetch_k": 0}, "fetch_k"),
    ({"filter": {"source": {"$nope": 1}}}, "$nope"),
]


def refused(call: Callable[[], Any], shown: str) -> str:
    """Run ``call``, which must raise a ValidationError whose one-line message shows ``shown``."""
    with pytest.raises(ValidationError) as error:
        call()
    message = str(error.value)
    assert shown in message and "\n" not in message, message
    return message


class BadInputTests:
    """Every refusal comes before anything is read or written."""

    @pytest.fixture
    def changed_docs(self, indexed, docs):
        """The index's files changed since its update (one edited, one deleted, one new):
        an update that ran would change what the index holds."""
        (docs / "fish.md").write_text("Carp swim in muddy rivers.")
        (docs / "dogs.md").unlink()
        (docs / "heron.md").write_text("Herons wade in shallow water.")
        return docs

    @pytest.mark.parametrize("options, shown", BAD_SEARCHES, ids=[shown for _, shown in BAD_SEARCHES])
    def test_a_bad_search_is_refused_naming_the_value_and_changes_nothing(self, indexed, options, shown):
        before = snapshot(indexed)
        refused(lambda: indexed.search("owls hunt at night", **options), shown)
        assert snapshot(indexed) == before

    def test_a_query_that_is_not_a_string_is_refused(self, indexed):
        refused(lambda: indexed.search(None), "None")

    def test_a_misspelt_retriever_key_is_refused_and_changes_nothing(self, indexed):
        before = snapshot(indexed)
        refused(lambda: indexed.as_retriever("mmr", {"k": 3, "fetch_k": 50, "lamda_mult": 0.2}), "lamda_mult")
        assert snapshot(indexed) == before

    def test_a_retrievers_k_of_0_is_refused(self, indexed):
        refused(lambda: indexed.as_retriever("similarity", {"k": 0}), "0")

    def test_asking_with_k_0_is_refused(self, indexed):
        refused(lambda: indexed.ask("Where do goldfish swim?", k=0), "0")

    def test_a_single_string_of_sources_is_refused_and_changes_nothing(self, indexed, changed_docs):
        before = snapshot(indexed)
        refused(lambda: indexed.update(str(changed_docs)), str(changed_docs))
        assert snapshot(indexed) == before

    def test_a_source_that_does_not_exist_is_refused_and_changes_nothing(self, indexed, changed_docs):
        before = snapshot(indexed)
        refused(lambda: indexed.update([str(changed_docs), str(changed_docs / "missing.md")]), "missing.md")
        assert snapshot(indexed) == before

    def test_an_overlap_as_long_as_the_chunks_is_refused_and_changes_nothing(self, indexed, changed_docs):
        before = snapshot(indexed)
        refused(lambda: indexed.update([str(changed_docs)], chunk_size=100, chunk_overlap=100), "100")
        assert snapshot(indexed) == before

    def test_new_chunking_for_some_of_the_roots_only_is_refused_and_changes_nothing(self, indexed, changed_docs,
                                                                                    tmp_path):
        (tmp_path / "extra.md").write_text("Herons wade in shallow water.")
        indexed.update([str(changed_docs), str(tmp_path / "extra.md")])
        before = snapshot(indexed)
        refused(lambda: indexed.update([str(tmp_path / "extra.md")], chunk_size=300, chunk_overlap=0), "300")
        assert snapshot(indexed) == before

    def test_a_single_string_of_exclude_patterns_is_refused_and_changes_nothing(self, indexed, changed_docs):
        before = snapshot(indexed)
        refused(lambda: indexed.update([str(changed_docs)], exclude="*.md"), "*.md")
        assert snapshot(indexed) == before

    def test_zero_workers_is_refused_and_changes_nothing(self, indexed, changed_docs):
        before = snapshot(indexed)
        refused(lambda: indexed.update([str(changed_docs)], workers=0), "0")
        assert snapshot(indexed) == before

    def test_a_chunk_size_of_0_is_refused_when_creating_and_creates_nothing(self, make_index):
        refused(lambda: make_index(chunk_size=0), "0")
        with pytest.raises(IndexNotFoundError):
            make_index.open()
