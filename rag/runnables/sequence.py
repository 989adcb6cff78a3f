"""RunnableSequence: steps one after another (``a | b | c``)."""

from __future__ import annotations

from typing import Any, AsyncIterator, Iterator, Optional

from rag._callbacks import RUN_TAGS_KEY
from rag.errors import ValidationError
from rag.runnables.base import Runnable, coerce_to_runnable
from rag.runnables.config import RunnableConfig
from rag.runnables.graph import Graph

__all__ = ["RunnableSequence"]


class RunnableSequence(Runnable[Any, Any]):
    """Runs steps one after another, each on the previous step's output.

    Streaming goes through every step's ``transform``: a step that can work chunk by chunk
    (a chat model's tokens into a parser) passes chunks on as they come; the others wait for
    their whole input. Nested sequences flatten; dicts and callables coerce.

    >>> from rag.runnables import RunnableLambda
    >>> chain = RunnableLambda(lambda x: x * 2) | (lambda x: x + 1)
    >>> chain.invoke(3), len(chain.steps)
    (7, 2)
    """

    def __init__(self, *steps: Any, name: Optional[str] = None) -> None:
        flat: list[Runnable] = []
        for step in steps:
            runnable = coerce_to_runnable(step)
            flat.extend(runnable.steps if isinstance(runnable, RunnableSequence) else [runnable])
        if len(flat) < 2:
            raise ValidationError(f"a sequence needs at least two steps, got {len(flat)}")
        self.steps = flat
        self.name = name

    @property
    def first(self) -> Runnable:
        return self.steps[0]

    @property
    def last(self) -> Runnable:
        return self.steps[-1]

    @property
    def _chunks_are_snapshots(self) -> bool:
        # The sequence streams its last step's chunks (see rag.runnables._streams.output_adder).
        return bool(getattr(self.last, "_chunks_are_snapshots", False))

    @property
    def middle(self) -> list[Runnable]:
        return self.steps[1:-1]

    @staticmethod
    def _step_config(config: Optional[RunnableConfig], index: int) -> RunnableConfig:
        # Each step's run is tagged "seq:step:N" (1-based), that run only, as in LangChain.
        return {**(config or {}), RUN_TAGS_KEY: [f"seq:step:{index + 1}"]}  # type: ignore[typeddict-unknown-key]

    def _run(self, input: Any, config: RunnableConfig) -> Any:
        for index, step in enumerate(self.steps):
            input = step.invoke(input, self._step_config(config, index))
        return input

    async def _arun(self, input: Any, config: RunnableConfig) -> Any:
        for index, step in enumerate(self.steps):
            input = await step.ainvoke(input, self._step_config(config, index))
        return input

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return self._call_traced(self._run, input, config)

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return await self._acall_traced(self._arun, input, config)

    def transform(self, input: Iterator[Any], config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Any]:
        stream = input
        for index, step in enumerate(self.steps):
            stream = step.transform(stream, self._step_config(config, index))
        yield from stream

    async def atransform(
        self, input: AsyncIterator[Any], config: Optional[RunnableConfig] = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        stream = input
        for index, step in enumerate(self.steps):
            stream = step.atransform(stream, self._step_config(config, index))
        async for chunk in stream:
            yield chunk

    def stream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Any]:
        # The first step streams from its whole input (its own stream), the rest transform.
        def body(value: Any, cfg: RunnableConfig) -> Iterator[Any]:
            stream = self.first.stream(value, self._step_config(cfg, 0))
            for index, step in enumerate(self.steps[1:], start=1):
                stream = step.transform(stream, self._step_config(cfg, index))
            return stream

        return self._stream_traced(body, input, config)

    async def astream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> AsyncIterator[Any]:
        def body(value: Any, cfg: RunnableConfig) -> AsyncIterator[Any]:
            stream = self.first.astream(value, self._step_config(cfg, 0))
            for index, step in enumerate(self.steps[1:], start=1):
                stream = step.atransform(stream, self._step_config(cfg, index))
            return stream

        async for chunk in self._astream_traced(body, input, config):
            yield chunk

    def _input_jsonschema(self) -> dict[str, Any]:
        return self.first.get_input_jsonschema()

    def _output_jsonschema(self) -> dict[str, Any]:
        return self.last.get_output_jsonschema()

    def _schema_title(self, suffix: str) -> str:
        # LangChain titles a sequence's schemas after its first/last step.
        return (self.first if suffix == "Input" else self.last)._schema_title(suffix) if self.name is None \
            else super()._schema_title(suffix)

    def get_graph(self, config: Optional[RunnableConfig] = None) -> Graph:
        graph = Graph()
        for index, step in enumerate(self.steps):
            part = step.get_graph(config)
            if index > 0:
                part.trim_first_node()
            if index < len(self.steps) - 1:
                part.trim_last_node()
            previous_last = graph.last_node()
            first, _ = graph.extend(part)
            if previous_last is not None and first is not None:
                graph.add_edge(previous_last, first)
        return graph

    def __repr__(self) -> str:
        return " | ".join(step.get_name() for step in self.steps)
