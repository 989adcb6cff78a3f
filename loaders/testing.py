"""A conformance suite every loader's tests inherit (needs pytest; import it from tests only).

Subclass :class:`LoaderConformance` in a test module and override two fixtures:
``loader`` (a loader over a real source made in ``tmp_path``) and ``missing_loader`` (the
same kind of loader pointed at a path that does not exist, returned with that path).

>>> class TestTextLoaderConformance(LoaderConformance):  # doctest: +SKIP
...     @pytest.fixture
...     def loader(self, tmp_path):
...         (tmp_path / "a.txt").write_text("hello")
...         return TextLoader(str(tmp_path / "a.txt"))
...     @pytest.fixture
...     def missing_loader(self, tmp_path):
...         path = str(tmp_path / "absent.txt")
...         return TextLoader(path), path
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from loaders.base import BaseLoader
from rag import Document

__all__ = ["LoaderConformance"]


class LoaderConformance:
    """Behaviour shared by every loader: laziness, sync/async agreement, ``source``."""

    @pytest.fixture
    def loader(self, tmp_path) -> BaseLoader:  # pragma: no cover - always overridden
        raise NotImplementedError("override the 'loader' fixture")

    @pytest.fixture
    def missing_loader(self, tmp_path) -> tuple[BaseLoader, str]:  # pragma: no cover
        raise NotImplementedError("override the 'missing_loader' fixture")

    def test_lazy_load_returns_an_iterator_of_documents(self, loader: BaseLoader) -> None:
        documents = loader.lazy_load()
        assert isinstance(documents, Iterator)
        items = list(documents)
        assert items, "the fixture's source should produce at least one document"
        assert all(isinstance(item, Document) for item in items)

    def test_load_returns_the_documents_of_lazy_load(self, loader: BaseLoader) -> None:
        assert loader.load() == list(loader.lazy_load())

    def test_aload_returns_the_documents_of_load(self, loader: BaseLoader) -> None:
        assert asyncio.run(loader.aload()) == loader.load()

    def test_every_document_carries_a_string_source(self, loader: BaseLoader) -> None:
        for document in loader.load():
            assert isinstance(document.metadata.get("source"), str)

    def test_metadata_is_json_serializable(self, loader: BaseLoader) -> None:
        # Vector stores persist metadata as JSON.
        for document in loader.load():
            json.dumps(document.metadata)

    def test_nothing_is_read_before_the_first_document_is_requested(
        self, missing_loader: tuple[BaseLoader, str]
    ) -> None:
        loader, _ = missing_loader
        loader.lazy_load()  # must not raise: the source is only opened on iteration

    def test_missing_source_raises_file_not_found_naming_it(
        self, missing_loader: tuple[BaseLoader, str]
    ) -> None:
        loader, path = missing_loader
        with pytest.raises(FileNotFoundError) as caught:
            loader.load()
        assert path in str(caught.value)
