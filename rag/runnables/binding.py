"""RunnableBinding: a runnable with fixed call keyword arguments and/or config."""

from __future__ import annotations

from typing import Any, AsyncIterator, Iterator, Optional

from rag.runnables.base import Runnable
from rag.runnables.config import RunnableConfig, merge_configs
from rag.runnables.graph import Graph

__all__ = ["RunnableBinding"]


class RunnableBinding(Runnable[Any, Any]):
    """``bound`` called with ``kwargs`` added to every call and ``config`` merged under each
    call's own config (the call's values win; tags, callbacks and metadata combine).
    Made by ``.bind(...)`` and ``.with_config(...)``; both may be chained.

    >>> from rag.models import FakeListChatModel
    >>> model = FakeListChatModel(responses=["ok"]).bind(stop=["\\n"]).with_config(tags=["demo"])
    >>> model.kwargs, model.config["tags"], model.invoke("hi").content
    ({'stop': ['\\n']}, ['demo'], 'ok')
    """

    def __init__(self, bound: Runnable, *, kwargs: Optional[dict[str, Any]] = None,
                 config: Optional[RunnableConfig] = None) -> None:
        if isinstance(bound, RunnableBinding) and type(bound) is RunnableBinding:
            # Flatten binding-of-binding so the chain of wrappers stays one level deep.
            kwargs = {**bound.kwargs, **(kwargs or {})}
            config = merge_configs(bound.config, config)
            bound = bound.bound
        self.bound = bound
        self.kwargs: dict[str, Any] = dict(kwargs or {})
        self.config: RunnableConfig = merge_configs(config)
        self.name = None

    def get_name(self) -> str:
        return self.name or self.config.get("run_name") or self.bound.get_name()

    def _config(self, config: Optional[RunnableConfig]) -> RunnableConfig:
        return merge_configs(self.config, config) if self.config else (config or {})  # type: ignore[return-value]

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return self.bound.invoke(input, self._config(config), **{**self.kwargs, **kwargs})

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return await self.bound.ainvoke(input, self._config(config), **{**self.kwargs, **kwargs})

    def stream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Any]:
        yield from self.bound.stream(input, self._config(config), **{**self.kwargs, **kwargs})

    async def astream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> AsyncIterator[Any]:
        async for chunk in self.bound.astream(input, self._config(config), **{**self.kwargs, **kwargs}):
            yield chunk

    def transform(self, input: Iterator[Any], config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Any]:
        yield from self.bound.transform(input, self._config(config), **{**self.kwargs, **kwargs})

    async def atransform(self, input: AsyncIterator[Any], config: Optional[RunnableConfig] = None, **kwargs: Any) -> AsyncIterator[Any]:
        async for chunk in self.bound.atransform(input, self._config(config), **{**self.kwargs, **kwargs}):
            yield chunk

    def get_graph(self, config: Optional[RunnableConfig] = None) -> Graph:
        return self.bound.get_graph(self._config(config))

    def get_input_jsonschema(self, config: Optional[RunnableConfig] = None) -> dict[str, Any]:
        return self.bound.get_input_jsonschema(self._config(config))

    def get_output_jsonschema(self, config: Optional[RunnableConfig] = None) -> dict[str, Any]:
        return self.bound.get_output_jsonschema(self._config(config))

    def __repr__(self) -> str:
        return f"RunnableBinding(bound={self.bound!r}, kwargs={self.kwargs!r}, config={self.config!r})"
