"""Polite HTTP fetching on httpx: concurrency cap, rate limit, retries with backoff, size cap.

One :class:`HttpFetcher` serves one load: it owns an ``httpx.AsyncClient`` (connection
reuse), a semaphore (concurrent requests) and a :class:`RateLimiter` (request starts per
second). Time is read and slept through a :class:`Clock`, so tests inject a fake one.
What retries and how long to wait is the toolkit's one policy, :mod:`rag._retry`. The
settings, the result and the clock are plain data in :mod:`loaders._http_data`, re-exported
here.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import logging
from collections.abc import Awaitable, Callable

import httpx

from loaders._http_data import (
    DEFAULT_HEADERS,
    DEFAULT_USER_AGENT,
    Clock,
    FetchedPage,
    HttpSettings,
    SystemClock,
    backoff_delay,
)
from loaders._inflate import BoundedInflater, InflateError, InflateLimitExceeded

from rag._retry import RETRY_STATUSES, retry_after_from_headers, retry_after_seconds
from rag.errors import FetchError, PageNotFoundError, RequestRefusedError, UsageError, ValidationError

__all__ = [
    "Clock",
    "SystemClock",
    "FetchError",
    "PageNotFoundError",
    "RequestRefusedError",
    "HttpSettings",
    "FetchedPage",
    "Guard",
    "RateLimiter",
    "HttpFetcher",
    "backoff_delay",
    "retry_after_seconds",
    "DEFAULT_USER_AGENT",
    "DEFAULT_HEADERS",
    "RETRY_STATUSES",
]

logger = logging.getLogger("loaders")


class RateLimiter:
    """Spaces the starts of requests at least ``1 / rate`` seconds apart (``rate`` > 0).

    Each caller reserves the next free slot under a lock, then sleeps outside it, so
    concurrent callers queue in arrival order without holding each other up.
    """

    def __init__(self, rate: float, clock: Clock) -> None:
        self.interval = 1.0 / rate
        self.clock = clock
        self._next_start = float("-inf")
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        async with self._lock:
            now = self.clock.monotonic()
            start = max(now, self._next_start)
            self._next_start = start + self.interval
        if start > now:
            await self.clock.sleep(start - now)


class _TooLarge(Exception):
    pass


Guard = Callable[[str], Awaitable["str | None"]]

# The guard of the fetch running in this task: httpx calls request hooks in the task that
# sends, for every redirect hop, so each fetch can have its own.
_GUARD: contextvars.ContextVar[Guard | None] = contextvars.ContextVar("fetch_guard", default=None)


async def _check_request(request: httpx.Request) -> None:
    guard = _GUARD.get()
    reason = await guard(str(request.url)) if guard is not None else None
    if reason is not None:
        raise RequestRefusedError(str(request.url), reason)


class _DeadlineExceeded(Exception):
    """A page took longer than ``page_deadline`` in all: a failure, never retried (a server
    dripping bytes would only drip them again)."""


class _BadBody(Exception):
    """A body that cannot be decoded: a failure, never retried."""


class HttpFetcher:
    """Fetch URLs under one :class:`HttpSettings`; use as ``async with`` (owns the client).

    >>> async def main():  # doctest: +SKIP
    ...     async with HttpFetcher(HttpSettings()) as fetcher:
    ...         page = await fetcher.fetch("https://example.com/")
    """

    def __init__(
        self,
        settings: HttpSettings,
        *,
        clock: Clock | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings = settings
        self.clock = clock or SystemClock()
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._semaphore = asyncio.Semaphore(settings.max_concurrency)
        self._limiter = (
            RateLimiter(settings.rate_limit, self.clock) if settings.rate_limit else None
        )

    async def __aenter__(self) -> HttpFetcher:
        settings = self.settings
        mounts = None
        if settings.proxies:
            mounts = {
                _proxy_pattern(scheme): httpx.AsyncHTTPTransport(
                    proxy=proxy, verify=settings.verify
                )
                for scheme, proxy in settings.proxies.items()
            }
        self._client = httpx.AsyncClient(
            # Only the encodings we can inflate with a bound (see _read_capped).
            headers={"Accept-Encoding": "gzip, deflate", **dict(settings.headers)},
            verify=settings.verify,
            timeout=httpx.Timeout(settings.timeout),
            follow_redirects=settings.follow_redirects,
            cookies=dict(settings.cookies) if settings.cookies else None,
            auth=settings.auth,
            params=dict(settings.params) if settings.params else None,
            # Connections kept open for reuse: as many as requests may be in flight.
            limits=httpx.Limits(
                max_connections=settings.max_concurrency,
                max_keepalive_connections=settings.max_concurrency,
            ),
            mounts=mounts,
            transport=self._transport,
            trust_env=settings.trust_env,
            event_hooks={"request": [_check_request]},
        )
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def fetch(
        self,
        url: str,
        *,
        read_body: Callable[[str], bool] | None = None,
        guard: Guard | None = None,
        limited: bool = True,
    ) -> FetchedPage:
        """GET ``url`` with retries; FetchError (PageNotFoundError for 404/410) on failure.

        ``read_body(content_type)`` (optional) decides from the media type whether the body
        is worth downloading; when it says no, ``content`` is ``b""`` and ``complete`` False.
        ``guard(url)`` (optional, async; see :class:`~loaders._guards.RedirectGuard`)
        returns a reason to refuse a request, or None; it is checked before each request,
        redirect hops included, so a refused redirect is never sent
        (:class:`~rag.errors.RequestRefusedError`, a FetchError). ``limited=False``: not
        counted against ``max_concurrency``, for a request a guard makes while a page's
        request waits on it (robots.txt): counting it could wait for a slot forever.
        Each attempt may take ``page_deadline`` seconds in all, from its first byte sent to
        its last byte read (the wait for a concurrency slot not counted).
        """
        token = _GUARD.set(guard)
        try:
            return await self._fetch(url, read_body, limited)
        finally:
            _GUARD.reset(token)

    async def _fetch(self, url: str, read_body: Callable[[str], bool] | None, limited: bool) -> FetchedPage:
        if self._client is None:
            raise UsageError("HttpFetcher.fetch() needs 'async with HttpFetcher(...)'")
        settings = self.settings
        policy = settings.retry_policy()
        attempt = 0
        while True:
            attempt += 1  # this try's number; the retry after it, if any, is retry number `attempt`
            try:
                page = await self._attempt(url, read_body, limited)
            except (httpx.RequestError, httpx.InvalidURL) as exc:
                detail = _describe_transport_error(exc, settings.timeout)
                delay = policy.wait_before_retry(attempt, exc, max_retries=settings.max_retries)
                if delay is None:  # used up, or retrying cannot help (a loop, a file:// redirect)
                    raise FetchError(f"Could not fetch {url}: {detail}", url=url) from exc
                logger.info("Fetching %s failed (%s); retry %d in %.2f s", url, detail, attempt, delay)
            except _BadBody as exc:
                raise FetchError(f"Could not fetch {url}: {exc}", url=url) from None
            except _DeadlineExceeded:
                raise FetchError(
                    f"Could not fetch {url}: no complete answer within "
                    f"page_deadline={settings.page_deadline:g} s (the server sends too slowly; "
                    "raise page_deadline to wait longer)",
                    url=url,
                ) from None
            except _TooLarge as exc:
                raise FetchError(
                    f"Could not fetch {url}: {exc} (max_bytes={settings.max_bytes})", url=url
                ) from None
            else:
                status = page.status_code
                if status < 400:
                    return page
                asked = retry_after_from_headers(page.headers, now=self.clock.time())
                reason = f"HTTP {status} {_reason(status)}"
                delay = policy.wait_before_retry(
                    attempt, status, max_retries=settings.max_retries, retry_after=asked
                )
                if delay is None:
                    if policy.should_retry(status) and policy.gives_up_on(asked):
                        reason += (
                            f", Retry-After {asked:g} s exceeds "
                            f"max_backoff={settings.max_backoff:g} s"
                        )
                    raise _status_error(url, status, reason, attempt - 1)
                logger.info("Fetching %s got %s; retry %d in %.2f s", url, reason, attempt, delay)
            await self.clock.sleep(delay)

    async def _attempt(self, url: str, read_body: Callable[[str], bool] | None, limited: bool) -> FetchedPage:
        if not limited:
            return await self._timed_exchange(url, read_body)
        async with self._semaphore:
            return await self._timed_exchange(url, read_body)

    async def _timed_exchange(self, url: str, read_body: Callable[[str], bool] | None) -> FetchedPage:
        if self._limiter is not None:
            await self._limiter.acquire()
        # `timeout` bounds each read; a server sending a byte just inside it could hold a
        # page for ever, so the whole exchange has a deadline too.
        try:
            return await asyncio.wait_for(self._exchange(url, read_body), self.settings.page_deadline)
        except asyncio.TimeoutError:
            raise _DeadlineExceeded() from None

    async def _exchange(self, url: str, read_body: Callable[[str], bool] | None) -> FetchedPage:
        assert self._client is not None
        async with self._client.stream("GET", url) as response:
            page = FetchedPage(
                url=url,
                final_url=str(response.url),
                status_code=response.status_code,
                headers=response.headers,
                content=b"",
                complete=False,
            )
            if (
                read_body is not None
                and page.status_code < 400
                and not read_body(page.content_type)
            ):
                return page
            return dataclasses.replace(
                page, content=await self._read_capped(response), complete=True
            )

    async def _read_capped(self, response: httpx.Response) -> bytes:
        cap = self.settings.max_bytes
        declared = response.headers.get("content-length", "")
        if cap is not None and declared.isdigit() and int(declared) > cap and response.status_code < 400:
            raise _TooLarge(f"Content-Length {int(declared)} bytes exceeds the size cap")
        codings = [c.strip() for c in response.headers.get("content-encoding", "").lower().split(",")]
        codings = [c for c in codings if c and c != "identity"]
        if len(codings) > 1 or (codings and codings[0] not in ("gzip", "x-gzip", "deflate")):
            # Stacked or unknown encodings: refused rather than decoded without a bound.
            raise _BadBody(f"unsupported Content-Encoding {response.headers['content-encoding']!r}")
        # Raw bytes, inflated here with the cap applied to the output: httpx would inflate
        # each network chunk fully first, and a 1 KB gzip body can hold gigabytes.
        inflater = BoundedInflater(codings[0], cap) if codings else None
        chunks: list[bytes] = []
        size = 0
        try:
            async for raw in response.aiter_raw():
                chunk = inflater.feed(raw) if inflater is not None else raw
                size += len(chunk)
                if cap is not None and size > cap:
                    raise _TooLarge(f"body exceeds the size cap after {size} bytes")
                chunks.append(chunk)
        except InflateLimitExceeded as exc:
            raise _TooLarge(f"the {codings[0]} body exceeds the size cap: it {exc}") from None
        except InflateError as exc:
            raise _BadBody(f"the body is not valid {codings[0]}: {exc}") from None
        return b"".join(chunks)


def _proxy_pattern(scheme: str) -> str:
    # LangChain (requests) spells proxies {"http": url, "https": url}; httpx wants "http://".
    scheme = scheme.rstrip("/:")
    if scheme not in ("http", "https", "all"):
        raise ValidationError(f"Invalid proxies key {scheme!r}: expected 'http', 'https' or 'all'")
    return f"{scheme}://"


def _status_error(url: str, status: int, reason: str, retries: int) -> FetchError:
    after = f" after {retries} retries" if retries else ""
    cls = PageNotFoundError if status in (404, 410) else FetchError
    return cls(f"Could not fetch {url}: {reason}{after}", url=url, status=status)


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _describe_transport_error(exc: Exception, timeout: float | None) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out after {timeout} s ({type(exc).__name__})"
    detail = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {detail}" if detail != type(exc).__name__ else detail
