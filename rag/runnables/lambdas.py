"""Functions as runnables: :class:`RunnableLambda` and :class:`RunnableGenerator`."""

from __future__ import annotations

import asyncio
import inspect
import typing
import weakref
from typing import Any, AsyncIterator, Awaitable, Callable, Iterator, Optional

from rag import _callbacks
from rag.errors import ValidationError
from rag.runnables._streams import NOTHING, acollect, collect
from rag.runnables.base import Input, Output, Runnable
from rag.runnables.config import RunnableConfig

__all__ = ["RunnableLambda", "RunnableGenerator", "is_generator_function"]


# inspect.signature costs ~15 µs, paid on every call before: remembered per function (weakly,
# so functions made on the fly are not kept alive).
_TAKES_CONFIG: "weakref.WeakKeyDictionary[Any, bool]" = weakref.WeakKeyDictionary()


def _accepts_config(func: Callable[..., Any]) -> bool:
    try:
        return _TAKES_CONFIG[func]
    except (KeyError, TypeError):  # not seen yet, or not weakly referable (a builtin)
        pass
    try:
        found = "config" in inspect.signature(func).parameters
    except (TypeError, ValueError):  # builtins without a signature
        found = False
    try:
        _TAKES_CONFIG[func] = found
    except TypeError:
        pass
    return found


def is_generator_function(func: Any) -> bool:
    """True for ``def f(...): yield`` and ``async def f(...): yield`` (also as callable objects)."""
    target = func if inspect.isfunction(func) or inspect.ismethod(func) else getattr(func, "__call__", None)
    return inspect.isgeneratorfunction(target) or inspect.isasyncgenfunction(target)


def _call(func: Callable[..., Any], input: Any, config: Optional[RunnableConfig]) -> Any:
    return func(input, config=config or {}) if _accepts_config(func) else func(input)


def _hints(func: Any) -> tuple[Any, Any]:
    """The type hints of ``func``'s first parameter and of its return value (Any if none)."""
    try:
        parameters = list(inspect.signature(func).parameters.values())
        hints = typing.get_type_hints(func)
    except Exception:  # builtins, unresolvable forward references: no schema, not an error
        return Any, Any
    first = hints.get(parameters[0].name, Any) if parameters else Any
    return first, hints.get("return", Any)


def _display_name(func: Any) -> Optional[str]:
    # As LangChain: a lambda gives no name, so the run is named "RunnableLambda".
    name = getattr(func, "__name__", None)
    return None if name == "<lambda>" else name


class RunnableLambda(Runnable[Input, Output]):
    """Wraps a function ``f(input)`` or ``f(input, config)`` (and optionally an async one).

    A function that returns a Runnable has that Runnable invoked on the same input (routing).

    >>> RunnableLambda(lambda x: x + 1).invoke(1)
    2
    """

    def __init__(
        self,
        func: Callable[..., Any],
        afunc: Optional[Callable[..., Awaitable[Any]]] = None,
        name: Optional[str] = None,
    ) -> None:
        if not callable(func):
            raise ValidationError(f"RunnableLambda needs a callable, got {func!r:.80}")
        if afunc is not None and not inspect.iscoroutinefunction(afunc):
            raise ValidationError(f"RunnableLambda's afunc must be an async function, got {afunc!r:.80}")
        if inspect.iscoroutinefunction(func):
            func, afunc = None, func  # type: ignore[assignment]
        self.func = func
        self.afunc = afunc
        self.name = name or _display_name(func or afunc)

    def _body(self, input: Any, config: RunnableConfig) -> Any:
        output = _call(self.func, input, config)
        return output.invoke(input, config) if isinstance(output, Runnable) else output

    async def _abody(self, input: Any, config: RunnableConfig) -> Any:
        if self.afunc is not None:
            output = await _call(self.afunc, input, config)
        else:
            output = await asyncio.to_thread(_call, self.func, input, config)
        return await output.ainvoke(input, config) if isinstance(output, Runnable) else output

    def invoke(self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Output:
        if self.func is None:
            # Only an async function was given: run it on a private event loop.
            return asyncio.run(self.ainvoke(input, config))
        return self._call_traced(self._body, input, config)

    async def ainvoke(self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Output:
        return await self._acall_traced(self._abody, input, config)

    # Streaming yields the one output, but as a streaming run (a stream event with the
    # output before the end event), as LangChain's lambdas do.
    def stream(self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Output]:
        if self.func is None:
            yield self.invoke(input, config)
            return

        def body(value: Any, cfg: RunnableConfig) -> Iterator[Any]:
            with _callbacks.ambient_config(cfg):
                output = self._body(value, cfg)
            return iter([output])

        yield from self._stream_traced(body, input, config)

    async def astream(self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any) -> AsyncIterator[Output]:
        async def body(value: Any, cfg: RunnableConfig) -> AsyncIterator[Any]:
            with _callbacks.ambient_config(cfg):
                output = await self._abody(value, cfg)
            yield output

        async for chunk in self._astream_traced(body, input, config):
            yield chunk

    def _graph_io_names(self) -> tuple[str, str]:
        name = self.get_name()
        return f"{name}_input", f"{name}_output"

    def _input_jsonschema(self) -> dict[str, Any]:
        from rag.runnables.schema import hint_schema

        return hint_schema(_hints(self.func or self.afunc)[0])

    def _output_jsonschema(self) -> dict[str, Any]:
        from rag.runnables.schema import hint_schema

        return hint_schema(_hints(self.func or self.afunc)[1])

    def __repr__(self) -> str:
        return f"RunnableLambda({self.name or '...'})"


class RunnableGenerator(Runnable[Input, Output]):
    """Wraps a generator function from an iterator of input chunks to output chunks, so it
    streams inside a chain (``def f(chunks): for c in chunks: yield c.upper()``). An
    ``async def`` generator works on the async paths. ``invoke`` returns the chunks added up.

    >>> def upper(chunks):
    ...     for chunk in chunks:
    ...         yield chunk.upper()
    >>> list(RunnableGenerator(upper).stream("abc"))
    ['ABC']
    """

    def __init__(
        self,
        transform: Callable[..., Any],
        atransform: Optional[Callable[..., AsyncIterator[Any]]] = None,
        *,
        name: Optional[str] = None,
    ) -> None:
        if not callable(transform):
            raise ValidationError(f"RunnableGenerator needs a generator function, got {transform!r:.80}")
        if inspect.isasyncgenfunction(transform):
            transform, atransform = None, transform  # type: ignore[assignment]
        self._transform = transform
        self._atransform = atransform
        # LangChain names a generator by its function's __name__, "<lambda>" included.
        self.name = name or getattr(transform or atransform, "__name__", None)

    def transform(self, input: Iterator[Input], config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Output]:
        if self._transform is None:
            raise ValidationError(
                f"{self.get_name()} only has an async generator; use astream/ainvoke, or also pass a sync one"
            )
        yield from _call(self._transform, input, config)

    async def atransform(
        self, input: AsyncIterator[Input], config: Optional[RunnableConfig] = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        if self._atransform is not None:
            async for chunk in _call(self._atransform, input, config):
                yield chunk
            return
        # A sync generator on the async path: feed it the collected input and pull each chunk
        # in a worker thread, so chunks still arrive as the generator makes them.
        total = await acollect(input)
        if total is NOTHING:
            return
        iterator = self.transform(iter([total]), config)
        done = object()
        while (chunk := await asyncio.to_thread(next, iterator, done)) is not done:
            yield chunk

    def stream(self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Output]:
        return self._stream_traced(lambda value, cfg: self.transform(iter([value]), cfg), input, config)

    async def astream(self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any) -> AsyncIterator[Output]:
        async def once() -> AsyncIterator[Any]:
            yield input

        async for chunk in self._astream_traced(lambda value, cfg: self.atransform(once(), cfg), input, config):
            yield chunk

    def invoke(self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Output:
        total = collect(self.stream(input, config))
        return None if total is NOTHING else total  # type: ignore[return-value]

    async def ainvoke(self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Output:
        total = await acollect(self.astream(input, config))
        return None if total is NOTHING else total  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"RunnableGenerator({self.name or '...'})"
