"""Passing input through: :class:`RunnablePassthrough`, ``.assign`` and ``.pick``."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, AsyncIterator, Callable, Iterator, Mapping, Optional, Union

from rag.errors import NotFoundError, ValidationError
from rag.runnables._streams import NOTHING, Chunkwise, add_chunks
from rag.runnables.base import Runnable
from rag.runnables.config import RunnableConfig
from rag.runnables.graph import Graph
from rag.runnables.parallel import RunnableParallel

__all__ = ["RunnablePassthrough", "RunnableAssign", "RunnablePick"]


def _require_dict(value: Any, who: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValidationError(f"{who} needs a dict input, got {type(value).__name__}: {value!r:.60}")
    return value


class RunnablePassthrough(Chunkwise, Runnable[Any, Any]):
    """Returns its input unchanged (streams pass through chunk by chunk). ``func``, if given,
    is called with the input for its side effects (may take ``config``).

    >>> RunnablePassthrough().invoke({"q": "hi"})
    {'q': 'hi'}
    >>> RunnablePassthrough.assign(n=lambda d: len(d["q"])).invoke({"q": "hi"})
    {'q': 'hi', 'n': 2}
    """

    def __init__(self, func: Optional[Callable[..., Any]] = None, afunc: Optional[Callable[..., Any]] = None) -> None:
        if inspect.iscoroutinefunction(func):
            func, afunc = None, func
        self.func = func
        self.afunc = afunc
        self.name = None

    def get_name(self) -> str:
        return self.name or "Passthrough"

    @classmethod
    def assign(cls, **branches: Any) -> "RunnableAssign":  # type: ignore[override]
        """A runnable that takes a dict and adds ``{key: branch(dict)}`` for every branch
        (branches run concurrently on the input dict)."""
        return RunnableAssign(RunnableParallel(branches))

    def _side_effect(self, value: Any, config: RunnableConfig) -> Any:
        if self.func is not None:
            self.func(value, config=config) if "config" in inspect.signature(self.func).parameters else self.func(value)
        elif self.afunc is not None:
            asyncio.run(self.afunc(value))
        return value

    async def _aside_effect(self, value: Any, config: RunnableConfig) -> Any:
        if self.afunc is not None:
            await self.afunc(value)
        elif self.func is not None:
            await asyncio.to_thread(self._side_effect, value, config)
        return value

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return self._call_traced(self._side_effect, input, config)

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return await self._acall_traced(self._aside_effect, input, config)

    def _transform(self, input: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        total = NOTHING
        for chunk in input:
            total = add_chunks(total, chunk) if self.func or self.afunc else total
            yield chunk
        if total is not NOTHING:
            self._side_effect(total, config or {})

    async def _atransform(self, input: AsyncIterator[Any], config: RunnableConfig) -> AsyncIterator[Any]:
        total = NOTHING
        async for chunk in input:
            total = add_chunks(total, chunk) if self.func or self.afunc else total
            yield chunk
        if total is not NOTHING:
            await self._aside_effect(total, config or {})

    def __repr__(self) -> str:
        return "RunnablePassthrough()"


class RunnableAssign(Chunkwise, Runnable[dict, dict]):
    """Takes a dict and returns it with the ``mapper``'s outputs added under their keys.
    Streaming first yields the input (without the keys being assigned), then the new keys'
    chunks as ``{key: chunk}``."""

    def __init__(self, mapper: Union[RunnableParallel, Mapping[str, Any]]) -> None:
        self.mapper = mapper if isinstance(mapper, RunnableParallel) else RunnableParallel(mapper)
        self.name = None

    def get_name(self) -> str:
        return self.name or f"RunnableAssign<{','.join(self.mapper.steps__)}>"

    def _run(self, input: Any, config: RunnableConfig) -> dict[str, Any]:
        value = _require_dict(input, "RunnablePassthrough.assign(...)")
        return {**value, **self.mapper.invoke(value, config)}

    async def _arun(self, input: Any, config: RunnableConfig) -> dict[str, Any]:
        value = _require_dict(input, "RunnablePassthrough.assign(...)")
        return {**value, **await self.mapper.ainvoke(value, config)}

    def invoke(self, input: dict, config: Optional[RunnableConfig] = None, **kwargs: Any) -> dict:
        return self._call_traced(self._run, input, config)

    async def ainvoke(self, input: dict, config: Optional[RunnableConfig] = None, **kwargs: Any) -> dict:
        return await self._acall_traced(self._arun, input, config)

    def _unassigned(self, value: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in value.items() if k not in self.mapper.steps__}

    def _pass_on(self, total: Any, chunk: Any) -> tuple[Any, Optional[dict[str, Any]]]:
        # Input chunks go on as they arrive (LangChain does the same), so a stream of
        # assigns shows each earlier key at once instead of one merged chunk at the end.
        chunk = _require_dict(chunk, "RunnablePassthrough.assign(...)")
        passed = self._unassigned(chunk)
        return add_chunks(total, chunk), (passed or None)

    def _transform(self, input: Iterator[Any], config: RunnableConfig) -> Iterator[dict]:
        total = NOTHING
        for chunk in input:
            total, passed = self._pass_on(total, chunk)
            if passed is not None:
                yield passed
        if total is not NOTHING:
            yield from self.mapper.stream(total, config)

    async def _atransform(self, input: AsyncIterator[Any], config: RunnableConfig) -> AsyncIterator[dict]:
        total = NOTHING
        async for chunk in input:
            total, passed = self._pass_on(total, chunk)
            if passed is not None:
                yield passed
        if total is not NOTHING:
            async for chunk in self.mapper.astream(total, config):
                yield chunk

    def get_graph(self, config: Optional[RunnableConfig] = None) -> Graph:
        # Drawn as LangChain draws it: the new keys' branches beside a passthrough branch.
        graph = RunnableParallel({**self.mapper.steps__, "__passthrough__": RunnablePassthrough()}).get_graph(config)
        label = f"Parallel<{','.join(self.mapper.steps__)}>"
        for node in list(graph.nodes.values()):
            if node.name.startswith("Parallel<"):
                suffix = "Input" if node.name.endswith("Input") else "Output"
                graph.nodes[node.id] = type(node)(node.id, label + suffix, node.data)
        return graph


class RunnablePick(Runnable[dict, Any]):
    """Picks keys from a dict: one key gives its value, a list of keys a smaller dict.

    Unlike LangChain (which returns None), a key missing from the input raises
    :class:`~rag.errors.NotFoundError` naming it and the keys present, so typos surface.
    When streaming, chunks without the picked keys are skipped.

    >>> RunnablePick("a").invoke({"a": 1, "b": 2}), RunnablePick(["a"]).invoke({"a": 1, "b": 2})
    (1, {'a': 1})
    """

    def __init__(self, keys: Union[str, list[str]]) -> None:
        if not isinstance(keys, str) and not (
            isinstance(keys, (list, tuple)) and keys and all(isinstance(k, str) for k in keys)
        ):
            raise ValidationError(f"pick needs a key or a non-empty list of keys (strings), got {keys!r}")
        self.keys = keys if isinstance(keys, str) else list(keys)
        self.name = None

    def get_name(self) -> str:
        return self.name or f"RunnablePick<{self.keys if isinstance(self.keys, str) else ','.join(self.keys)}>"

    def _pick(self, value: Any) -> Any:
        value = _require_dict(value, "pick")
        wanted = [self.keys] if isinstance(self.keys, str) else self.keys
        missing = [k for k in wanted if k not in value]
        if missing:
            raise NotFoundError(f"pick: key(s) {missing} not in the input; it has {sorted(value)}")
        return value[self.keys] if isinstance(self.keys, str) else {k: value[k] for k in self.keys}

    def invoke(self, input: dict, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return self._pick(input)

    def _pick_chunk(self, chunk: Any) -> Any:
        value = _require_dict(chunk, "pick")
        if isinstance(self.keys, str):
            return value.get(self.keys, NOTHING)
        picked = {k: value[k] for k in self.keys if k in value}
        return picked or NOTHING

    def transform(self, input: Iterator[Any], config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Any]:
        for chunk in input:
            picked = self._pick_chunk(chunk)
            if picked is not NOTHING:
                yield picked

    async def atransform(
        self, input: AsyncIterator[Any], config: Optional[RunnableConfig] = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        async for chunk in input:
            picked = self._pick_chunk(chunk)
            if picked is not NOTHING:
                yield picked
