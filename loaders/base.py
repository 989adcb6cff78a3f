"""The loader interface and the record of sources a multi-source loader could not load."""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from rag import Document

__all__ = ["BaseLoader", "LoadReport", "DocumentSplitter"]


class DocumentSplitter(Protocol):
    """Anything with ``split_documents``, such as the splitters in ``splitters/``."""

    def split_documents(self, documents: list[Document]) -> list[Document]: ...


class BaseLoader(ABC):
    """Turns one or more sources into :class:`Document` objects, lazily.

    Subclasses implement :meth:`lazy_load` only; ``load``, ``alazy_load`` and ``aload`` are
    derived from it. Every document's metadata carries ``source``: the path (or URL) as the
    caller gave it.

    ``accepts_binary`` tells :class:`DirectoryLoader` whether the loader reads binary
    formats (PDF); files of text loaders that start with NUL bytes are skipped instead.

    >>> class OneLine(BaseLoader):
    ...     def lazy_load(self):
    ...         yield Document("hello", {"source": "memory"})
    >>> OneLine().load()[0].page_content
    'hello'
    """

    accepts_binary: ClassVar[bool] = False

    @abstractmethod
    def lazy_load(self) -> Iterator[Document]:
        """Yield documents one at a time; nothing is read before the first is requested."""

    def load(self) -> list[Document]:
        """All documents in a list."""
        return list(self.lazy_load())

    async def alazy_load(self) -> AsyncIterator[Document]:
        """Yield documents without blocking the event loop.

        Each step of :meth:`lazy_load` runs in a worker thread, so file reads and parsing do
        not stall other tasks.
        """
        iterator = self.lazy_load()
        done = object()
        while True:
            document = await asyncio.to_thread(next, iterator, done)
            if document is done:
                return
            yield document  # type: ignore[misc]

    async def aload(self) -> list[Document]:
        """All documents in a list, loaded without blocking the event loop."""
        return [document async for document in self.alazy_load()]

    def load_and_split(self, text_splitter: DocumentSplitter) -> list[Document]:
        """Load, then split with ``text_splitter.split_documents``.

        Unlike LangChain, the splitter is required: loaders never import ``splitters/``.
        """
        return text_splitter.split_documents(self.load())


@dataclass
class LoadReport:
    """What a loader reading many sources skipped on purpose and what failed.

    Each entry is ``(source, message)``. ``skipped`` holds sources left out by policy (a
    binary file where text was expected); ``failed`` holds sources whose loading raised
    while the loader was told to continue, with the message ``"ErrorType: detail"``.
    Both are logged when recorded, so nothing disappears silently.

    >>> report = LoadReport()
    >>> report.record_failure("a.txt", ValueError("bad byte"))
    >>> report.failed
    [('a.txt', 'ValueError: bad byte')]
    """

    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    logger: logging.Logger = field(default=logging.getLogger("loaders"), repr=False, compare=False)

    def record_failure(self, source: str, error: BaseException) -> None:
        """Note that ``source`` failed with ``error`` and log a warning."""
        message = f"{type(error).__name__}: {error}"
        self.logger.warning("Error loading %s: %s", source, message)
        self.failed.append((source, message))

    def record_skip(self, source: str, reason: str) -> None:
        """Note that ``source`` was left out because of ``reason`` and log it."""
        self.logger.info("Skipped %s: %s", source, reason)
        self.skipped.append((source, reason))


class ReportingLoader(BaseLoader):
    """A loader over many sources that continues past failures and says which failed.

    Subclasses set ``self.report = LoadReport(...)`` at the start of each run; ``failed``
    and ``skipped`` read it (lists of ``(source, message)`` for the last run).
    """

    report: LoadReport

    @property
    def failed(self) -> list[tuple[str, str]]:
        """``(source, "ErrorType: message")`` for each source that failed in the last run."""
        return self.report.failed

    @property
    def skipped(self) -> list[tuple[str, str]]:
        """``(source, reason)`` for each source left out on purpose in the last run."""
        return self.report.skipped

