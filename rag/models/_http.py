"""How ``ChatOpenAI`` waits between retries: :class:`Backoff`, a :class:`~rag._retry.RetryPolicy`
spelled with this client's parameter names plus injectable clocks.

The send loop and the error mapping are shared with ``OpenAIEmbeddings`` in
:mod:`rag._openai_http`; the policy with the web loaders in :mod:`rag._retry`.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Optional

import httpx

from rag._retry import RetryPolicy, retry_after_from_headers

__all__ = ["Backoff"]

_DEFAULT = RetryPolicy()


@dataclass
class Backoff:
    """How to wait between retries. Without ``Retry-After``, attempt n waits
    ``initial * 2**(n-1)`` seconds plus up to ``jitter`` seconds, at most ``maximum``
    (defaults 0.5, 0.25 and 8 s). A server's ``Retry-After`` (seconds or an HTTP date, or
    ``retry-after-ms``) is honoured when between 0 and ``max_retry_after`` seconds (default
    60); a longer one is ignored for the backoff. This is :attr:`policy`, the toolkit's one
    :class:`~rag._retry.RetryPolicy` (which also says which statuses and errors retry).
    ``sleep``/``asleep``/``now``/``rand`` are injectable for tests.
    """

    initial: float = _DEFAULT.min_seconds
    maximum: float = _DEFAULT.max_seconds
    jitter: float = _DEFAULT.jitter
    max_retry_after: float = _DEFAULT.max_retry_after
    sleep: Callable[[float], None] = time.sleep
    asleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    now: Callable[[], float] = time.time
    rand: Callable[[], float] = field(default=random.random, repr=False)

    @property
    def policy(self) -> RetryPolicy:
        """These numbers as a :class:`~rag._retry.RetryPolicy` (``"backoff"`` on a long Retry-After)."""
        return RetryPolicy(min_seconds=self.initial, max_seconds=self.maximum, jitter=self.jitter,
                           max_retry_after=self.max_retry_after)

    def delay(self, attempt: int, headers: Optional[httpx.Headers] = None) -> float:
        """Seconds to wait after failed ``attempt`` (1-based)."""
        retry_after = self._retry_after(headers) if headers is not None else None
        return self.policy.delay(attempt, retry_after, self.rand)

    def _retry_after(self, headers: httpx.Headers) -> Optional[float]:
        return retry_after_from_headers(headers, now=self.now())
