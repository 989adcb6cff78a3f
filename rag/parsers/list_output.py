"""List parsers: a model's answer as a list of strings, streamed one item at a time.

>>> CommaSeparatedListOutputParser().invoke("red, green, \\"blue, dark\\"")
['red', 'green', 'blue, dark']
>>> list(CommaSeparatedListOutputParser().transform(iter(["red, gr", "een, blue"])))
[['red'], ['green'], ['blue']]
"""

from __future__ import annotations

import csv
from abc import abstractmethod
from io import StringIO
from typing import Any, AsyncIterator, Iterator, Optional

from rag.parsers.base import BaseTransformOutputParser, text_of
from rag.runnables import RunnableConfig

__all__ = ["ListOutputParser", "CommaSeparatedListOutputParser"]


class ListOutputParser(BaseTransformOutputParser[list[str]]):
    """A parser to a list of strings. Streaming yields each item, as a one-item list, as
    soon as the text after it shows it is complete; the last item when the stream ends."""

    @abstractmethod
    def parse(self, text: str) -> list[str]:
        """The items in ``text``."""

    def _complete_items(self, buffer: str) -> tuple[list[str], str]:
        """Items of ``buffer`` known to be complete, and the text still open."""
        parts = self.parse(buffer)
        if len(parts) > 1:
            return parts[:-1], parts[-1]
        return [], buffer

    def _transform(self, input: Iterator[Any], config: Optional[RunnableConfig] = None) -> Iterator[list[str]]:
        buffer = ""
        for chunk in input:
            done, buffer = self._complete_items(buffer + text_of(chunk))
            yield from ([item] for item in done)
        yield from ([item] for item in self.parse(buffer))

    async def _atransform(self, input: AsyncIterator[Any], config: Optional[RunnableConfig] = None) -> AsyncIterator[list[str]]:
        buffer = ""
        async for chunk in input:
            done, buffer = self._complete_items(buffer + text_of(chunk))
            for item in done:
                yield [item]
        for item in self.parse(buffer):
            yield [item]


class CommaSeparatedListOutputParser(ListOutputParser):
    """Comma-separated values: ``"a, b, c"`` -> ``["a", "b", "c"]``; double quotes keep a
    comma inside an item (CSV rules, spaces after commas skipped), as LangChain's."""

    def parse(self, text: str) -> list[str]:
        try:
            rows = csv.reader(StringIO(text), quotechar='"', delimiter=",", skipinitialspace=True)
            return [item for row in rows for item in row]
        except csv.Error:  # e.g. a NUL character: fall back to a plain split
            return [part.strip() for part in text.split(",")]

    def get_format_instructions(self) -> str:
        """What to tell the model about the output."""
        return "Your response should be a list of comma separated values, eg: `foo, bar, baz` or `foo,bar,baz`"

    def __repr__(self) -> str:
        return "CommaSeparatedListOutputParser()"
