"""``BaseMemory``: what a classic chain loads before its call and saves after it."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from typing import Any

from rag._fields import assign_fields

__all__ = ["BaseMemory"]


class BaseMemory(ABC):
    """State a :class:`~rag.classic.chains.Chain` keeps between calls.

    A chain calls :meth:`load_memory_variables` with its inputs before running and merges
    the result into them (so ``memory_variables`` become prompt variables), then calls
    :meth:`save_context` with the inputs and its outputs. Subclasses declare their settings
    as annotated class attributes and are built from keywords (see :mod:`rag._fields`).

    >>> class Fixed(BaseMemory):
    ...     memory_variables = ["fact"]
    ...     def load_memory_variables(self, inputs): return {"fact": "the sky is blue"}
    ...     def save_context(self, inputs, outputs): pass
    ...     def clear(self): pass
    >>> Fixed().load_memory_variables({})
    {'fact': 'the sky is blue'}
    """

    def __init__(self, **fields: Any) -> None:
        assign_fields(self, fields, BaseMemory)
        self._check()

    def _check(self) -> None:
        """Validate the fields once built (subclasses override; the default accepts all)."""

    @property
    @abstractmethod
    def memory_variables(self) -> list[str]:
        """The keys :meth:`load_memory_variables` returns."""

    @abstractmethod
    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The remembered values for a call with ``inputs``."""

    @abstractmethod
    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Remember one call's ``inputs`` and ``outputs``."""

    @abstractmethod
    def clear(self) -> None:
        """Forget everything."""

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return await asyncio.to_thread(self.load_memory_variables, inputs)

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        await asyncio.to_thread(self.save_context, inputs, outputs)

    async def aclear(self) -> None:
        await asyncio.to_thread(self.clear)
