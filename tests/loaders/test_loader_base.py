"""BaseLoader's derived methods and LoadReport."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from loaders.base import BaseLoader, LoadReport
from rag import Document


class CountingLoader(BaseLoader):
    """Yields ``count`` documents and records how many were produced so far."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.produced = 0
        self.threads: set[str] = set()

    def lazy_load(self):
        for number in range(self.count):
            self.produced += 1
            self.threads.add(threading.current_thread().name)
            yield Document(f"doc {number}", {"source": "memory", "n": number})


def test_base_loader_cannot_be_built_without_lazy_load() -> None:
    with pytest.raises(TypeError):
        BaseLoader()  # type: ignore[abstract]


def test_load_returns_every_document_in_order() -> None:
    documents = CountingLoader(3).load()
    assert [document.metadata["n"] for document in documents] == [0, 1, 2]


def test_lazy_load_produces_documents_only_when_asked() -> None:
    loader = CountingLoader(5)
    iterator = loader.lazy_load()
    next(iterator)
    assert loader.produced == 1


def test_aload_returns_the_same_documents_as_load() -> None:
    assert asyncio.run(CountingLoader(4).aload()) == CountingLoader(4).load()


def test_alazy_load_runs_the_loader_off_the_event_loop_thread() -> None:
    loader = CountingLoader(2)

    async def collect() -> list[Document]:
        return [document async for document in loader.alazy_load()]

    documents = asyncio.run(collect())
    assert len(documents) == 2
    assert threading.main_thread().name not in loader.threads


def test_alazy_load_can_stop_early_without_loading_everything() -> None:
    loader = CountingLoader(100)

    async def first() -> Document:
        async for document in loader.alazy_load():
            return document
        raise AssertionError("no document")

    assert asyncio.run(first()).page_content == "doc 0"
    assert loader.produced == 1


def test_load_and_split_passes_loaded_documents_to_the_splitter() -> None:
    class HalvingSplitter:
        def split_documents(self, documents):
            return [
                Document(part, dict(document.metadata))
                for document in documents
                for part in document.page_content.split(" ")
            ]

    parts = CountingLoader(2).load_and_split(HalvingSplitter())
    assert [part.page_content for part in parts] == ["doc", "0", "doc", "1"]


def test_load_report_records_failure_with_error_type_and_message() -> None:
    report = LoadReport()
    report.record_failure("a.txt", ValueError("bad byte 0xff"))
    assert report.failed == [("a.txt", "ValueError: bad byte 0xff")]
    assert report.skipped == []


def test_load_report_records_skip_with_reason() -> None:
    report = LoadReport()
    report.record_skip("b.bin", "binary file")
    assert report.skipped == [("b.bin", "binary file")]
    assert report.failed == []


def test_load_report_logs_failures_as_warnings(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="loaders"):
        LoadReport().record_failure("a.txt", OSError("disk gone"))
    assert "a.txt" in caplog.text and "disk gone" in caplog.text
