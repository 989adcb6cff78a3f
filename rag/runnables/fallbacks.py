"""Trying alternatives when a runnable fails (``.with_fallbacks([...])``)."""

from __future__ import annotations

from typing import Any, AsyncIterator, Iterator, Optional, Sequence

from rag.errors import ValidationError
from rag.runnables.base import Runnable, coerce_to_runnable
from rag.runnables.config import RunnableConfig

__all__ = ["RunnableWithFallbacks"]

_NO_CHUNK = object()


class RunnableWithFallbacks(Runnable[Any, Any]):
    """Runs ``runnable``; if it raises one of ``exceptions_to_handle``, tries each of
    ``fallbacks`` in order. If all fail, the first error is raised. With ``exception_key``
    the input must be a dict, and later tries get the last error under that key. A stream
    falls back only until its first chunk; after that an error reaches the caller.

    >>> from rag.runnables import RunnableLambda
    >>> broken = RunnableLambda(lambda x: 1 / 0)
    >>> broken.with_fallbacks([RunnableLambda(lambda x: "fallback")]).invoke(1)
    'fallback'
    """

    def __init__(self, runnable: Runnable, fallbacks: Sequence[Any], *,
                 exceptions_to_handle: tuple[type[BaseException], ...] = (Exception,),
                 exception_key: Optional[str] = None) -> None:
        if isinstance(fallbacks, (str, bytes, dict)) or not isinstance(fallbacks, Sequence) or not fallbacks:
            raise ValidationError(f"with_fallbacks needs a non-empty list of runnables, got {fallbacks!r:.80}")
        self.runnable = coerce_to_runnable(runnable)
        self.fallbacks = [coerce_to_runnable(f) for f in fallbacks]
        self.exceptions_to_handle = exceptions_to_handle
        self.exception_key = exception_key
        self.name = None

    @property
    def runnables(self) -> list[Runnable]:
        return [self.runnable, *self.fallbacks]

    def _with_error(self, input: Any, error: Optional[BaseException]) -> Any:
        if self.exception_key is None:
            return input
        if not isinstance(input, dict):
            raise ValidationError(
                f"with_fallbacks(exception_key={self.exception_key!r}) needs dict inputs, got {type(input).__name__}"
            )
        return {**input, self.exception_key: error} if error is not None else input

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        first_error: Optional[BaseException] = None
        last_error: Optional[BaseException] = None
        for runnable in self.runnables:
            try:
                return runnable.invoke(self._with_error(input, last_error), config, **kwargs)
            except self.exceptions_to_handle as exc:
                first_error = first_error or exc
                last_error = exc
        raise first_error  # type: ignore[misc]

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        first_error: Optional[BaseException] = None
        last_error: Optional[BaseException] = None
        for runnable in self.runnables:
            try:
                return await runnable.ainvoke(self._with_error(input, last_error), config, **kwargs)
            except self.exceptions_to_handle as exc:
                first_error = first_error or exc
                last_error = exc
        raise first_error  # type: ignore[misc]

    def stream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Any]:
        first_error: Optional[BaseException] = None
        last_error: Optional[BaseException] = None
        for runnable in self.runnables:
            stream = runnable.stream(self._with_error(input, last_error), config, **kwargs)
            try:
                first = next(stream, _NO_CHUNK)
            except self.exceptions_to_handle as exc:
                first_error = first_error or exc
                last_error = exc
                continue
            if first is not _NO_CHUNK:
                yield first
                yield from stream
            return
        raise first_error  # type: ignore[misc]

    async def astream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> AsyncIterator[Any]:
        first_error: Optional[BaseException] = None
        last_error: Optional[BaseException] = None
        for runnable in self.runnables:
            stream = runnable.astream(self._with_error(input, last_error), config, **kwargs)
            try:
                first = await anext(stream, _NO_CHUNK)
            except self.exceptions_to_handle as exc:
                first_error = first_error or exc
                last_error = exc
                continue
            if first is not _NO_CHUNK:
                yield first
                async for chunk in stream:
                    yield chunk
            return
        raise first_error  # type: ignore[misc]

    def get_input_jsonschema(self, config: Optional[RunnableConfig] = None) -> dict[str, Any]:
        return self.runnable.get_input_jsonschema(config)

    def get_output_jsonschema(self, config: Optional[RunnableConfig] = None) -> dict[str, Any]:
        return self.runnable.get_output_jsonschema(config)

    def __repr__(self) -> str:
        return f"RunnableWithFallbacks(runnable={self.runnable!r}, fallbacks={self.fallbacks!r})"
