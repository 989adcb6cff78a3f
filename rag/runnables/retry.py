"""Retrying a runnable with exponential backoff and jitter (``.with_retry(...)``)."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any, Awaitable, Callable, Optional

from rag.errors import ValidationError
from rag.runnables.base import Runnable
from rag.runnables.binding import RunnableBinding
from rag.runnables.config import RunnableConfig

__all__ = ["RunnableRetry", "exponential_jitter_delay"]

_JITTER_KEYS = frozenset({"initial", "max", "exp_base", "jitter"})


def exponential_jitter_delay(attempt: int, *, initial: float = 1.0, max: float = 60.0, exp_base: float = 2.0,
                             jitter: float = 1.0, rand: Callable[[], float] = random.random) -> float:
    """Seconds to wait after failed ``attempt`` (1-based): ``initial * exp_base**(attempt-1)``
    plus a uniform jitter in [0, ``jitter``), capped at ``max`` (the tenacity formula).

    >>> exponential_jitter_delay(3, initial=0.5, jitter=0, max=10)
    2.0
    """
    return float(min(max, initial * exp_base ** (attempt - 1) + jitter * rand()))


class RunnableRetry(RunnableBinding):
    """Runs ``bound`` again when it raises one of ``retry_exception_types``, at most
    ``max_attempt_number`` attempts in all (default 3), waiting between attempts
    (exponential with jitter by default: initial 1 s, max 60 s; ``exponential_jitter_params``
    overrides ``initial``, ``max``, ``exp_base``, ``jitter``; ``wait_exponential_jitter=False``
    retries at once). ``batch`` retries each input alone. Streams are not retried (chunks
    already passed on cannot be taken back), as in LangChain. ``sleep``/``asleep`` are the
    waiting functions (swap them in tests).

    >>> calls = []
    >>> def flaky(x):
    ...     calls.append(x)
    ...     if len(calls) < 2: raise TimeoutError("try again")
    ...     return x
    >>> from rag.runnables import RunnableLambda
    >>> RunnableLambda(flaky).with_retry(wait_exponential_jitter=False).invoke(5), len(calls)
    (5, 2)
    """

    def __init__(
        self,
        bound: Runnable,
        *,
        retry_exception_types: tuple[type[BaseException], ...] = (Exception,),
        wait_exponential_jitter: bool = True,
        exponential_jitter_params: Optional[dict[str, float]] = None,
        max_attempt_number: int = 3,
        sleep: Callable[[float], None] = time.sleep,
        asleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if isinstance(max_attempt_number, bool) or not isinstance(max_attempt_number, int) or max_attempt_number < 1:
            raise ValidationError(f"stop_after_attempt must be an int >= 1, got {max_attempt_number!r}")
        unknown = set(exponential_jitter_params or {}) - _JITTER_KEYS
        if unknown:
            raise ValidationError(
                f"exponential_jitter_params has unknown keys {sorted(unknown)}; use {sorted(_JITTER_KEYS)}"
            )
        if not (isinstance(retry_exception_types, tuple)
                and all(isinstance(t, type) and issubclass(t, BaseException) for t in retry_exception_types)):
            raise ValidationError(f"retry_if_exception_type must be a tuple of exception classes, got {retry_exception_types!r}")
        super().__init__(bound)
        self.retry_exception_types = retry_exception_types
        self.wait_exponential_jitter = wait_exponential_jitter
        self.exponential_jitter_params = dict(exponential_jitter_params or {})
        self.max_attempt_number = max_attempt_number
        self.sleep = sleep
        self.asleep = asleep

    def _delay(self, attempt: int) -> float:
        return exponential_jitter_delay(attempt, **self.exponential_jitter_params) if self.wait_exponential_jitter else 0.0

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        for attempt in range(1, self.max_attempt_number + 1):
            try:
                # Through the binding: a bound ``.bind()``/``.with_config()`` still applies.
                return RunnableBinding.invoke(self, input, config, **kwargs)
            except self.retry_exception_types:
                if attempt == self.max_attempt_number:
                    raise
                self.sleep(self._delay(attempt))
        raise AssertionError("unreachable")  # the loop returns or raises

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        for attempt in range(1, self.max_attempt_number + 1):
            try:
                return await RunnableBinding.ainvoke(self, input, config, **kwargs)
            except self.retry_exception_types:
                if attempt == self.max_attempt_number:
                    raise
                await self.asleep(self._delay(attempt))
        raise AssertionError("unreachable")

    def __repr__(self) -> str:
        return f"RunnableRetry(bound={self.bound!r}, max_attempt_number={self.max_attempt_number})"
