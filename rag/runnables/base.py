"""Runnables: the composable unit of work (a minimal LCEL core; a later issue extends it).

A :class:`Runnable` implements :meth:`Runnable.invoke`; ``ainvoke``, ``batch``, ``abatch``,
``stream`` and ``astream`` are derived from it. ``a | b`` composes two runnables (or a
runnable and a callable) into a :class:`RunnableSequence`. Every method takes an optional
``config`` dict (:class:`RunnableConfig`) that is passed down the chain unchanged.
"""

from __future__ import annotations

import asyncio
import inspect
from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor
from typing import (
    Any,
    AsyncIterator,
    Awaitable,
    Callable,
    Generic,
    Iterator,
    Optional,
    Sequence,
    TypedDict,
    TypeVar,
    Union,
)

from rag.errors import ValidationError

__all__ = ["Runnable", "RunnableLambda", "RunnableSequence", "RunnableConfig", "coerce_to_runnable"]

Input = TypeVar("Input")
Output = TypeVar("Output")


class RunnableConfig(TypedDict, total=False):
    """Options passed down a chain: all keys optional."""

    callbacks: list[Any]
    tags: list[str]
    metadata: dict[str, Any]
    max_concurrency: Optional[int]
    run_name: str


def _max_workers(config: Optional[RunnableConfig], count: int) -> int:
    limit = (config or {}).get("max_concurrency")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValidationError(f"max_concurrency must be a positive int or None, got {limit!r}")
    return max(1, min(count, limit or count))


def _per_input(config: Union[RunnableConfig, Sequence[RunnableConfig], None], count: int) -> list:
    if config is None or isinstance(config, dict):
        return [config] * count
    configs = list(config)
    if len(configs) != count:
        raise ValidationError(f"got {len(configs)} configs for {count} inputs; pass one or one per input")
    return configs


class Runnable(ABC, Generic[Input, Output]):
    """A unit of work with sync, async, batch and streaming entry points."""

    name: Optional[str] = None

    @abstractmethod
    def invoke(self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Output:
        """Run on one input."""

    async def ainvoke(self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Output:
        """Run on one input without blocking the event loop (a worker thread by default)."""
        return await asyncio.to_thread(self.invoke, input, config, **kwargs)

    def batch(
        self,
        inputs: Sequence[Input],
        config: Union[RunnableConfig, Sequence[RunnableConfig], None] = None,
        **kwargs: Any,
    ) -> list[Output]:
        """Run on many inputs concurrently (threads, at most ``max_concurrency``); keeps order."""
        inputs = list(inputs)
        if not inputs:
            return []
        configs = _per_input(config, len(inputs))
        workers = _max_workers(configs[0], len(inputs))
        if workers == 1:
            return [self.invoke(item, cfg, **kwargs) for item, cfg in zip(inputs, configs)]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(lambda pair: self.invoke(pair[0], pair[1], **kwargs), zip(inputs, configs)))

    async def abatch(
        self,
        inputs: Sequence[Input],
        config: Union[RunnableConfig, Sequence[RunnableConfig], None] = None,
        **kwargs: Any,
    ) -> list[Output]:
        """Async :meth:`batch`: at most ``max_concurrency`` inputs in flight; keeps order."""
        inputs = list(inputs)
        if not inputs:
            return []
        configs = _per_input(config, len(inputs))
        gate = asyncio.Semaphore(_max_workers(configs[0], len(inputs)))

        async def one(item: Input, cfg: Optional[RunnableConfig]) -> Output:
            async with gate:
                return await self.ainvoke(item, cfg, **kwargs)

        return list(await asyncio.gather(*(one(i, c) for i, c in zip(inputs, configs))))

    def stream(self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Output]:
        """Yield the output in pieces; by default the whole output as one piece."""
        yield self.invoke(input, config, **kwargs)

    async def astream(
        self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async :meth:`stream`."""
        yield await self.ainvoke(input, config, **kwargs)

    def pipe(self, *others: Any) -> "RunnableSequence":
        """``self | others[0] | others[1] ...``."""
        return RunnableSequence(self, *others)

    def __or__(self, other: Any) -> "RunnableSequence":
        return RunnableSequence(self, other)

    def __ror__(self, other: Any) -> "RunnableSequence":
        return RunnableSequence(other, self)

    def get_name(self) -> str:
        return self.name or type(self).__name__


def _accepts_config(func: Callable[..., Any]) -> bool:
    try:
        return "config" in inspect.signature(func).parameters
    except (TypeError, ValueError):  # builtins without a signature
        return False


class RunnableLambda(Runnable[Input, Output]):
    """Wraps a function ``f(input)`` or ``f(input, config)`` (and optionally an async one).

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
        if inspect.iscoroutinefunction(func):
            func, afunc = None, func  # type: ignore[assignment]
        self.func = func
        self.afunc = afunc
        self.name = name or getattr(func or afunc, "__name__", None)

    def _call(self, func: Callable[..., Any], input: Any, config: Optional[RunnableConfig]) -> Any:
        if _accepts_config(func):
            return func(input, config=config or {})
        return func(input)

    def invoke(self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Output:
        if self.func is None:
            # Only an async function was given: run it on a private event loop.
            return asyncio.run(self.ainvoke(input, config))
        return self._call(self.func, input, config)

    async def ainvoke(self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Output:
        if self.afunc is not None:
            return await self._call(self.afunc, input, config)
        return await asyncio.to_thread(self._call, self.func, input, config)

    def __repr__(self) -> str:
        return f"RunnableLambda({self.name or '...'})"


def coerce_to_runnable(thing: Any) -> Runnable:
    """A Runnable as is; a callable as a :class:`RunnableLambda`; anything else is an error."""
    if isinstance(thing, Runnable):
        return thing
    if callable(thing):
        return RunnableLambda(thing)
    raise ValidationError(
        f"cannot compose {type(thing).__name__} {thing!r:.60} into a chain; expected a Runnable or a callable"
    )


class RunnableSequence(Runnable[Any, Any]):
    """Runs steps one after another, each on the previous step's output.

    >>> (RunnableLambda(lambda x: x * 2) | (lambda x: x + 1)).invoke(3)
    7
    """

    def __init__(self, *steps: Any) -> None:
        flat: list[Runnable] = []
        for step in steps:
            runnable = coerce_to_runnable(step)
            flat.extend(runnable.steps if isinstance(runnable, RunnableSequence) else [runnable])
        if len(flat) < 2:
            raise ValidationError(f"a sequence needs at least two steps, got {len(flat)}")
        self.steps = flat

    @property
    def first(self) -> Runnable:
        return self.steps[0]

    @property
    def last(self) -> Runnable:
        return self.steps[-1]

    @property
    def middle(self) -> list[Runnable]:
        return self.steps[1:-1]

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        value = input
        for step in self.steps:
            value = step.invoke(value, config)
        return value

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        value = input
        for step in self.steps:
            value = await step.ainvoke(value, config)
        return value

    def stream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Any]:
        # Every step but the last needs its whole input; the last streams its output.
        value = input
        for step in self.steps[:-1]:
            value = step.invoke(value, config)
        yield from self.last.stream(value, config)

    async def astream(
        self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        value = input
        for step in self.steps[:-1]:
            value = await step.ainvoke(value, config)
        async for chunk in self.last.astream(value, config):
            yield chunk

    def __repr__(self) -> str:
        return " | ".join(step.get_name() for step in self.steps)
