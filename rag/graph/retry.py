"""``RetryPolicy``: run a failing node again, with LangGraph's fields and defaults.

``add_node("fetch", fetch, retry_policy=RetryPolicy(max_attempts=5))``: when ``fetch``
raises an error ``retry_on`` accepts, it runs again after ``initial_interval`` seconds,
each wait ``backoff_factor`` times the last (at most ``max_interval``), up to
``max_attempts`` runs in all; then the step fails with the last error. A pause
(``interrupt()``) is never retried.

>>> RetryPolicy(max_attempts=2).max_attempts
2
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Sequence, Union

from rag.errors import ValidationError
from rag.graph.errors import GraphInterrupt

__all__ = ["RetryPolicy", "default_retry_on", "run_with_retry", "arun_with_retry"]

# Errors of the caller's own making, not of the moment: retrying would fail the same way.
_NOT_TRANSIENT = (ValueError, TypeError, ArithmeticError, ImportError, LookupError, NameError, SyntaxError,
                  RuntimeError, ReferenceError, StopIteration, StopAsyncIteration, OSError)


def default_retry_on(error: Exception) -> bool:
    """LangGraph's default: retry connection errors and HTTP 5xx answers; not errors of
    the program itself (``ValueError``, ``TypeError``, ``LookupError``, ``OSError``...)."""
    if isinstance(error, ConnectionError):
        return True
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    if isinstance(status, int) and type(error).__name__ in ("HTTPStatusError", "HTTPError"):
        return 500 <= status < 600  # httpx.HTTPStatusError, requests.HTTPError
    return not isinstance(error, _NOT_TRANSIENT)


@dataclass(frozen=True)
class RetryPolicy:
    """How to retry a node (LangGraph's fields and defaults; intervals in seconds)."""

    initial_interval: float = 0.5
    backoff_factor: float = 2.0
    max_interval: float = 128.0
    max_attempts: int = 3
    jitter: bool = True
    retry_on: Union[type, Sequence[type], Callable[[Exception], bool]] = default_retry_on

    def __post_init__(self) -> None:
        for name in ("initial_interval", "max_interval"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValidationError(f"RetryPolicy {name} must be a number of seconds >= 0, got {value!r}")
        if isinstance(self.backoff_factor, bool) or not isinstance(self.backoff_factor, (int, float)) \
                or self.backoff_factor < 1:
            raise ValidationError(f"RetryPolicy backoff_factor must be >= 1, got {self.backoff_factor!r}")
        if isinstance(self.max_attempts, bool) or not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise ValidationError(f"RetryPolicy max_attempts must be an int >= 1, got {self.max_attempts!r}")

    def retries(self, error: Exception) -> bool:
        """Whether ``error`` is one this policy retries."""
        if isinstance(error, GraphInterrupt):
            return False
        if isinstance(self.retry_on, type):
            return isinstance(error, self.retry_on)
        if isinstance(self.retry_on, Sequence):
            return isinstance(error, tuple(self.retry_on))
        return bool(self.retry_on(error))

    def wait(self, attempt: int) -> float:
        """Seconds to wait before run ``attempt + 1`` (``attempt`` >= 1 runs so far)."""
        interval = min(self.max_interval, self.initial_interval * self.backoff_factor ** (attempt - 1))
        return interval + (random.uniform(0, 1) if self.jitter and interval else 0)


def _policy_for(policies: Sequence[RetryPolicy], error: Exception) -> Any:
    return next((policy for policy in policies if policy.retries(error)), None)


def run_with_retry(run: Callable[[], Any], policies: Sequence[RetryPolicy]) -> Any:
    """``run()``, again under the first of ``policies`` that retries its error."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return run()
        except Exception as error:
            policy = _policy_for(policies, error)
            if policy is None or attempt >= policy.max_attempts:
                raise
            time.sleep(policy.wait(attempt))


async def arun_with_retry(run: Callable[[], Awaitable[Any]], policies: Sequence[RetryPolicy]) -> Any:
    """Async :func:`run_with_retry`."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return await run()
        except Exception as error:
            policy = _policy_for(policies, error)
            if policy is None or attempt >= policy.max_attempts:
                raise
            await asyncio.sleep(policy.wait(attempt))
