"""A conditional edge of a :class:`~rag.graph.state_graph.StateGraph`: the path function,
its ``path_map`` and the targets it may name, decided sync or async and checked against
the graph's nodes."""

import asyncio
import inspect
import typing
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Optional, Union

from rag.graph._inject import call_injected
from rag.graph.constants import END
from rag.graph.errors import InvalidUpdateError
from rag.graph.types import Send
from rag.runnables import Runnable

__all__ = ["Branch", "literal_ends"]


@dataclass(frozen=True)
class Branch:
    """A conditional edge: ``path(state)`` returns a target (or a list of them), looked
    up in ``path_map`` when one is given. ``ends`` lists the possible targets (None: unknown)."""

    source: str
    path: Callable[..., Any]
    path_map: Optional[dict[Hashable, str]]
    ends: Optional[tuple[str, ...]]
    #: What ``path`` reads from the state dict (a model instance for a pydantic state...); None: the dict.
    reader: Optional[Callable[[dict[str, Any]], Any]] = None

    def targets(self, state: dict[str, Any], config: Any, nodes: Any) -> list[Union[str, Send]]:
        """The nodes (or :class:`Send` tasks) to run after ``source``; raises naming the
        source and the value when a target is unknown."""
        return self.resolve(self.decide(state, config), nodes)

    def decide(self, state: dict[str, Any], config: Any) -> Any:
        """``path``'s answer, unchecked; an async ``path`` is run to its end (on its own
        event loop, in a thread when this one already runs a loop)."""
        state = self.reader(state) if self.reader is not None else state
        result = self.path.invoke(state, config) if isinstance(self.path, Runnable) else \
            call_injected(self.path, state, config)
        return _finish(result) if inspect.isawaitable(result) else result

    async def adecide(self, state: dict[str, Any], config: Any) -> Any:
        """Async :meth:`decide`: an async ``path`` (or a Runnable's ``ainvoke``) is awaited."""
        state = self.reader(state) if self.reader is not None else state
        if isinstance(self.path, Runnable):
            return await self.path.ainvoke(state, config)
        result = call_injected(self.path, state, config)
        return await result if inspect.isawaitable(result) else result

    def resolve(self, result: Any, nodes: Any) -> list[Union[str, Send]]:
        """The targets ``result`` (``path``'s answer) names, checked against ``nodes``."""
        values = list(result) if isinstance(result, (list, tuple)) else [result]
        found = []
        for value in values:
            if isinstance(value, Send):
                if value.node not in nodes:
                    raise InvalidUpdateError(
                        f"the conditional edge from {self.source!r} returned Send({value.node!r}, ...), which is "
                        f"not a node; nodes are {list(nodes)}"
                    )
                found.append(value)
                continue
            if self.path_map is not None:
                if value not in self.path_map:
                    raise InvalidUpdateError(
                        f"the conditional edge from {self.source!r} returned {value!r}, which is not in its "
                        f"path_map {list(self.path_map)}"
                    )
                value = self.path_map[value]
            if value != END and value not in nodes:
                raise InvalidUpdateError(
                    f"the conditional edge from {self.source!r} returned {value!r}, which is not a node; "
                    f"nodes are {list(nodes)} (or END)"
                )
            found.append(value)
        return found


def _finish(awaitable: Any) -> Any:
    """Run ``awaitable`` to its end from sync code (a sync run of a graph with an async path)."""
    async def wait() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    with ThreadPoolExecutor(max_workers=1) as pool:  # asyncio.run refuses to nest in a running loop
        return pool.submit(asyncio.run, wait()).result()


def literal_ends(path: Callable[..., Any]) -> Optional[tuple[str, ...]]:
    """Targets named by a ``-> Literal["a", "b"]`` return annotation, for drawings."""
    try:
        hint = typing.get_type_hints(path).get("return")
    except Exception:  # a parameter's annotation names a class out of reach: the return's alone may resolve
        try:
            hint = typing.get_type_hints(type("_Returns", (), {"__annotations__": {
                "r": getattr(path, "__annotations__", {}).get("return")}}), getattr(path, "__globals__", None)).get("r")
        except Exception:  # unresolvable: targets unknown
            return None
    if typing.get_origin(hint) is typing.Literal:
        return tuple(str(v) for v in typing.get_args(hint))
    return None
