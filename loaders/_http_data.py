"""The web fetcher's interface as plain data: what it is told (:class:`HttpSettings`, the
default headers), what it gives back (:class:`FetchedPage`) and the clock it reads
(:class:`Clock`). The fetching itself is :mod:`loaders._http`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from rag._retry import RetryPolicy

__all__ = [
    "Clock",
    "SystemClock",
    "HttpSettings",
    "FetchedPage",
    "backoff_delay",
    "DEFAULT_USER_AGENT",
    "DEFAULT_HEADERS",
]

DEFAULT_USER_AGENT = "ragpath/0.1 (+https://pypi.org/project/ragpath/; web loader)"
DEFAULT_HEADERS: Mapping[str, str] = {
    "User-Agent": DEFAULT_USER_AGENT,
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5",
    "Accept-Language": "en-US,en;q=0.5",
}


class Clock(Protocol):
    """Where the fetcher reads the time and waits; inject a fake one in tests."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back."""
        ...

    def time(self) -> float:
        """Wall-clock seconds since the epoch (to read ``Retry-After`` dates)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` without blocking the event loop."""
        ...


class SystemClock:
    """The real clock: :func:`time.monotonic`, :func:`time.time` and :func:`asyncio.sleep`."""

    def monotonic(self) -> float:
        return time.monotonic()

    def time(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


@dataclass(frozen=True)
class HttpSettings:
    """How to fetch: plain data, validated by the loaders that build it.

    ``timeout`` is seconds per connect/read/write (None: no limit); ``page_deadline`` is
    seconds one attempt at a page may take in all, redirects and body included (default
    120; None: no limit), as a server sending a byte every few seconds never trips
    ``timeout``; a page past it is a failure, not retried. ``max_bytes`` caps a
    body after decompression (None: no cap); ``max_retries`` counts extra attempts after
    the first, under :meth:`retry_policy`: the n-th retry waits ``backoff * 2**(n-1)``
    seconds (capped at ``max_backoff``) unless the server sent ``Retry-After``; a
    ``Retry-After`` longer than ``max_backoff`` ends the retries. ``max_concurrency`` caps
    requests in flight and ``rate_limit`` (requests per second, None: none) spaces their
    starts.
    """

    headers: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_HEADERS))
    verify: bool = True
    proxies: Mapping[str, str] | None = None
    timeout: float | None = 10.0
    page_deadline: float | None = 120.0
    max_bytes: int | None = 10_000_000
    max_retries: int = 3
    backoff: float = 0.5
    max_backoff: float = 60.0
    max_concurrency: int = 2
    rate_limit: float | None = None
    follow_redirects: bool = True
    cookies: Mapping[str, str] | None = None
    auth: tuple[str, str] | None = None
    params: Mapping[str, Any] | None = None
    trust_env: bool = False

    def retry_policy(self) -> RetryPolicy:
        """The toolkit's :class:`~rag._retry.RetryPolicy` with these numbers. No jitter: one
        load's requests are already spaced by ``max_concurrency`` and ``rate_limit``, and
        fixed waits keep a crawl reproducible. A site asking for a longer wait than
        ``max_backoff`` (maintenance) ends the retries rather than being asked again early."""
        return RetryPolicy(min_seconds=self.backoff, max_seconds=self.max_backoff, jitter=0.0,
                           max_retry_after=self.max_backoff, on_long_retry_after="give_up")


@dataclass(frozen=True)
class FetchedPage:
    """A successful response: the requested ``url``, the ``final_url`` after redirects,
    ``status_code``, ``headers`` and the body ``content`` (bytes, decompressed; empty and
    ``complete`` False when the caller chose not to read it)."""

    url: str
    final_url: str
    status_code: int
    headers: httpx.Headers
    content: bytes
    complete: bool = True

    @property
    def content_type(self) -> str:
        """The media type, lower-case, without parameters (``""`` when absent)."""
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    @property
    def charset(self) -> str | None:
        """The ``charset`` parameter of ``Content-Type``, if any."""
        for parameter in self.headers.get("content-type", "").split(";")[1:]:
            key, _, value = parameter.partition("=")
            if key.strip().lower() == "charset" and value.strip():
                return value.strip().strip("\"'")
        return None

    @property
    def redirected(self) -> bool:
        return self.final_url != self.url


def backoff_delay(retry: int, *, backoff: float, max_backoff: float) -> float:
    """Seconds before retry number ``retry`` (1-based): ``backoff * 2**(retry-1)``, capped.

    >>> [backoff_delay(n, backoff=0.5, max_backoff=60) for n in (1, 2, 3)]
    [0.5, 1.0, 2.0]
    """
    return RetryPolicy(min_seconds=backoff, max_seconds=max_backoff, jitter=0.0).delay(retry)
