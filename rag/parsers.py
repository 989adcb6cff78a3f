"""Output parsers: turn a model's message (or text) into the value a chain returns.

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

__all__ = ["BaseOutputParser", "BaseTransformOutputParser", "StrOutputParser"]

T = TypeVar("T")


def _text(value: Any) -> str:
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
        return self._call_traced(lambda value, _cfg: self.parse(_text(value)), input, config)

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> T:
        async def body(value: Any, _cfg: Any) -> T:  # parsing is CPU-only: no worker thread
            return self.parse(_text(value))

        return await self._acall_traced(body, input, config)


def _parse_return_hint(cls: type) -> Any:
    try:
        return typing.get_type_hints(cls.parse).get("return", Any)
    except Exception:  # an unresolvable annotation: no schema rather than an error
        return Any


class BaseTransformOutputParser(BaseOutputParser[T]):
    """A parser that parses each streamed chunk on its own, passing results on at once."""

    def _transform(self, input: Iterator[Any], config: Optional[RunnableConfig] = None) -> Iterator[T]:
        for chunk in input:
            yield self.parse(_text(chunk))

    async def _atransform(self, input: AsyncIterator[Any], config: Optional[RunnableConfig] = None) -> AsyncIterator[T]:
        async for chunk in input:
            yield self.parse(_text(chunk))

    def transform(self, input: Iterator[Any], config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[T]:
        return self._transform_traced(self._transform, input, config)

    async def atransform(
        self, input: AsyncIterator[Any], config: Optional[RunnableConfig] = None, **kwargs: Any
    ) -> AsyncIterator[T]:
        async for chunk in self._atransform_traced(self._atransform, input, config):
            yield chunk

    def stream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[T]:
        return self._stream_traced(lambda value, cfg: self._transform(iter([value]), cfg), input, config)

    async def astream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> AsyncIterator[T]:
        async def once() -> AsyncIterator[Any]:
            yield input

        async for chunk in self._astream_traced(lambda value, cfg: self._atransform(once(), cfg), input, config):
            yield chunk


class StrOutputParser(BaseTransformOutputParser[str]):
    """The text of a message (text blocks joined when content is a list), or a string as
    is. Streams: each message chunk becomes its text at once."""

    def parse(self, text: str) -> str:
        return text

    def __repr__(self) -> str:
        return "StrOutputParser()"
