"""An index kept in a folder runs the index conformance suite (rag.index.testing)."""

import pytest

from rag.index.testing import IndexConformance, IndexMaker, LocalCopyTests


class TestFolderIndex(IndexConformance, LocalCopyTests):
    @pytest.fixture
    def make_index(self, tmp_path):
        return IndexMaker(tmp_path / "index", names=("folder",))
