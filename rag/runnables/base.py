"""The :class:`Runnable` interface: one abstract method, everything else derived.

A Runnable implements :meth:`Runnable.invoke`. ``ainvoke``, ``batch``, ``abatch``,
``stream``, ``astream``, ``transform`` and ``atransform`` have working defaults; a component
overrides the ones it can do better (native async I/O, token streaming, chunk-by-chunk
transformation). Composition (``|``, ``pipe``, ``bind``, ``with_config``, ``with_retry``,
``with_fallbacks``, ``pick``, ``assign``) returns new Runnables and never changes ``self``.
"""

from __future__ import annotations

import asyncio
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
    TypeVar,
    Union,
)

from rag import _callbacks
from rag.errors import ValidationError
from rag.runnables import _tracing
from rag.runnables._streams import NOTHING, acollect, collect
from rag.runnables.config import RunnableConfig, max_workers, per_input_configs

# The composites import this module: type hints name them through the package
# (``rag.runnables.RunnableSequence``), which holds them once imported, so that
# typing.get_type_hints resolves them.
import rag.runnables

__all__ = ["Runnable", "coerce_to_runnable"]

Input = TypeVar("Input")
Output = TypeVar("Output")


class Runnable(ABC, Generic[Input, Output]):
    """A unit of work with sync, async, batch and streaming entry points.

    >>> from rag.runnables import RunnableLambda
    >>> (RunnableLambda(lambda x: x + 1) | (lambda x: x * 2)).invoke(1)
    4
    """

    name: Optional[str] = None
    # The run type callbacks and event streams see ("chain"; prompts say "prompt", parsers
    # "parser"): LangChain's ``on_prompt_start`` etc. come from it.
    _run_type: str = "chain"

    # -- the primitive and its derived entry points ------------------------------------
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
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Run on many inputs concurrently (threads, at most ``max_concurrency``), keeping
        order. ``return_exceptions=True`` puts each failure in its slot instead of raising."""
        inputs = list(inputs)
        if not inputs:
            return []
        if config is None:
            # Worker threads do not see this thread's context: hand them the config of the
            # traced step we may be running in, so nested runs still reach its handlers.
            config = _callbacks._AMBIENT.get()  # type: ignore[assignment]
        configs = per_input_configs(config, len(inputs))

        def one(pair: tuple[Input, Optional[RunnableConfig]]) -> Any:
            try:
                return self.invoke(pair[0], pair[1], **kwargs)
            except Exception as exc:
                if return_exceptions:
                    return exc
                raise

        workers = max_workers(configs[0], len(inputs))
        if workers == 1:
            return [one(pair) for pair in zip(inputs, configs)]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(one, zip(inputs, configs)))

    async def abatch(
        self,
        inputs: Sequence[Input],
        config: Union[RunnableConfig, Sequence[RunnableConfig], None] = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Async :meth:`batch`: at most ``max_concurrency`` inputs in flight; keeps order."""
        inputs = list(inputs)
        if not inputs:
            return []
        configs = per_input_configs(config, len(inputs))
        gate = asyncio.Semaphore(max_workers(configs[0], len(inputs)))

        async def one(item: Input, cfg: Optional[RunnableConfig]) -> Any:
            async with gate:
                try:
                    return await self.ainvoke(item, cfg, **kwargs)
                except Exception as exc:
                    if return_exceptions:
                        return exc
                    raise

        return list(await asyncio.gather(*(one(i, c) for i, c in zip(inputs, configs))))

    def stream(self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Output]:
        """Yield the output in pieces; by default the whole output as one piece."""
        yield self.invoke(input, config, **kwargs)

    async def astream(
        self, input: Input, config: Optional[RunnableConfig] = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async :meth:`stream`."""
        yield await self.ainvoke(input, config, **kwargs)

    def transform(
        self, input: Iterator[Input], config: Optional[RunnableConfig] = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream the output for a streamed input. By default the input chunks are added up
        (``+``) first, then :meth:`stream` runs on the total; components that can work chunk
        by chunk (parsers, passthrough, parallel) override this to pass chunks on at once."""
        total = collect(input)
        if total is not NOTHING:
            yield from self.stream(total, config, **kwargs)

    async def atransform(
        self, input: AsyncIterator[Input], config: Optional[RunnableConfig] = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async :meth:`transform`."""
        total = await acollect(input)
        if total is not NOTHING:
            async for chunk in self.astream(total, config, **kwargs):
                yield chunk

    # -- composition ---------------------------------------------------------------------
    def pipe(self, *others: Any) -> rag.runnables.RunnableSequence:
        """``self | others[0] | others[1] ...``."""
        from rag.runnables.sequence import RunnableSequence

        return RunnableSequence(self, *others)

    def __or__(self, other: Any) -> rag.runnables.RunnableSequence:
        from rag.runnables.sequence import RunnableSequence

        return RunnableSequence(self, other)

    def __ror__(self, other: Any) -> rag.runnables.RunnableSequence:
        from rag.runnables.sequence import RunnableSequence

        return RunnableSequence(other, self)

    def bind(self, **kwargs: Any) -> rag.runnables.RunnableBinding:
        """A copy whose every call receives ``kwargs`` (e.g. ``model.bind(stop=["\\n"])``)."""
        from rag.runnables.binding import RunnableBinding

        return RunnableBinding(self, kwargs=kwargs)

    def with_config(self, config: Optional[RunnableConfig] = None, **options: Any) -> rag.runnables.RunnableBinding:
        """A copy that runs with ``config`` (and ``options``) merged under each call's config."""
        from rag.runnables.binding import RunnableBinding

        return RunnableBinding(self, config={**(config or {}), **options})  # type: ignore[typeddict-item]

    def with_retry(
        self,
        *,
        retry_if_exception_type: tuple[type[BaseException], ...] = (Exception,),
        wait_exponential_jitter: bool = True,
        exponential_jitter_params: Optional[dict[str, float]] = None,
        stop_after_attempt: int = 3,
    ) -> rag.runnables.RunnableRetry:
        """A copy that retries failed calls; see :class:`~rag.runnables.RunnableRetry`."""
        from rag.runnables.retry import RunnableRetry

        return RunnableRetry(
            self,
            retry_exception_types=retry_if_exception_type,
            wait_exponential_jitter=wait_exponential_jitter,
            exponential_jitter_params=exponential_jitter_params,
            max_attempt_number=stop_after_attempt,
        )

    def with_fallbacks(
        self,
        fallbacks: Sequence[Any],
        *,
        exceptions_to_handle: tuple[type[BaseException], ...] = (Exception,),
        exception_key: Optional[str] = None,
    ) -> rag.runnables.RunnableWithFallbacks:
        """A copy that tries ``fallbacks`` in order when this one fails."""
        from rag.runnables.fallbacks import RunnableWithFallbacks

        return RunnableWithFallbacks(
            self, fallbacks, exceptions_to_handle=exceptions_to_handle, exception_key=exception_key
        )

    def pick(self, keys: Union[str, list[str]]) -> rag.runnables.RunnableSequence:
        """``self`` followed by picking ``keys`` from its dict output (one key: its value)."""
        from rag.runnables.passthrough import RunnablePick

        return self | RunnablePick(keys)

    def assign(self, **branches: Any) -> rag.runnables.RunnableSequence:
        """``self`` followed by :meth:`RunnablePassthrough.assign`: adds keys to its dict output."""
        from rag.runnables.passthrough import RunnableAssign

        return self | RunnableAssign(branches)

    # -- introspection -------------------------------------------------------------------
    def get_name(self) -> str:
        return self.name or type(self).__name__

    def _graph_io_names(self) -> tuple[str, str]:
        name = self.get_name()
        return f"{name}Input", f"{name}Output"

    def get_graph(self, config: Optional[RunnableConfig] = None) -> rag.runnables.Graph:
        """The diagram of this runnable: input node, this node, output node."""
        from rag.runnables.graph import Graph

        graph = Graph()
        input_name, output_name = self._graph_io_names()
        first = graph.add_node(input_name)
        middle = graph.add_node(self.get_name(), self)
        last = graph.add_node(output_name)
        graph.add_edge(first, middle)
        graph.add_edge(middle, last)
        return graph

    # -- tracing helpers used by subclasses (the runs themselves: rag.runnables._tracing) --
    def _call_traced(
        self, body: Callable[[Any, RunnableConfig], Any], input: Any, config: Optional[RunnableConfig]
    ) -> Any:
        """Run ``body(input, child_config)`` as a "chain" run: start, end or error events."""
        return _tracing.call_traced(self, body, input, config)

    async def _acall_traced(
        self, body: Callable[[Any, RunnableConfig], Awaitable[Any]], input: Any, config: Optional[RunnableConfig]
    ) -> Any:
        return await _tracing.acall_traced(self, body, input, config)

    def _stream_traced(
        self, body: Callable[[Any, RunnableConfig], Iterator[Any]], input: Any, config: Optional[RunnableConfig]
    ) -> Iterator[Any]:
        """Stream ``body(input, child_config)`` as a run whose end event gets the chunks' sum."""
        return _tracing.stream_traced(self, body, input, config)

    def _astream_traced(
        self, body: Callable[[Any, RunnableConfig], AsyncIterator[Any]], input: Any, config: Optional[RunnableConfig]
    ) -> AsyncIterator[Any]:
        return _tracing.astream_traced(self, body, input, config)

    def _transform_traced(
        self, body: Callable[[Iterator[Any], RunnableConfig], Iterator[Any]], input: Iterator[Any],
        config: Optional[RunnableConfig],
    ) -> Iterator[Any]:
        """Stream ``body(input_chunks, child_config)`` as one run, started at the first chunk."""
        return _tracing.transform_traced(self, body, input, config)

    def _atransform_traced(
        self, body: Callable[[AsyncIterator[Any], RunnableConfig], AsyncIterator[Any]], input: AsyncIterator[Any],
        config: Optional[RunnableConfig],
    ) -> AsyncIterator[Any]:
        return _tracing.atransform_traced(self, body, input, config)

    def _run_type_extra(self) -> dict[str, str]:
        # LangChain passes run_type to on_chain_start only for the special kinds.
        return {} if self._run_type == "chain" else {"run_type": self._run_type}

    # -- schemas, configurable fields, event streams (implemented in their own modules) ---
    @property
    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema (a dict) of this runnable's input; see :mod:`rag.runnables.schema`."""
        return self.get_input_jsonschema()

    @property
    def output_schema(self) -> dict[str, Any]:
        """The JSON Schema (a dict) of this runnable's output."""
        return self.get_output_jsonschema()

    def config_schema(self, *, include: Optional[Sequence[str]] = None) -> dict[str, Any]:
        """The JSON Schema (a dict) of the config this runnable accepts: ``configurable``
        lists the fields it declares; ``include`` adds other RunnableConfig keys."""
        return self.get_config_jsonschema(include=include)

    def get_input_jsonschema(self, config: Optional[RunnableConfig] = None) -> dict[str, Any]:
        from rag.runnables.schema import titled

        return titled(self._input_jsonschema(), self._schema_title("Input"))

    def get_output_jsonschema(self, config: Optional[RunnableConfig] = None) -> dict[str, Any]:
        from rag.runnables.schema import titled

        return titled(self._output_jsonschema(), self._schema_title("Output"))

    def get_config_jsonschema(self, *, include: Optional[Sequence[str]] = None) -> dict[str, Any]:
        from rag.runnables.schema import config_jsonschema

        return config_jsonschema(self, include=include)

    def _schema_title(self, suffix: str) -> str:
        return f"{self.get_name()}{suffix}"

    def _input_jsonschema(self) -> dict[str, Any]:
        """The input schema without its title; ``{}`` (anything) unless a subclass knows."""
        return {}

    def _output_jsonschema(self) -> dict[str, Any]:
        return {}

    @property
    def config_specs(self) -> list[Any]:
        """The :class:`~rag.runnables.ConfigurableFieldSpec` s this runnable and the
        runnables inside it declare (read from ``config["configurable"]``)."""
        from rag.runnables.configurable import collect_config_specs

        return collect_config_specs(self)

    def configurable_fields(self, **fields: Any) -> "Runnable":
        """A copy whose attributes named in ``fields`` (each a
        :class:`~rag.runnables.ConfigurableField`) can be set per call through
        ``config["configurable"][field.id]``."""
        from rag.runnables.configurable import RunnableConfigurableFields

        return RunnableConfigurableFields(self, fields)

    def configurable_alternatives(self, which: Any, *, default_key: str = "default",
                                  **alternatives: Any) -> "Runnable":
        """A runnable that is ``self`` or one of ``alternatives``, chosen per call by
        ``config["configurable"][which.id]`` (``default_key`` selects ``self``)."""
        from rag.runnables.configurable import RunnableConfigurableAlternatives

        return RunnableConfigurableAlternatives(self, which, alternatives, default_key=default_key)

    def astream_events(self, input: Any, config: Optional[RunnableConfig] = None, *, version: str = "v2",
                       include_names: Optional[Sequence[str]] = None, include_types: Optional[Sequence[str]] = None,
                       include_tags: Optional[Sequence[str]] = None, exclude_names: Optional[Sequence[str]] = None,
                       exclude_types: Optional[Sequence[str]] = None, exclude_tags: Optional[Sequence[str]] = None,
                       **kwargs: Any) -> AsyncIterator[dict[str, Any]]:
        """Every step's events as they happen, in LangChain's v2 shape; see
        :func:`rag.runnables.events.astream_events`."""
        from rag.runnables.events import astream_events

        return astream_events(self, input, config, version=version, include_names=include_names,
                              include_types=include_types, include_tags=include_tags,
                              exclude_names=exclude_names, exclude_types=exclude_types,
                              exclude_tags=exclude_tags, **kwargs)

    def astream_log(self, input: Any, config: Optional[RunnableConfig] = None, *, diff: bool = True,
                    with_streamed_output_list: bool = True, include_names: Optional[Sequence[str]] = None,
                    include_types: Optional[Sequence[str]] = None, include_tags: Optional[Sequence[str]] = None,
                    exclude_names: Optional[Sequence[str]] = None, exclude_types: Optional[Sequence[str]] = None,
                    exclude_tags: Optional[Sequence[str]] = None, **kwargs: Any) -> AsyncIterator[Any]:
        """The run's state as JSON-patch operations (LangChain's ``RunLogPatch``), or whole
        ``RunLog`` states with ``diff=False``; see :func:`rag.runnables.log.astream_log`."""
        from rag.runnables.log import astream_log

        return astream_log(self, input, config, diff=diff, with_streamed_output_list=with_streamed_output_list,
                           include_names=include_names, include_types=include_types, include_tags=include_tags,
                           exclude_names=exclude_names, exclude_types=exclude_types, exclude_tags=exclude_tags,
                           **kwargs)


def coerce_to_runnable(thing: Any) -> Runnable:
    """A Runnable as is; a dict as a :class:`RunnableParallel`; a generator function as a
    :class:`RunnableGenerator`; another callable as a :class:`RunnableLambda`."""
    if isinstance(thing, Runnable):
        return thing
    if isinstance(thing, dict):
        from rag.runnables.parallel import RunnableParallel

        return RunnableParallel(thing)
    if callable(thing):
        from rag.runnables.lambdas import RunnableGenerator, RunnableLambda, is_generator_function

        return RunnableGenerator(thing) if is_generator_function(thing) else RunnableLambda(thing)
    raise ValidationError(
        f"cannot compose {type(thing).__name__} {thing!r:.60} into a chain; "
        "expected a Runnable, a callable or a dict of them"
    )
