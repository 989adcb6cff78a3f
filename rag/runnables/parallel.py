"""RunnableParallel: several branches on the same input, concurrently, into a dict."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any, AsyncIterator, Iterator, Mapping, Optional

from rag._callbacks import RUN_TAGS_KEY
from rag.errors import ValidationError
from rag.runnables._streams import NOTHING, acollect, amerge_streams, collect, merge_streams
from rag.runnables.base import Runnable, coerce_to_runnable
from rag.runnables.config import RunnableConfig, max_workers
from rag.runnables.graph import Graph

__all__ = ["RunnableParallel"]


class RunnableParallel(Runnable[Any, dict[str, Any]]):
    """Runs each branch on the same input at the same time and returns ``{key: output}``.

    Branches run in threads (sync) or tasks (async), at most ``config["max_concurrency"]``
    at once. A plain dict in a chain becomes one of these. Streaming yields ``{key: chunk}``
    dicts as each branch produces chunks.

    >>> RunnableParallel(double=lambda x: x * 2, same=lambda x: x).invoke(3)
    {'double': 6, 'same': 3}
    """

    def __init__(self, steps__: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> None:
        merged = {**(steps__ or {}), **kwargs}
        if not merged:
            raise ValidationError("RunnableParallel needs at least one branch, e.g. RunnableParallel(a=lambda x: x)")
        for key in merged:
            if not isinstance(key, str):
                raise ValidationError(f"RunnableParallel's keys must be strings, got {key!r}")
        self.steps__: dict[str, Runnable] = {k: coerce_to_runnable(v) for k, v in merged.items()}
        self.name = None

    def get_name(self) -> str:
        return self.name or f"RunnableParallel<{','.join(self.steps__)}>"

    @staticmethod
    def _branch_config(config: Optional[RunnableConfig], key: str) -> RunnableConfig:
        # Each branch's run is tagged "map:key:KEY", that run only, as in LangChain.
        return {**(config or {}), RUN_TAGS_KEY: [f"map:key:{key}"]}  # type: ignore[typeddict-unknown-key]

    def _run(self, input: Any, config: RunnableConfig) -> dict[str, Any]:
        workers = max_workers(config, len(self.steps__))
        if workers == 1:
            return {key: step.invoke(input, self._branch_config(config, key)) for key, step in self.steps__.items()}
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {key: pool.submit(step.invoke, input, self._branch_config(config, key))
                       for key, step in self.steps__.items()}
            return {key: future.result() for key, future in futures.items()}

    async def _arun(self, input: Any, config: RunnableConfig) -> dict[str, Any]:
        gate = asyncio.Semaphore(max_workers(config, len(self.steps__)))

        async def one(key: str, step: Runnable) -> Any:
            async with gate:
                return await step.ainvoke(input, self._branch_config(config, key))

        outputs = await asyncio.gather(*(one(key, step) for key, step in self.steps__.items()))
        return dict(zip(self.steps__, outputs))

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> dict[str, Any]:
        return self._call_traced(self._run, input, config)

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> dict[str, Any]:
        return await self._acall_traced(self._arun, input, config)

    def _stream_branches(self, input: Any, config: RunnableConfig) -> Iterator[dict[str, Any]]:
        openers = {key: (lambda step=step, key=key: step.stream(input, self._branch_config(config, key)))
                   for key, step in self.steps__.items()}
        for key, chunk in merge_streams(openers, max_workers(config, len(openers))):
            yield {key: chunk}

    def _astream_branches(self, input: Any, config: RunnableConfig) -> AsyncIterator[dict[str, Any]]:
        async def generate() -> AsyncIterator[dict[str, Any]]:
            openers = {key: (lambda step=step, key=key: step.astream(input, self._branch_config(config, key)))
                       for key, step in self.steps__.items()}
            async for key, chunk in amerge_streams(openers, max_workers(config, len(openers))):
                yield {key: chunk}

        return generate()

    def stream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[dict[str, Any]]:
        return self._stream_traced(self._stream_branches, input, config)

    async def astream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> AsyncIterator[dict[str, Any]]:
        async for chunk in self._astream_traced(self._astream_branches, input, config):
            yield chunk

    def _transform(self, input: Iterator[Any], config: RunnableConfig) -> Iterator[dict[str, Any]]:
        # Every branch needs the whole input; the branches' outputs then stream as they come.
        total = collect(input)
        if total is not NOTHING:
            yield from self._stream_branches(total, config or {})

    async def _atransform(self, input: AsyncIterator[Any], config: RunnableConfig) -> AsyncIterator[dict[str, Any]]:
        total = await acollect(input)
        if total is not NOTHING:
            async for chunk in self._astream_branches(total, config or {}):
                yield chunk

    def transform(self, input: Iterator[Any], config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[dict[str, Any]]:
        return self._transform_traced(self._transform, input, config)

    async def atransform(
        self, input: AsyncIterator[Any], config: Optional[RunnableConfig] = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        async for chunk in self._atransform_traced(self._atransform, input, config):
            yield chunk

    def _input_jsonschema(self) -> dict[str, Any]:
        from rag.runnables.schema import parallel_input_schema

        return parallel_input_schema(self.steps__.values())

    def _output_jsonschema(self) -> dict[str, Any]:
        from rag.runnables.schema import object_schema

        return object_schema({key: step.get_output_jsonschema() for key, step in self.steps__.items()}, required=False)

    def _graph_io_names(self) -> tuple[str, str]:
        label = f"Parallel<{','.join(self.steps__)}>"
        return f"{label}Input", f"{label}Output"

    def get_graph(self, config: Optional[RunnableConfig] = None) -> Graph:
        graph = Graph()
        input_name, output_name = self._graph_io_names()
        start = graph.add_node(input_name)
        end = graph.add_node(output_name)
        for step in self.steps__.values():
            part = step.get_graph(config)
            part.trim_first_node()
            part.trim_last_node()
            first, last = graph.extend(part)
            if first is None or last is None:  # a branch with several ends: link it whole
                for node in part.nodes.values():
                    graph.add_edge(start, node)
                    graph.add_edge(node, end)
                continue
            graph.add_edge(start, first)
            graph.add_edge(last, end)
        return graph

    def __repr__(self) -> str:
        inner = ", ".join(f"{key}: {step!r}" for key, step in self.steps__.items())
        return "{" + inner + "}"
