"""HTTP calls with retries: backoff policy and status/transport errors mapped to APIError.

The decisions (retry or not, how long to wait, which error) are pure functions shared by
the sync and async loops; the loops differ only in ``await``.
"""

from __future__ import annotations

import datetime
import email.utils
import json
import logging
import random
import time
import asyncio
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Optional

import httpx

from rag.models.errors import APIConnectionError, APIError, APITimeoutError, status_error_class
from rag.runnables.retry import exponential_jitter_delay

__all__ = ["Backoff", "send_with_retries", "asend_with_retries", "redact"]

logger = logging.getLogger("rag.models.http")

RETRY_STATUSES = frozenset({408, 409, 429})  # and every 5xx


@dataclass
class Backoff:
    """How to wait between retries. Without ``Retry-After``, attempt n waits
    ``initial * 2**(n-1)`` seconds plus up to ``jitter`` seconds, at most ``maximum``
    (defaults 0.5, 0.25 and 8 s). A server's ``Retry-After`` (seconds or an HTTP date, or
    ``retry-after-ms``) is honoured when between 0 and ``max_retry_after`` seconds (default 60).
    ``sleep``/``asleep``/``now`` are injectable for tests.
    """

    initial: float = 0.5
    maximum: float = 8.0
    jitter: float = 0.25
    max_retry_after: float = 60.0
    sleep: Callable[[float], None] = time.sleep
    asleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    now: Callable[[], float] = time.time
    rand: Callable[[], float] = field(default=random.random, repr=False)

    def delay(self, attempt: int, headers: Optional[httpx.Headers] = None) -> float:
        """Seconds to wait after failed ``attempt`` (1-based)."""
        server = self._retry_after(headers) if headers is not None else None
        if server is not None and 0 <= server <= self.max_retry_after:
            return server
        return exponential_jitter_delay(attempt, initial=self.initial, max=self.maximum, jitter=self.jitter, rand=self.rand)

    def _retry_after(self, headers: httpx.Headers) -> Optional[float]:
        if "retry-after-ms" in headers:
            try:
                return float(headers["retry-after-ms"]) / 1000
            except ValueError:
                pass
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return float(value)
        except ValueError:
            pass
        try:
            parsed = email.utils.parsedate_to_datetime(value) if value.strip() else None
        except (TypeError, ValueError):
            return None  # unparseable: fall back to our own backoff
        if parsed is None:
            return None
        if parsed.tzinfo is None:  # HTTP dates are GMT
            parsed = parsed.replace(tzinfo=datetime.timezone.utc)
        return parsed.timestamp() - self.now()


def redact(text: str, secret: Optional[str]) -> str:
    """``text`` with every occurrence of ``secret`` masked."""
    return text.replace(secret, "***") if secret else text


def _server_message(body: Any, raw: str) -> str:
    if isinstance(body, dict):
        error = body.get("error", body.get("detail", body.get("message")))
        if isinstance(error, dict):
            return str(error.get("message") or error)
        if error is not None:
            return str(error)
    return raw.strip()[:300] or "(empty body)"


def status_error(response: httpx.Response, secret: Optional[str]) -> APIError:
    """The :class:`APIStatusError` subclass for an error response, with the server's message."""
    raw = response.text
    try:
        body: Any = json.loads(raw)
    except ValueError:
        body = None
    message = redact(f"HTTP {response.status_code} from {response.request.url}: {_server_message(body, raw)}", secret)
    return status_error_class(response.status_code)(message, status_code=response.status_code, body=body)


def transport_error(exc: httpx.TransportError, url: Any, secret: Optional[str]) -> APIError:
    kind = APITimeoutError if isinstance(exc, httpx.TimeoutException) else APIConnectionError
    what = "timed out" if kind is APITimeoutError else "failed"
    return kind(redact(f"request to {url} {what}: {type(exc).__name__}: {exc}", secret))


def _should_retry(response: httpx.Response) -> bool:
    return response.status_code in RETRY_STATUSES or response.status_code >= 500


def _log_retry(url: Any, reason: str, delay: float, attempt: int, max_retries: int) -> None:
    logger.warning("retrying POST %s after %s in %.2f s (retry %d of %d)", url, reason, delay, attempt, max_retries)


def send_with_retries(client: httpx.Client, request: httpx.Request, *, stream: bool, max_retries: int,
                      backoff: Backoff, secret: Optional[str]) -> httpx.Response:
    """Send ``request``, retrying transport errors, 408/409/429 and 5xx up to ``max_retries``
    times; returns a 2xx/3xx response (open, when ``stream``) or raises an :class:`APIError`."""
    for attempt in range(1, max_retries + 2):
        try:
            response = client.send(request, stream=stream)
        except httpx.TransportError as exc:
            if attempt > max_retries:
                raise transport_error(exc, request.url, secret) from exc
            delay = backoff.delay(attempt)
            _log_retry(request.url, type(exc).__name__, delay, attempt, max_retries)
            backoff.sleep(delay)
            continue
        if response.status_code < 400:
            return response
        response.read()
        response.close()
        if attempt > max_retries or not _should_retry(response):
            raise status_error(response, secret)
        delay = backoff.delay(attempt, response.headers)
        _log_retry(request.url, f"HTTP {response.status_code}", delay, attempt, max_retries)
        backoff.sleep(delay)
    raise AssertionError("unreachable")  # the loop returns or raises


async def asend_with_retries(client: httpx.AsyncClient, request: httpx.Request, *, stream: bool, max_retries: int,
                             backoff: Backoff, secret: Optional[str]) -> httpx.Response:
    """Async :func:`send_with_retries`."""
    for attempt in range(1, max_retries + 2):
        try:
            response = await client.send(request, stream=stream)
        except httpx.TransportError as exc:
            if attempt > max_retries:
                raise transport_error(exc, request.url, secret) from exc
            delay = backoff.delay(attempt)
            _log_retry(request.url, type(exc).__name__, delay, attempt, max_retries)
            await backoff.asleep(delay)
            continue
        if response.status_code < 400:
            return response
        await response.aread()
        await response.aclose()
        if attempt > max_retries or not _should_retry(response):
            raise status_error(response, secret)
        delay = backoff.delay(attempt, response.headers)
        _log_retry(request.url, f"HTTP {response.status_code}", delay, attempt, max_retries)
        await backoff.asleep(delay)
    raise AssertionError("unreachable")
