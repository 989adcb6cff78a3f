"""HTTP to an OpenAI-compatible server, shared by ``ChatOpenAI`` and ``OpenAIEmbeddings``:
which server (:func:`resolve_base_url`), one send loop retried under a
:class:`~rag._retry.RetryPolicy`, and failures mapped to the
:class:`~rag.errors.APIError` family with the server's own message (the key masked).

The sync and async loops differ only in ``await``; every decision is in
:func:`_wait_or_raise`, which either returns the seconds to sleep or raises.
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
import os
import random
import time
from typing import Any, Awaitable, Callable, Optional, Union

import httpx

from rag._retry import RetryPolicy, retry_after_from_headers
from rag.errors import APIConnectionError, APIError, APITimeoutError, ValidationError, status_error_class

__all__ = ["send_with_retries", "asend_with_retries", "status_error", "transport_error", "redact",
           "resolve_base_url", "OPENAI_BASE_URL"]

logger = logging.getLogger("rag.models.http")

#: OpenAI's own API: the server when neither ``base_url`` nor ``$OPENAI_BASE_URL`` names one.
OPENAI_BASE_URL = "https://api.openai.com/v1"


def resolve_base_url(base_url: Optional[str]) -> str:
    """``base_url``, else ``$OPENAI_BASE_URL``, else :data:`OPENAI_BASE_URL`, without a
    trailing slash; ValidationError unless it is an http(s) URL.

    >>> resolve_base_url("http://localhost:11434/v1/")
    'http://localhost:11434/v1'
    """
    url = base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ValidationError(f"base_url must start with http:// or https://, got {url!r}")
    return url.rstrip("/")


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


def _attempts(attempts: int) -> str:
    return f" after {attempts} attempts" if attempts > 1 else ""


def status_error(response: httpx.Response, secret: Optional[str], attempts: int = 1) -> APIError:
    """The :class:`~rag.errors.APIStatusError` subclass for an error response (read
    already), with the server's message and how many ``attempts`` were made."""
    raw = response.text
    try:
        body: Any = json.loads(raw)
    except ValueError:
        body = None
    message = redact(f"HTTP {response.status_code} from {response.request.url}{_attempts(attempts)}: "
                     f"{_server_message(body, raw)}", secret)
    return status_error_class(response.status_code)(message, status_code=response.status_code, body=body)


def transport_error(exc: httpx.TransportError, url: Any, secret: Optional[str], attempts: int = 1) -> APIError:
    """:class:`~rag.errors.APITimeoutError` for a timeout, else :class:`~rag.errors.APIConnectionError`."""
    kind = APITimeoutError if isinstance(exc, httpx.TimeoutException) else APIConnectionError
    what = "timed out" if kind is APITimeoutError else "failed"
    return kind(redact(f"request to {url} {what}{_attempts(attempts)}: {type(exc).__name__}: {exc}", secret))


def _wait_or_raise(attempt: int, failure: Union[httpx.Response, httpx.TransportError], request: httpx.Request, *,
                   max_retries: int, policy: RetryPolicy, rand: Callable[[], float], now: Callable[[], float],
                   secret: Optional[str]) -> float:
    """Seconds to wait after failed ``attempt`` (1-based), or the APIError when it was the last."""
    if isinstance(failure, httpx.Response):
        retry_after = retry_after_from_headers(failure.headers, now=now())
        wait = policy.wait_before_retry(attempt, failure.status_code, max_retries=max_retries,
                                        retry_after=retry_after, rng=rand)
        if wait is None:
            raise status_error(failure, secret, attempt)
        reason = f"HTTP {failure.status_code}"
    else:
        wait = policy.wait_before_retry(attempt, failure, max_retries=max_retries, rng=rand)
        if wait is None:
            raise transport_error(failure, request.url, secret, attempt) from failure
        reason = type(failure).__name__
    logger.warning("retrying %s %s after %s in %.2f s (retry %d of %d)",
                   request.method, request.url, reason, wait, attempt, max_retries)
    return wait


def send_with_retries(client: httpx.Client, request: httpx.Request, *, stream: bool, max_retries: int,
                      policy: RetryPolicy, sleep: Callable[[float], None], secret: Optional[str],
                      rand: Callable[[], float] = random.random, now: Callable[[], float] = time.time) -> httpx.Response:
    """Send ``request``, retrying what ``policy`` retries up to ``max_retries`` times;
    returns a 2xx/3xx response (open, when ``stream``) or raises an :class:`APIError`.
    ``sleep`` waits, ``rand`` gives the jitter, ``now`` reads Retry-After dates."""
    wait = functools.partial(_wait_or_raise, request=request, max_retries=max_retries, policy=policy, rand=rand,
                             now=now, secret=secret)
    for attempt in itertools.count(1):
        try:
            response = client.send(request, stream=stream)
        except httpx.TransportError as exc:
            sleep(wait(attempt, exc))
            continue
        if response.status_code < 400:
            return response
        response.read()
        response.close()
        sleep(wait(attempt, response))
    raise AssertionError("unreachable")  # the loop returns or raises


async def asend_with_retries(client: httpx.AsyncClient, request: httpx.Request, *, stream: bool, max_retries: int,
                             policy: RetryPolicy, asleep: Callable[[float], Awaitable[None]], secret: Optional[str],
                             rand: Callable[[], float] = random.random,
                             now: Callable[[], float] = time.time) -> httpx.Response:
    """Async :func:`send_with_retries` (``asleep`` waits)."""
    wait = functools.partial(_wait_or_raise, request=request, max_retries=max_retries, policy=policy, rand=rand,
                             now=now, secret=secret)
    for attempt in itertools.count(1):
        try:
            response = await client.send(request, stream=stream)
        except httpx.TransportError as exc:
            await asleep(wait(attempt, exc))
            continue
        if response.status_code < 400:
            return response
        await response.aread()
        await response.aclose()
        await asleep(wait(attempt, response))
    raise AssertionError("unreachable")
