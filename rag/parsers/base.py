"""The output parser bases, and the plain-text parser.

>>> from rag.messages import AIMessage, AIMessageChunk
>>> StrOutputParser().invoke(AIMessage("Paris."))
'Paris.'
>>> list(StrOutputParser().transform(iter([AIMessageChunk("Pa"), AIMessageChunk("ris")])))
['Pa', 'ris']
"""

from __future__ import annotations

import typing
from abc import abstractmethod
from typing import Any, AsyncIterator, Generic, Iterator, Optional, TypeVar

from rag.errors import ValidationError
from rag.messages import BaseMessage
from rag.runnables import Runnable, RunnableConfig
from rag.runnables._streams import Chunkwise

__all__ = ["BaseOutputParser", "BaseTransformOutputParser", "BaseCumulativeTransformOutputParser", "StrOutputParser"]

T = TypeVar("T")


def text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseMessage):
        return value.text
    raise ValidationError(
        f"an output parser takes a message or a str, got {type(value).__name__}: {value!r:.60}"
    )


class BaseOutputParser(Runnable[Any, T], Generic[T]):
    """A parser implements :meth:`parse` (text to value); ``invoke`` accepts a message or a
    string and runs ``parse`` on its text."""

    _run_type = "parser"

    def _input_jsonschema(self) -> dict[str, Any]:
        from rag.runnables.schema import PARSER_INPUT_SCHEMA

        return PARSER_INPUT_SCHEMA

    def _output_jsonschema(self) -> dict[str, Any]:
        from rag.runnables.schema import hint_schema

        return hint_schema(_parse_return_hint(type(self)))

    @abstractmethod
    def parse(self, text: str) -> T:
        """The value in ``text``."""

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> T:
        return self._call_traced(lambda value, _cfg: self.parse(text_of(value)), input, config)

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> T:
        async def body(value: Any, _cfg: Any) -> T:  # parsing is CPU-only: no worker thread
            return self.parse(text_of(value))

        return await self._acall_traced(body, input, config)


def _parse_return_hint(cls: type) -> Any:
    try:
        return typing.get_type_hints(cls.parse).get("return", Any)
    except Exception:  # an unresolvable annotation: no schema rather than an error
        return Any


class BaseTransformOutputParser(Chunkwise, BaseOutputParser[T]):
    """A parser that parses each streamed chunk on its own, passing results on at once."""

    def _transform(self, input: Iterator[Any], config: Optional[RunnableConfig] = None) -> Iterator[T]:
        for chunk in input:
            yield self.parse(text_of(chunk))

    async def _atransform(self, input: AsyncIterator[Any], config: Optional[RunnableConfig] = None) -> AsyncIterator[T]:
        async for chunk in input:
            yield self.parse(text_of(chunk))


class BaseCumulativeTransformOutputParser(BaseTransformOutputParser[T]):
    """A parser that streams its reading of *all the text so far*, each time it changes.

    Subclasses implement :meth:`parse_partial` (None while nothing can be read yet) and, for
    ``diff=True``, :meth:`_diff`. Streaming yields the cumulative value, or with ``diff``
    what changed since the previous one; the value is yielded only when it differs from
    the last one yielded (LangChain's ``BaseCumulativeTransformOutputParser``).
    """

    diff: bool = False

    @property
    def _chunks_are_snapshots(self) -> bool:
        # Each streamed value replaces the previous one (diffs add up): traces report the last.
        return not self.diff

    def parse_partial(self, text: str) -> Optional[T]:
        """The value read from the incomplete ``text``, or None if none can be yet."""
        raise NotImplementedError(f"{type(self).__name__} must implement parse_partial")

    def _diff(self, previous: Optional[T], current: T) -> Any:
        """What changed from ``previous`` (None at first) to ``current``."""
        raise NotImplementedError(f"{type(self).__name__} does not stream diffs")

    def _step(self, text: str, previous: Any) -> Any:
        parsed = self.parse_partial(text)
        if parsed is None or parsed == previous:
            return _UNCHANGED
        return parsed

    def _transform(self, input: Iterator[Any], config: Optional[RunnableConfig] = None) -> Iterator[Any]:
        text, previous = "", None
        for chunk in input:
            text += text_of(chunk)
            parsed = self._step(text, previous)
            if parsed is not _UNCHANGED:
                yield self._diff(previous, parsed) if self.diff else parsed
                previous = parsed

    async def _atransform(self, input: AsyncIterator[Any], config: Optional[RunnableConfig] = None) -> AsyncIterator[Any]:
        text, previous = "", None
        async for chunk in input:
            text += text_of(chunk)
            parsed = self._step(text, previous)
            if parsed is not _UNCHANGED:
                yield self._diff(previous, parsed) if self.diff else parsed
                previous = parsed


_UNCHANGED = object()


class StrOutputParser(BaseTransformOutputParser[str]):
    """The text of a message (text blocks joined when content is a list), or a string as
    is. Streams: each message chunk becomes its text at once."""

    def parse(self, text: str) -> str:
        return text

    def __repr__(self) -> str:
        return "StrOutputParser()"
