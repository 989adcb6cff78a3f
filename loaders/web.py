"""Web pages over HTTP(S): concurrent, polite fetching; readable text and page metadata."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from bs4 import BeautifulSoup

from loaders._async import iterate_in_thread, ordered_map
from loaders._checks import (
    http_options,
    non_negative_int,
    optional_positive,
    parser_name,
    positive_int,
)
from loaders._extract import PageScan, decode_body, scan_page, scan_tree, strip_unreadable
from loaders._http import (
    DEFAULT_HEADERS,
    Clock,
    FetchedPage,
    FetchError,
    Guard,
    HttpFetcher,
    HttpSettings,
    PageNotFoundError,
    RequestRefusedError,
)
from loaders._progress import check_show_progress, progress_bar
from loaders._urls import validate_http_url
from loaders.base import LoadReport, ReportingLoader
from rag import Document
from rag.errors import ValidationError

__all__ = ["WebBaseLoader", "FetchError", "PageNotFoundError"]

logger = logging.getLogger("loaders")

# Media types read as markup or text; anything else (images, PDFs, archives) is a failure.
_XML_TYPES = ("application/xhtml+xml", "application/xml")


@dataclass(frozen=True)
class ParsedPage:
    """A fetched page: the ``url`` requested, the ``response`` and its decoded ``text``;
    ``soup`` (BeautifulSoup with ``parser`` and ``bs_kwargs``) and ``scan`` (readable
    text, metadata, links) are computed on first use."""

    url: str
    response: FetchedPage
    text: str
    parser: str = "html.parser"
    bs_kwargs: Mapping[str, Any] = field(default_factory=dict)
    drop_chrome: bool = True

    @cached_property
    def soup(self) -> BeautifulSoup:
        return BeautifulSoup(self.text, **{"features": self.parser, **self.bs_kwargs})

    @cached_property
    def scan(self) -> PageScan:
        """The page read by the one extraction engine: in one streaming pass over
        :attr:`text` when that reads it as :attr:`soup` would, else from the soup."""
        if self.streamable:  # same result, without building a tree
            return scan_page(self.text, drop_chrome=self.drop_chrome)
        return scan_tree(self.soup, drop_chrome=self.drop_chrome)

    @property
    def streamable(self) -> bool:
        """True when :attr:`scan` reads the page exactly as :attr:`soup` would."""
        return self.parser == "html.parser" and not self.bs_kwargs


def _is_textual(content_type: str) -> bool:
    return (
        not content_type
        or content_type.startswith("text/")
        or content_type in _XML_TYPES
        or content_type.endswith("+xml")
    )


class WebBaseLoader(ReportingLoader):
    """One document per URL: the page's readable text, fetched concurrently over httpx.

    Args:
        web_path: a URL or a sequence of URLs (or give ``web_paths=``, not both).
        header_template: request headers replacing the defaults (an ``Accept`` header and
            the toolkit's ``User-Agent``, added when the template has none).
        verify_ssl: verify TLS certificates. Default True.
        proxies: ``{"http": url, "https": url}`` as in requests. Default None.
        continue_on_failure: False (default): the first failed URL (in input order) raises
            :class:`FetchError` naming it and the status. True: failed URLs are left out and
            listed in :attr:`failed` as ``(url, message)``.
        autoset_encoding: find the charset (HTTP header, BOM, ``<meta charset>``, UTF-8,
            Windows-1252). Default True. ``encoding``: force a codec instead.
        default_parser: BeautifulSoup parser. Default ``"html.parser"`` (standard library).
        requests_per_second: requests in flight at once (LangChain's meaning). Default 2.
        rate_limit: request starts per second, None (default) for no limit.
        requests_kwargs: ``requests.get`` options: headers, cookies, timeout, verify, auth,
            params, allow_redirects, proxies.
        raise_for_status: accepted for compatibility; a 4xx/5xx response is always a
            failure here (LangChain with False loads the error page as a document).
        bs_get_text_kwargs: when given, the text is ``get_text(**kwargs)`` of the page body
            without scripts, styles and chrome, instead of the block-aware extraction.
        bs_kwargs: extra ``BeautifulSoup`` arguments.
        timeout: seconds per connect/read, None for none. Default 10.
        page_deadline: seconds one page may take in all, redirects and body included (a
            server sending a byte every few seconds never trips ``timeout``): a page past
            it fails naming the deadline, and is not retried. Default 120; None for none.
        max_bytes: a larger body is a failure. Default 10_000_000; None for no cap.
        max_retries: retries after connection errors, timeouts, 408, 409, 429 and 5xx
            (but 501 and 505), waiting 0.5, 1, 2... seconds or the server's
            ``Retry-After`` (the toolkit's one ``rag._retry.RetryPolicy``). Default 3.
        show_progress: a tqdm bar (``pip install "ragpath[progress]"``). Default False.
        trust_env: read proxy settings from the environment. Default False.
        drop_chrome: leave out nav, aside and page-level header/footer. Default True.
        clock: time source and sleeper for backoff and rate limits (tests inject a fake).

    Metadata: ``source`` (the URL requested), ``final_url`` when redirected, and
    ``title``, ``description``, ``language`` when the page has them; with the default
    text extraction, also ``headings`` and ``blocks`` (the page's structure, as
    :class:`ReadableHTMLLoader` gives it; LangChain has neither).

    ``load()`` fetches concurrently (LangChain's is sequential) and works in plain sync
    code and inside a running event loop; ``aload()``/``alazy_load()`` are native async.

    >>> loader = WebBaseLoader(["https://example.com/a", "https://example.com/b"])
    >>> docs = loader.load()  # doctest: +SKIP
    >>> docs[0].metadata  # doctest: +SKIP
    {'source': 'https://example.com/a', 'title': 'A', 'language': 'en'}
    """

    def __init__(
        self,
        web_path: str | Sequence[str] = "",
        header_template: Mapping[str, str] | None = None,
        verify_ssl: bool = True,
        proxies: Mapping[str, str] | None = None,
        continue_on_failure: bool = False,
        autoset_encoding: bool = True,
        encoding: str | None = None,
        web_paths: Sequence[str] = (),
        default_parser: str = "html.parser",
        requests_per_second: int = 2,
        requests_kwargs: Mapping[str, Any] | None = None,
        raise_for_status: bool = False,
        bs_get_text_kwargs: Mapping[str, Any] | None = None,
        bs_kwargs: Mapping[str, Any] | None = None,
        rate_limit: float | None = None,
        timeout: float | None = 10.0,
        max_bytes: int | None = 10_000_000,
        max_retries: int = 3,
        *,
        show_progress: bool = False,
        trust_env: bool = False,
        drop_chrome: bool = True,
        clock: Clock | None = None,
        page_deadline: float | None = 120.0,
    ) -> None:
        if web_path and web_paths:
            raise ValidationError(
                f"Received both web_path={web_path!r} and web_paths={web_paths!r}; give one"
            )
        if web_paths:
            paths = web_paths
        elif isinstance(web_path, str):
            paths = [web_path] if web_path else []
        else:
            paths = web_path
        if isinstance(paths, str) or not isinstance(paths, Sequence):
            raise ValidationError(
                f"web_paths must be a sequence of URLs, got {type(paths).__name__}: {paths!r}"
            )
        if not paths:
            raise ValidationError("No URL given: pass web_path='https://...' or web_paths=[...]")
        self.web_paths = [self._check_path(path) for path in paths]
        self.header_template = dict(header_template) if header_template is not None else None
        self.verify_ssl = verify_ssl
        self.proxies = dict(proxies) if proxies else None
        self.continue_on_failure = continue_on_failure
        self.autoset_encoding = autoset_encoding
        self.encoding = encoding
        self.default_parser = parser_name("default_parser", default_parser)
        self.requests_per_second = positive_int("requests_per_second", requests_per_second)
        self.requests_kwargs = http_options(requests_kwargs)
        self.raise_for_status = raise_for_status
        self.bs_get_text_kwargs = dict(bs_get_text_kwargs) if bs_get_text_kwargs else None
        self.bs_kwargs = dict(bs_kwargs or {})
        self.rate_limit = optional_positive("rate_limit", rate_limit, unit="requests per second")
        self.timeout = optional_positive("timeout", timeout, unit="seconds")
        self.page_deadline = optional_positive("page_deadline", page_deadline, unit="seconds")
        if max_bytes is not None:
            positive_int("max_bytes", max_bytes)
        self.max_bytes = max_bytes
        self.max_retries = non_negative_int("max_retries", max_retries)
        self.show_progress = check_show_progress(show_progress)
        self.trust_env = trust_env
        self.drop_chrome = drop_chrome
        self.clock = clock
        self.report = LoadReport(logger=logger)

    def _check_path(self, path: object) -> str:
        """A URL as given, once checked (subclasses loading local files override this)."""
        return validate_http_url(path, name="web_path")

    # -- LangChain-compatible accessors -------------------------------------------------

    @property
    def web_path(self) -> str:
        """The only URL; ValidationError when there are several."""
        if len(self.web_paths) > 1:
            raise ValidationError(f"web_path is ambiguous: {len(self.web_paths)} URLs given")
        return self.web_paths[0]


    # -- loading ----------------------------------------------------------------------

    def lazy_load(self) -> Iterator[Document]:
        """Yield one document per URL, in input order, fetching concurrently."""
        return iterate_in_thread(self.alazy_load)

    async def alazy_load(self) -> AsyncIterator[Document]:
        """Yield one document per URL, in input order, without blocking the event loop."""
        self.report = LoadReport(logger=logger)
        with progress_bar(self.show_progress, total=len(self.web_paths), unit="page") as advance:
            async with self.fetcher() as fetcher:
                async for parsed in self.fetch_soups(fetcher, self.web_paths):
                    advance()
                    # Metadata first: get_text extraction strips the soup in place.
                    metadata = self.page_metadata(parsed)
                    yield Document(self.page_text(parsed), metadata)

    async def aload(self) -> list[Document]:
        """All documents, fetched concurrently, in input order."""
        return [document async for document in self.alazy_load()]

    # -- soups, for LangChain users who scrape ----------------------------------------

    def scrape(self, parser: str | None = None) -> BeautifulSoup:
        """The parsed page of the single ``web_path``."""
        return self.scrape_all([self.web_path], parser=parser)[0]

    def scrape_all(self, urls: Sequence[str], parser: str | None = None) -> list[BeautifulSoup]:
        """Parsed pages of ``urls``, in order, fetched concurrently; usable in a running loop."""
        return list(iterate_in_thread(lambda: self._soups(urls, parser)))

    async def ascrape_all(
        self, urls: Sequence[str], parser: str | None = None
    ) -> list[BeautifulSoup]:
        """Parsed pages of ``urls``, in order, fetched concurrently."""
        return [soup async for soup in self._soups(urls, parser)]

    async def _soups(self, urls: Sequence[str], parser: str | None) -> AsyncIterator[BeautifulSoup]:
        checked = [validate_http_url(url, name="url") for url in urls]
        self.report = LoadReport(logger=logger)
        async with self.fetcher() as fetcher:
            async for parsed in self.fetch_soups(fetcher, checked, parser=parser):
                yield parsed.soup

    # -- building blocks shared with SitemapLoader ------------------------------------

    def http_settings(self) -> HttpSettings:
        """The fetching configuration these arguments describe."""
        options = self.requests_kwargs
        headers = (
            dict(self.header_template)
            if self.header_template is not None
            else dict(DEFAULT_HEADERS)
        )
        headers.update(options.get("headers") or {})
        if not any(key.lower() == "user-agent" for key in headers):
            headers["User-Agent"] = DEFAULT_HEADERS["User-Agent"]
        timeout = options.get("timeout", self.timeout)
        if isinstance(timeout, tuple):  # requests' (connect, read): keep the longer
            timeout = max(timeout)
        return HttpSettings(
            headers=headers,
            verify=bool(options.get("verify", self.verify_ssl)),
            proxies=options.get("proxies") or self.proxies,
            timeout=timeout,
            page_deadline=self.page_deadline,
            max_bytes=self.max_bytes,
            max_retries=self.max_retries,
            max_concurrency=self.requests_per_second,
            rate_limit=self.rate_limit,
            follow_redirects=bool(options.get("allow_redirects", True)),
            cookies=options.get("cookies"),
            auth=options.get("auth"),
            params=options.get("params"),
            trust_env=self.trust_env,
        )

    def fetcher(self) -> HttpFetcher:
        """A fresh :class:`HttpFetcher` for one run (use with ``async with``)."""
        return HttpFetcher(self.http_settings(), clock=self.clock)

    async def fetch_soups(
        self,
        fetcher: HttpFetcher,
        urls: Sequence[str],
        *,
        parser: str | None = None,
        guard: Guard | None = None,
    ) -> AsyncIterator[ParsedPage]:
        """A :class:`ParsedPage` per URL in input order, fetched and parsed concurrently.

        A URL that fails raises (naming it) or, with ``continue_on_failure``, is recorded
        in :attr:`failed` and left out. A request ``guard`` refuses (a redirect hop, see
        :class:`~loaders._guards.RedirectGuard`) is never sent; its page is listed in
        :attr:`skipped` with the reason, as the crawler lists it.
        """
        parser = self.default_parser if parser is None else parser_name("parser", parser)

        async def fetch_one(url: str) -> tuple[str, Any]:
            try:
                page = await fetcher.fetch(url, guard=guard)
                if not _is_textual(page.content_type):
                    raise FetchError(
                        f"Could not load {url}: content type {page.content_type!r} is not "
                        "HTML or text",
                        url=url,
                        status=page.status_code,
                    )
                text = decode_body(
                    page.content,
                    source=url,
                    header_charset=page.charset,
                    encoding=self.encoding,
                    autoset_encoding=self.autoset_encoding,
                )
                return url, ParsedPage(url, page, text, parser, self.bs_kwargs, self.drop_chrome)
            except (FetchError, ValidationError) as exc:
                return url, exc

        window = max(16, 4 * self.requests_per_second)
        async for url, outcome in ordered_map(fetch_one, urls, window=window):
            if isinstance(outcome, RequestRefusedError):
                self.report.record_skip(url, f"{outcome.reason}: {outcome.url}")
                continue
            if isinstance(outcome, BaseException):
                if not self.continue_on_failure:
                    raise outcome
                self.report.record_failure(url, outcome)
                continue
            yield outcome

    def page_text(self, parsed: ParsedPage) -> str:
        """The document text of a page (see ``bs_get_text_kwargs`` and ``drop_chrome``)."""
        if parsed.response.content_type == "text/plain":
            return parsed.text.strip()  # plain text keeps its own line structure
        if self.bs_get_text_kwargs is None:
            return parsed.scan.text or ""
        root = strip_unreadable(parsed.soup, drop_chrome=self.drop_chrome)
        return root.get_text(**self.bs_get_text_kwargs)

    def page_metadata(self, parsed: ParsedPage) -> dict[str, Any]:
        """``source``, then ``final_url`` when redirected, then title/description/language."""
        metadata: dict[str, Any] = {"source": parsed.url}
        if parsed.response.redirected:
            metadata["final_url"] = parsed.response.final_url
        metadata.update(parsed.scan.metadata)
        if self.extracts_structure(parsed):
            metadata.update(parsed.scan.structure())
        return metadata

    def extracts_structure(self, parsed: ParsedPage) -> bool:
        """Whether the page's text is the engine's (so its headings and blocks apply)."""
        return parsed.response.content_type != "text/plain" and self.bs_get_text_kwargs is None
