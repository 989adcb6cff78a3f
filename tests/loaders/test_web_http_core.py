"""The fetching core: backoff, Retry-After, rate limiting, sync/async bridges, size cap."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from web_test_site import FakeClock, Response, Site, _web_site_server, html, site

from loaders._async import iterate_in_thread, ordered_map
from loaders._http import (
    FetchError,
    HttpFetcher,
    HttpSettings,
    PageNotFoundError,
    RateLimiter,
    backoff_delay,
    retry_after_seconds,
)


def test_backoff_doubles_from_the_base_and_is_capped() -> None:
    delays = [backoff_delay(retry, backoff=0.5, max_backoff=3.0) for retry in range(1, 6)]
    assert delays == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_retry_after_in_seconds() -> None:
    assert retry_after_seconds("120", now=0.0) == 120.0


def test_retry_after_as_an_http_date_is_measured_from_now() -> None:
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0


def test_retry_after_in_the_past_means_no_wait() -> None:
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412490.0) == 0.0


@pytest.mark.parametrize("value", [None, "", "soon", "-5"])
def test_absent_or_unreadable_retry_after_is_none(value: str | None) -> None:
    assert retry_after_seconds(value, now=0.0) is None


def test_rate_limiter_spaces_request_starts_by_the_interval() -> None:
    clock = FakeClock()

    async def five_requests() -> None:
        limiter = RateLimiter(10.0, clock)
        for _ in range(5):
            await limiter.acquire()

    asyncio.run(five_requests())
    assert clock.sleeps == [0.1, 0.1, 0.1, 0.1]


def test_rate_limiter_gives_concurrent_callers_successive_slots() -> None:
    clock = FakeClock(advance=False)  # all four arrive at the same instant

    async def concurrent_requests() -> None:
        limiter = RateLimiter(4.0, clock)
        await asyncio.gather(*(limiter.acquire() for _ in range(4)))

    asyncio.run(concurrent_requests())
    assert clock.sleeps == [0.25, 0.5, 0.75]


def test_iterate_in_thread_yields_items_in_order() -> None:
    async def numbers():
        for number in range(200):
            yield number

    assert list(iterate_in_thread(numbers)) == list(range(200))


def test_iterate_in_thread_works_inside_a_running_event_loop() -> None:
    async def letters():
        yield "a"
        yield "b"

    async def caller() -> list[str]:
        return list(iterate_in_thread(letters))  # sync call from async code

    assert asyncio.run(caller()) == ["a", "b"]


def test_iterate_in_thread_raises_the_async_sides_exception() -> None:
    async def failing():
        yield 1
        raise ValueError("broken source")

    iterator = iterate_in_thread(failing)
    assert next(iterator) == 1
    with pytest.raises(ValueError, match="broken source"):
        next(iterator)


def test_iterate_in_thread_starts_nothing_before_the_first_item() -> None:
    started = threading.Event()

    async def watched():
        started.set()
        yield 1

    iterator = iterate_in_thread(watched)
    time.sleep(0.02)
    assert not started.is_set()
    assert next(iterator) == 1


def test_closing_iterate_in_thread_early_stops_the_async_side() -> None:
    finished = threading.Event()

    async def endless():
        try:
            number = 0
            while True:
                yield number
                number += 1
        finally:
            finished.set()

    iterator = iterate_in_thread(endless)
    assert [next(iterator) for _ in range(3)] == [0, 1, 2]
    iterator.close()
    assert finished.wait(2)


def test_ordered_map_yields_in_input_order_whatever_finishes_first() -> None:
    async def slow_for_small(number: int) -> int:
        await asyncio.sleep(0.001 * (5 - number))
        return number * 10

    async def collect() -> list[int]:
        return [value async for value in ordered_map(slow_for_small, range(5), window=5)]

    assert asyncio.run(collect()) == [0, 10, 20, 30, 40]


def test_ordered_map_keeps_at_most_window_calls_in_flight() -> None:
    in_flight = 0
    peak = 0

    async def tracked(number: int) -> int:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.001)
        in_flight -= 1
        return number

    async def collect() -> list[int]:
        return [value async for value in ordered_map(tracked, range(20), window=3)]

    assert asyncio.run(collect()) == list(range(20))
    assert peak == 3


def fetch(site: Site, path: str, **settings: object) -> object:
    async def run() -> object:
        async with HttpFetcher(HttpSettings(**settings), clock=FakeClock()) as fetcher:  # type: ignore[arg-type]
            return await fetcher.fetch(site.url(path))

    return asyncio.run(run())


def test_fetch_returns_status_headers_and_body(site: Site) -> None:
    page = fetch(site, "/docs/page2.html")
    assert page.status_code == 200
    assert page.content_type == "text/html"
    assert page.charset == "utf-8"
    assert b"Page two" in page.content
    assert not page.redirected


def test_fetch_follows_redirects_and_reports_the_final_url(site: Site) -> None:
    page = fetch(site, "/docs/moved.html")
    assert page.final_url == site.url("/docs/landing.html")
    assert page.redirected


def test_a_404_is_a_page_not_found_error_which_is_a_file_not_found_error(site: Site) -> None:
    with pytest.raises(PageNotFoundError) as caught:
        fetch(site, "/nowhere")
    assert isinstance(caught.value, FileNotFoundError)
    assert caught.value.status == 404
    assert caught.value.url == site.url("/nowhere")


def test_a_body_streamed_past_the_cap_is_refused_without_content_length(site: Site) -> None:
    site.add("/chunked", lambda: Response(body=b"x" * 5000, headers={"Content-Type": "text/plain"}))
    with pytest.raises(FetchError, match="max_bytes=100"):
        fetch(site, "/chunked", max_bytes=100)


def test_the_default_user_agent_names_the_toolkit(site: Site) -> None:
    fetch(site, "/docs/page2.html")
    assert site.hits[-1].headers["User-Agent"].startswith("ragpath/")


def test_connection_refused_is_retried_then_reported(site: Site) -> None:
    clock = FakeClock()

    async def run() -> None:
        async with HttpFetcher(HttpSettings(max_retries=2), clock=clock) as fetcher:
            await fetcher.fetch("http://127.0.0.1:9/unreachable")  # the discard port: refused

    with pytest.raises(
        FetchError, match="Could not fetch http://127.0.0.1:9/unreachable"
    ) as caught:
        asyncio.run(run())
    assert caught.value.status is None
    assert clock.sleeps == [0.5, 1.0]


def test_retry_after_longer_than_max_backoff_stops_retrying(site: Site) -> None:
    site.add("/later", Response(status=503, headers={"Retry-After": "3600"}))
    with pytest.raises(FetchError, match="Retry-After 3600 s exceeds max_backoff=60"):
        fetch(site, "/later")
    assert site.paths() == ["/later"]


def test_fetching_outside_async_with_is_a_usage_error() -> None:
    from rag.errors import UsageError

    with pytest.raises(UsageError, match="async with"):
        asyncio.run(HttpFetcher(HttpSettings()).fetch("http://127.0.0.1:9/"))


def test_a_408_is_retried_like_any_transient_status(site: Site) -> None:
    site.add("/busy", [Response(status=408), html("<p>ok</p>")])
    clock = FakeClock()

    async def run() -> object:
        async with HttpFetcher(HttpSettings(), clock=clock) as fetcher:
            return await fetcher.fetch(site.url("/busy"))

    assert asyncio.run(run()).status_code == 200  # type: ignore[attr-defined]
    assert clock.sleeps == [0.5]
