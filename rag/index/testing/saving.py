"""Conformance: ``save_local(folder)``, a copy of the index in a folder; a backend offers it
(:class:`LocalCopyTests`) or refuses it naming itself (:class:`NoLocalCopyTests`)."""

from __future__ import annotations

import re

import pytest

from rag.errors import UnsupportedOperationError
from rag.index.testing._support import ANIMALS, names, snapshot, source_names

__all__ = ["LocalCopyTests", "NoLocalCopyTests"]


class LocalCopyTests:
    """A backend that can copy an index to a folder: the copy opens as an index of its own."""

    def test_save_local_writes_a_copy_that_opens_as_an_index(self, indexed, tmp_path):
        from rag.index import Index

        indexed.save_local(tmp_path / "copy")
        copy = Index.open(tmp_path / "copy")
        assert source_names(copy) == sorted(ANIMALS) and len(copy) == len(indexed)
        assert names(copy.search("owls hunt at night", k=1)) == ["owls.md"]

    def test_updating_the_copy_leaves_the_index_as_it_was(self, indexed, docs, tmp_path):
        from rag.index import Index

        before = snapshot(indexed)
        indexed.save_local(tmp_path / "copy")
        (docs / "owls.md").unlink()
        assert Index.open(tmp_path / "copy").update([str(docs)]).deleted == 1
        assert snapshot(indexed) == before


class NoLocalCopyTests:
    """A backend that cannot copy an index to a folder says so, naming itself, and changes nothing."""

    def test_save_local_is_refused_naming_the_backend_and_changes_nothing(self, indexed, make_index, tmp_path):
        before = snapshot(indexed)
        with pytest.raises(UnsupportedOperationError) as refused:
            indexed.save_local(tmp_path / "copy")
        assert any(re.search(re.escape(name), str(refused.value), re.IGNORECASE) for name in make_index.names)
        assert not (tmp_path / "copy").exists()
        assert snapshot(indexed) == before
