"""Crawl a site breadth-first from one URL: concurrent, scoped, robots.txt-aware."""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from loaders._async import iterate_in_thread, ordered_map
from loaders._checks import non_negative_int, optional_positive, positive_int
from loaders._extract import PageScan, decode_body, scan_page
from loaders._guards import RedirectGuard
from loaders._http import DEFAULT_HEADERS, Clock, FetchedPage, FetchError, HttpFetcher, HttpSettings, RequestRefusedError
from loaders._links import regex_links, resolve_links
from loaders._robots import RobotsRules
from loaders._urls import is_within, normalize_url, url_directory, validate_http_url
from loaders.base import LoadReport, ReportingLoader
from rag import Document
from rag.errors import ValidationError

__all__ = ["RecursiveUrlLoader"]

logger = logging.getLogger("loaders")

_HTML_TYPES = frozenset({"", "text/html", "application/xhtml+xml"})
MetadataExtractor = Callable[..., dict[str, Any]]


def _is_html(content_type: str) -> bool:
    return content_type in _HTML_TYPES


@dataclass(frozen=True)
class _Crawled:
    """One fetched HTML page of the crawl, read in one streaming pass (no tree built)."""

    url: str
    page: FetchedPage
    html: str
    scan: PageScan


class RecursiveUrlLoader(ReportingLoader):
    """Documents for a start page and the pages it links to, breadth-first up to ``max_depth``.

    Args:
        url: the start page (http or https).
        max_depth: levels to load: 1 is the start page only, 2 (default) adds the pages
            it links to, and so on (LangChain's meaning).
        use_async: accepted for compatibility; the crawl is always concurrent.
        extractor: ``html -> text`` for a page's content; a page whose text is empty is
            left out. Default: the readable text (scripts, styles and site chrome
            dropped, blocks on their own lines). LangChain's default keeps the raw HTML;
            ``extractor=lambda html: html`` restores that.
        metadata_extractor: ``(html, url)`` or ``(html, url, response) -> dict``;
            ``response`` has ``headers``, ``status_code``, ``url`` and ``final_url``.
            Default: ``source``, ``content_type``, ``final_url`` when redirected, and
            ``title``, ``description``, ``language`` when the page has them.
        exclude_dirs: URL prefixes not to load. The start URL may not be in one.
        timeout: seconds per connect/read, None for none. Default 10.
        page_deadline: seconds one page may take in all (a server sending a byte every
            few seconds never trips ``timeout``); a page past it is listed in
            :attr:`failed` naming the deadline. Default 120; None for none.
        prevent_outside: only follow links under ``base_url``. Default True.
        link_regex: a pattern whose first group is a link, used on the raw HTML instead
            of the ``<a href>``/``<area href>`` of the parsed page.
        headers: request headers, added to the defaults (toolkit ``User-Agent``).
        check_response_status: accepted for compatibility; a 4xx/5xx page is always a
            failure here (LangChain with False loads error pages as documents).
        continue_on_failure: True (default): failed pages are listed in :attr:`failed`
            as ``(url, message)`` and the crawl goes on. False: the first one raises
            :class:`FetchError` naming the URL and the status.
        base_url: the prefix ``prevent_outside`` keeps to. Default: the start URL's
            directory (``https://h/docs/`` for ``https://h/docs/intro.html``; LangChain
            uses the whole host).
        max_pages: at most this many pages are requested (robots.txt aside). Default 1000.
        respect_robots_txt: skip what ``/robots.txt`` disallows for our User-Agent,
            listed in :attr:`skipped`, redirect hops included (a redirect into a
            disallowed path is not followed). Default True.
        max_concurrency: requests in flight at once. Default 8.
        rate_limit: request starts per second, None (default) for no limit.
        autoset_encoding, encoding, proxies, ssl, max_bytes, max_retries, clock,
        drop_chrome: as for :class:`WebBaseLoader` (``ssl`` is its ``verify_ssl``).

    Links are resolved against the page (or its ``<base href>``), normalised (fragments
    dropped, host lower-cased, default port removed) and followed once; only http(s).
    Non-HTML responses are not documents: they are listed in :attr:`skipped`, as are
    pages disallowed by robots.txt and redirects to a page already crawled or to outside
    ``base_url``. Documents come in breadth-first order, stable from run to run.

    >>> loader = RecursiveUrlLoader("https://example.com/docs/", max_depth=3)
    >>> docs = loader.load()  # doctest: +SKIP
    >>> loader.failed  # doctest: +SKIP
    [('https://example.com/docs/broken.html', 'PageNotFoundError: ... HTTP 404 Not Found')]
    """

    def __init__(
        self,
        url: str,
        max_depth: int | None = 2,
        use_async: bool | None = None,
        extractor: Callable[[str], str] | None = None,
        metadata_extractor: MetadataExtractor | None = None,
        exclude_dirs: Sequence[str] | None = (),
        timeout: float | None = 10,
        prevent_outside: bool = True,
        link_regex: str | re.Pattern[str] | None = None,
        headers: Mapping[str, str] | None = None,
        check_response_status: bool = False,
        continue_on_failure: bool = True,
        *,
        base_url: str | None = None,
        max_pages: int | None = 1000,
        respect_robots_txt: bool = True,
        max_concurrency: int = 8,
        rate_limit: float | None = None,
        autoset_encoding: bool = True,
        encoding: str | None = None,
        proxies: Mapping[str, str] | None = None,
        ssl: bool = True,
        max_bytes: int | None = 10_000_000,
        max_retries: int = 3,
        drop_chrome: bool = True,
        clock: Clock | None = None,
        page_deadline: float | None = 120.0,
    ) -> None:
        self.url = validate_http_url(url, name="url")
        self.max_depth = positive_int("max_depth", 2 if max_depth is None else max_depth)
        self.use_async = use_async
        if extractor is not None and not callable(extractor):
            raise ValidationError(f"extractor must be a function html -> str, got {extractor!r}")
        self.extractor = extractor
        self.metadata_extractor = metadata_extractor
        self._metadata_takes_response = _takes_response(metadata_extractor)
        if isinstance(exclude_dirs, str):
            raise ValidationError(
                f"exclude_dirs must be a list of URL prefixes, got the string {exclude_dirs!r}"
            )
        self.exclude_dirs = tuple(exclude_dirs or ())
        if any(
            self.url.startswith(prefix) or normalize_url(self.url).startswith(prefix)
            for prefix in self.exclude_dirs
        ):
            raise ValidationError(
                f"The start url {self.url!r} is inside exclude_dirs {list(self.exclude_dirs)!r}; "
                "nothing would be loaded"
            )
        self.timeout = optional_positive("timeout", timeout, unit="seconds")
        self.page_deadline = optional_positive("page_deadline", page_deadline, unit="seconds")
        self.prevent_outside = prevent_outside
        self.link_regex = re.compile(link_regex) if isinstance(link_regex, str) else link_regex
        self.headers = dict(headers) if headers else None
        self.check_response_status = check_response_status
        self.continue_on_failure = continue_on_failure
        self.base_url = (
            normalize_url(validate_http_url(base_url, name="base_url"))
            if base_url is not None
            else url_directory(self.url)
        )
        self.max_pages = None if max_pages is None else positive_int("max_pages", max_pages)
        self.respect_robots_txt = respect_robots_txt
        self.max_concurrency = positive_int("max_concurrency", max_concurrency)
        self.rate_limit = optional_positive("rate_limit", rate_limit, unit="requests per second")
        self.autoset_encoding = autoset_encoding
        self.encoding = encoding
        self.proxies = dict(proxies) if proxies else None
        self.ssl = ssl
        if max_bytes is not None:
            positive_int("max_bytes", max_bytes)
        self.max_bytes = max_bytes
        self.max_retries = non_negative_int("max_retries", max_retries)
        self.drop_chrome = drop_chrome
        self.clock = clock
        self.report = LoadReport(logger=logger)


    def lazy_load(self) -> Iterator[Document]:
        """Yield documents as the crawl finds them, breadth-first; works in a running loop."""
        return iterate_in_thread(self.alazy_load)

    async def aload(self) -> list[Document]:
        """All documents of the crawl."""
        return [document async for document in self.alazy_load()]

    async def alazy_load(self) -> AsyncIterator[Document]:
        """Crawl concurrently, level by level, yielding each level's documents in order."""
        self.report = LoadReport(logger=logger)
        settings = self._http_settings()
        async with HttpFetcher(settings, clock=self.clock) as fetcher:
            robots = (
                RobotsRules(fetcher, settings.headers["User-Agent"])
                if self.respect_robots_txt
                else None
            )
            # The one guard, checked before every request and redirect hop.
            guard = RedirectGuard(scope=self.base_url if self.prevent_outside else None, robots=robots)
            start = normalize_url(self.url)
            seen = {start}  # every URL ever queued: each is requested at most once
            loaded: set[str] = set()  # final URLs of pages already used
            frontier: dict[str, None] = {start: None}  # an ordered set
            requested = 0
            for depth in range(self.max_depth):
                batch: list[str] = []
                over_limit = 0
                for link in frontier:
                    if robots is not None and not await robots.allowed(link):
                        self.report.record_skip(link, "disallowed by robots.txt")
                    elif self.max_pages is not None and requested >= self.max_pages:
                        over_limit += 1
                    else:
                        requested += 1
                        batch.append(link)
                if over_limit:
                    logger.warning(
                        "Crawl of %s reached max_pages=%d: %d pages found were not loaded",
                        self.url,
                        self.max_pages,
                        over_limit,
                    )
                in_batch = set(batch)
                frontier = {}

                async def crawl(link: str) -> tuple[str, _Crawled | BaseException | str]:
                    return link, await self._crawl_one(fetcher, link, guard)

                window = max(16, 4 * self.max_concurrency)
                async for link, outcome in ordered_map(crawl, batch, window=window):
                    crawled = self._accept(link, outcome, seen, loaded, in_batch, frontier)
                    if crawled is None:
                        continue
                    document = self._document(crawled)
                    if document is not None:
                        yield document
                    if depth + 1 < self.max_depth:
                        for child in self._links(crawled):
                            if child not in seen:
                                seen.add(child)
                                frontier[child] = None
                if not frontier:
                    break

    # -- one page ---------------------------------------------------------------------

    async def _crawl_one(
        self, fetcher: HttpFetcher, link: str, guard: RedirectGuard
    ) -> _Crawled | BaseException | str:
        """The crawled page, the error, or a reason (str) to skip it."""
        try:
            page = await fetcher.fetch(link, read_body=_is_html, guard=guard)
            if not _is_html(page.content_type):
                return f"content type {page.content_type!r} is not HTML"
            html = decode_body(
                page.content,
                source=link,
                header_charset=page.charset,
                encoding=self.encoding,
                autoset_encoding=self.autoset_encoding,
            )
            # Text only when the default extractor will use it; links and metadata always.
            scan = scan_page(html, text=self.extractor is None, drop_chrome=self.drop_chrome)
            return _Crawled(link, page, html, scan)
        except RequestRefusedError as exc:
            return f"{exc.reason}: {exc.url}"  # never fetched
        except (FetchError, ValidationError) as exc:
            return exc

    def _accept(
        self,
        link: str,
        outcome: _Crawled | BaseException | str,
        seen: set[str],
        loaded: set[str],
        in_batch: set[str],
        frontier: dict[str, None],
    ) -> _Crawled | None:
        """Record failures and skips (in crawl order); the page when it is to be used.

        A redirect to a page fetched directly in this level, or already used, is a
        duplicate; a redirect to a page queued for the next level takes its place.
        """
        if isinstance(outcome, BaseException):
            if not self.continue_on_failure:
                raise outcome
            self.report.record_failure(link, outcome)
            return None
        if isinstance(outcome, str):
            self.report.record_skip(link, outcome)
            return None
        final = normalize_url(outcome.page.final_url)
        if final != link:
            if self.prevent_outside and not is_within(final, self.base_url):
                self.report.record_skip(link, f"redirected outside {self.base_url}: {final}")
                return None
            if final in loaded or final in in_batch:
                self.report.record_skip(link, f"redirected to {final}, loaded as that page")
                return None
            frontier.pop(final, None)
            seen.add(final)
        loaded.add(final)
        return outcome

    def _document(self, crawled: _Crawled) -> Document | None:
        if self.extractor is None:
            content = crawled.scan.text or ""
        else:
            content = self.extractor(crawled.html)
        if not content:
            return None
        return Document(content, self._metadata(crawled))

    def _metadata(self, crawled: _Crawled) -> dict[str, Any]:
        if self.metadata_extractor is None:
            metadata: dict[str, Any] = {
                "source": crawled.url,
                "content_type": crawled.page.headers.get("content-type", ""),
            }
            if crawled.page.redirected:
                metadata["final_url"] = crawled.page.final_url
            metadata.update(crawled.scan.metadata)
            if self.extractor is None:  # the text is the engine's: its structure applies
                metadata.update(crawled.scan.structure())
            return metadata
        if self._metadata_takes_response:
            return self.metadata_extractor(crawled.html, crawled.url, crawled.page)
        return self.metadata_extractor(crawled.html, crawled.url)

    def _links(self, crawled: _Crawled) -> list[str]:
        base = crawled.page.final_url
        if crawled.scan.base_href:  # <base href> changes what relative links mean
            base = urljoin(base, crawled.scan.base_href.strip())
        hrefs = (
            regex_links(crawled.html, self.link_regex)
            if self.link_regex is not None
            else crawled.scan.links
        )
        return [link for link in resolve_links(hrefs, base) if self._in_scope(link)]

    def _in_scope(self, link: str) -> bool:
        if any(link.startswith(prefix) for prefix in self.exclude_dirs):
            return False
        return not self.prevent_outside or is_within(link, self.base_url)

    def _http_settings(self) -> HttpSettings:
        headers = dict(DEFAULT_HEADERS)
        headers.update(self.headers or {})
        return HttpSettings(
            headers=headers,
            verify=self.ssl,
            proxies=self.proxies,
            timeout=self.timeout,
            page_deadline=self.page_deadline,
            max_bytes=self.max_bytes,
            max_retries=self.max_retries,
            max_concurrency=self.max_concurrency,
            rate_limit=self.rate_limit,
        )


def _takes_response(metadata_extractor: MetadataExtractor | None) -> bool:
    if metadata_extractor is None:
        return False
    if not callable(metadata_extractor):
        raise ValidationError(
            f"metadata_extractor must be a function (html, url[, response]) -> dict, "
            f"got {metadata_extractor!r}"
        )
    try:
        parameters = inspect.signature(metadata_extractor).parameters
    except (TypeError, ValueError):
        return True
    return len(parameters) >= 3
