"""RunnableBranch: the first branch whose condition holds runs; else the default.

As LangChain traces it: one run for the branch, conditions and the chosen runnable nested
under it, tagged ``condition:N`` and ``branch:N`` (or ``branch:default``), the tags
inherited by everything they call.
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Iterator, Mapping, Optional

from rag.errors import InvalidTypeError, ValidationError
from rag.runnables.base import Runnable, coerce_to_runnable
from rag.runnables.config import RunnableConfig

__all__ = ["RunnableBranch"]


def _tagged(config: Any, tag: str) -> dict[str, Any]:
    return {**config, "tags": [*(config.get("tags") or []), tag]}


class RunnableBranch(Runnable[Any, Any]):
    """``RunnableBranch((condition, runnable), ..., default)``: conditions are tried in
    order on the input (each a Runnable or a function returning a truth value); the first
    that holds runs its runnable on the same input, otherwise ``default`` runs. Needs at
    least one branch and the default. Sync, async and streaming (the chosen runnable's
    chunks are passed on as they come).

    >>> branch = RunnableBranch((lambda x: x < 0, lambda x: "negative"), (lambda x: x == 0, lambda x: "zero"),
    ...                         lambda x: "positive")
    >>> [branch.invoke(n) for n in (-1, 0, 5)]
    ['negative', 'zero', 'positive']
    """

    def __init__(self, *branches: Any, name: Optional[str] = None) -> None:
        if len(branches) < 2:
            raise ValidationError(f"RunnableBranch requires at least two branches (conditions and a default), "
                                  f"got {len(branches)}")
        default = branches[-1]
        if not isinstance(default, (Runnable, Mapping)) and not callable(default):
            raise InvalidTypeError(f"RunnableBranch default must be Runnable, callable or mapping, got {default!r:.60}")
        pairs = []
        for branch in branches[:-1]:
            if not isinstance(branch, (tuple, list)):
                raise InvalidTypeError(f"RunnableBranch branches must be tuples or lists, not {type(branch)}")
            if len(branch) != 2:
                raise ValidationError(f"RunnableBranch branches must be tuples or lists of length 2, not {len(branch)}")
            pairs.append((coerce_to_runnable(branch[0]), coerce_to_runnable(branch[1])))
        self.branches: list[tuple[Runnable, Runnable]] = pairs
        self.default: Runnable = coerce_to_runnable(default)
        self.name = name

    def _choose(self, input: Any, config: Any) -> tuple[Runnable, dict[str, Any]]:
        for index, (condition, runnable) in enumerate(self.branches, start=1):
            if condition.invoke(input, _tagged(config, f"condition:{index}")):
                return runnable, _tagged(config, f"branch:{index}")
        return self.default, _tagged(config, "branch:default")

    async def _achoose(self, input: Any, config: Any) -> tuple[Runnable, dict[str, Any]]:
        for index, (condition, runnable) in enumerate(self.branches, start=1):
            if await condition.ainvoke(input, _tagged(config, f"condition:{index}")):
                return runnable, _tagged(config, f"branch:{index}")
        return self.default, _tagged(config, "branch:default")

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        def body(value: Any, child: Any) -> Any:
            runnable, chosen = self._choose(value, child)
            return runnable.invoke(value, chosen, **kwargs)

        return self._call_traced(body, input, config)

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        async def body(value: Any, child: Any) -> Any:
            runnable, chosen = await self._achoose(value, child)
            return await runnable.ainvoke(value, chosen, **kwargs)

        return await self._acall_traced(body, input, config)

    def stream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Any]:
        def body(value: Any, child: Any) -> Iterator[Any]:
            runnable, chosen = self._choose(value, child)
            yield from runnable.stream(value, chosen, **kwargs)

        return self._stream_traced(body, input, config)

    def astream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> AsyncIterator[Any]:
        async def body(value: Any, child: Any) -> AsyncIterator[Any]:
            runnable, chosen = await self._achoose(value, child)
            async for chunk in runnable.astream(value, chosen, **kwargs):
                yield chunk

        return self._astream_traced(body, input, config)

    def __repr__(self) -> str:
        return f"RunnableBranch(branches={len(self.branches)}, default={self.default!r:.60})"
