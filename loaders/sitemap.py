"""Every page listed by a sitemap (XML, index of sitemaps, or text), fetched concurrently."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from loaders._async import iterate_in_thread
from loaders._checks import non_negative_int, positive_int
from loaders._files import read_bytes
from loaders._guards import RedirectGuard
from loaders._http import FetchError, HttpFetcher
from loaders._robots import RobotsRules
from loaders._sitemap_parse import Sitemap, parse_sitemap
from loaders._urls import origin, validate_http_url
from loaders.base import LoadReport
from loaders.web import ParsedPage, WebBaseLoader
from rag import Document
from rag.errors import ValidationError

__all__ = ["SitemapLoader"]

logger = logging.getLogger("loaders")


class SitemapLoader(WebBaseLoader):
    """One document per page a sitemap lists; nested sitemap indexes are followed.

    Args:
        web_path: the sitemap's URL, or a file path with ``is_local=True``. XML sitemaps
            (``<urlset>``), indexes (``<sitemapindex>``), text sitemaps (one URL a line)
            and gzip-compressed ones are read with the standard library (no lxml).
        filter_urls: regular expressions; only page URLs that one matches (``re.match``,
            from the start) are loaded. Escape dots you mean literally.
        parsing_function: ``soup -> str``, the document text of a page. Default: the
            readable text, as :class:`WebBaseLoader` (LangChain's is ``soup.get_text()``).
        blocksize, blocknum: load only block ``blocknum`` (from 0) of ``blocksize`` URLs.
        meta_function: ``(entry, soup) -> dict`` where ``entry`` holds the sitemap's
            ``loc`` and, when given, ``lastmod``, ``changefreq``, ``priority``. Default:
            ``{"source": loc, **entry}``, plus ``final_url`` when redirected and the
            page's ``title``, ``description`` and ``language`` when it has them, as
            :class:`WebBaseLoader` gives (LangChain's default carries none of them).
        is_local: ``web_path`` is a local file. Default False.
        continue_on_failure: as for :class:`WebBaseLoader`; applies to nested sitemaps too.
        restrict_to_same_domain: (not for local files) keep only page URLs and nested
            sitemaps with the sitemap's scheme and host. Default True. LangChain checks
            page URLs only.
        max_depth: levels of sitemaps read: 1 is the given sitemap only. Default 10.
        respect_robots_txt: (not for local files) read each site's ``/robots.txt`` and
            leave out what it disallows for our User-Agent: pages (listed in
            :attr:`skipped`), nested sitemaps and redirect hops. Default True; LangChain
            never reads robots.txt.
        **web_loader_kwargs: any :class:`WebBaseLoader` argument (``requests_per_second``,
            ``rate_limit``, ``timeout``, ``header_template``...).

    Every request, redirect hops included, passes the crawler's guard
    (:class:`~loaders._guards.RedirectGuard`): with ``restrict_to_same_domain`` a listed
    page or sitemap that redirects to another host is never fetched (the page is listed in
    :attr:`skipped`). A sitemap that yields no page URL to load raises ValidationError
    saying why (with ``continue_on_failure``, it is listed in :attr:`failed`), where
    LangChain returns no documents. Works inside a running event loop (LangChain's does
    not) and fetches nested sitemaps concurrently; documents come in sitemap order.

    >>> loader = SitemapLoader("https://example.com/sitemap.xml", filter_urls=[r"https://example\\.com/docs/"])
    >>> docs = loader.load()  # doctest: +SKIP
    >>> docs[0].metadata  # doctest: +SKIP
    {'source': 'https://example.com/docs/a', 'loc': 'https://example.com/docs/a', 'lastmod': '2024-01-02', 'title': 'A'}
    """

    def __init__(
        self,
        web_path: str,
        filter_urls: Sequence[str] | None = None,
        parsing_function: Callable[[Any], str] | None = None,
        blocksize: int | None = None,
        blocknum: int = 0,
        meta_function: Callable[[dict[str, str], Any], dict[str, Any]] | None = None,
        is_local: bool = False,
        continue_on_failure: bool = False,
        restrict_to_same_domain: bool = True,
        max_depth: int = 10,
        respect_robots_txt: bool = True,
        **web_loader_kwargs: Any,
    ) -> None:
        if not isinstance(web_path, str) or not web_path:
            raise ValidationError(
                f"web_path must be the sitemap's URL or file path, got {web_path!r}"
            )
        self.is_local = is_local
        if blocksize is not None:
            positive_int("blocksize", blocksize)
        self.blocksize = blocksize
        self.blocknum = non_negative_int("blocknum", blocknum)
        self.max_depth = non_negative_int("max_depth", max_depth)
        self.filter_urls = list(filter_urls) if filter_urls else None
        self._filters = [_compile(pattern) for pattern in self.filter_urls or ()]
        for name, function in (
            ("parsing_function", parsing_function),
            ("meta_function", meta_function),
        ):
            if function is not None and not callable(function):
                raise ValidationError(f"{name} must be a function, got {function!r}")
        self.parsing_function = parsing_function
        self.meta_function = meta_function
        self.restrict_to_same_domain = restrict_to_same_domain
        self.respect_robots_txt = respect_robots_txt
        if "web_paths" in web_loader_kwargs:
            raise ValidationError("SitemapLoader takes one sitemap as web_path, not web_paths")
        super().__init__(
            web_paths=[web_path], continue_on_failure=continue_on_failure, **web_loader_kwargs
        )

    def _check_path(self, path: object) -> str:
        if self.is_local:
            return str(path)
        return validate_http_url(path, name="web_path")

    @property
    def allow_url_patterns(self) -> list[str] | None:
        """LangChain's name for ``filter_urls``."""
        return self.filter_urls

    def lazy_load(self) -> Iterator[Document]:
        """Yield the pages' documents in sitemap order; works inside a running loop."""
        return iterate_in_thread(self.alazy_load)

    async def alazy_load(self) -> AsyncIterator[Document]:
        """Read the sitemap(s), then fetch the pages concurrently, yielding in order."""
        self.report = LoadReport(logger=logger)
        async with self.fetcher() as fetcher:
            guard = self._guard(fetcher)
            entries = self._block(await self._entries(fetcher, guard))
            remaining = iter(entries)
            urls = [entry["loc"] for entry in entries]
            async for parsed in self.fetch_soups(fetcher, urls, guard=guard):
                # Pages come in entry order, failed ones left out: find this page's entry.
                entry = next(item for item in remaining if item["loc"] == parsed.url)
                # Metadata first: a parsing_function (or get_text) may change the soup.
                metadata = self._metadata(entry, parsed)
                yield Document(self._text(parsed), metadata)

    # -- sitemap entries --------------------------------------------------------------

    def _guard(self, fetcher: HttpFetcher) -> RedirectGuard:
        """The crawler's guard, scoped to the sitemap's own site (see the class notes)."""
        if self.is_local:
            return RedirectGuard()
        scheme, host = origin(self.web_paths[0])
        scope = f"{scheme}://{host}/" if self.restrict_to_same_domain else None
        robots = (
            RobotsRules(fetcher, self.http_settings().headers["User-Agent"])
            if self.respect_robots_txt
            else None
        )
        return RedirectGuard(scope=scope, robots=robots)

    async def _entries(self, fetcher: HttpFetcher, guard: RedirectGuard) -> list[dict[str, str]]:
        """Page entries of the sitemap and its nested ones, breadth-first, in order.

        None at all is an error (raised, or recorded with ``continue_on_failure``) saying
        why: an empty or unreadable sitemap must not pass for a site with no pages."""
        root = self.web_paths[0]
        try:
            entries = await self._listed(fetcher, guard)
        except (FetchError, ValidationError, OSError) as exc:
            # A missing local file is a usage error, raised as the file loaders raise it.
            if not self.continue_on_failure or (
                self.is_local and isinstance(exc, FileNotFoundError)
            ):
                raise
            self.report.record_failure(root, exc)
            return []
        return entries

    async def _listed(self, fetcher: HttpFetcher, guard: RedirectGuard) -> list[dict[str, str]]:
        root = self.web_paths[0]
        level = [await self._read(fetcher, root, guard)]
        listed: list[dict[str, str]] = []
        left_out: dict[str, int] = {}
        visited = {root}
        depth = 0
        while level and depth < self.max_depth:
            children: list[str] = []
            for sitemap in level:
                listed.extend(sitemap.urls)
                for child in sitemap.sitemaps:
                    if child not in visited and self._same_site(child):
                        visited.add(child)
                        children.append(child)
            depth += 1
            if depth >= self.max_depth or not children:
                break
            results = await asyncio.gather(
                *(self._read(fetcher, child, guard) for child in children), return_exceptions=True
            )
            level = []
            for child, result in zip(children, results):
                if isinstance(result, BaseException):
                    if (
                        not isinstance(result, (FetchError, ValidationError))
                        or not self.continue_on_failure
                    ):
                        raise result
                    self.report.record_failure(child, result)
                    left_out["nested sitemap(s) failed"] = left_out.get("nested sitemap(s) failed", 0) + 1
                else:
                    level.append(result)
        entries = []
        for entry in listed:
            reason = self._unwanted(entry["loc"])
            if reason is None and guard.robots is not None and not await guard.robots.allowed(entry["loc"]):
                reason = "disallowed by robots.txt"
                self.report.record_skip(entry["loc"], reason)
            if reason is None:
                entries.append(entry)
            else:
                left_out[reason] = left_out.get(reason, 0) + 1
        if not entries:
            raise ValidationError(_nothing_to_load(root, len(listed), left_out))
        return entries

    async def _read(self, fetcher: HttpFetcher, location: str, guard: RedirectGuard) -> Sitemap:
        if self.is_local and location == self.web_paths[0]:
            content = await asyncio.to_thread(read_bytes, location)
        else:
            validate_http_url(location, name="sitemap location")
            content = (await fetcher.fetch(location, guard=guard)).content
        return parse_sitemap(content, source=location, max_bytes=self.max_bytes)

    def _same_site(self, url: str) -> bool:
        if not self.restrict_to_same_domain or self.is_local:
            return True
        try:
            return origin(url) == origin(self.web_paths[0])
        except ValueError:
            return False

    def _unwanted(self, url: str) -> str | None:
        """Why a listed page URL is left out (None: it is loaded)."""
        try:
            validate_http_url(url)
        except ValidationError:
            logger.info("Sitemap %s lists %r, not an http(s) URL; left out", self.web_paths[0], url)
            return "not http(s) URLs"
        if not self._same_site(url):
            return "on another host (restrict_to_same_domain)"
        if self._filters and not any(pattern.match(url) for pattern in self._filters):
            return "not matching filter_urls"
        return None

    def _block(self, entries: list[dict[str, str]]) -> list[dict[str, str]]:
        if self.blocksize is None:
            return entries
        start = self.blocksize * self.blocknum
        if start >= len(entries):
            blocks = -(-len(entries) // self.blocksize)
            raise ValidationError(
                f"blocknum={self.blocknum} is past the last block: {len(entries)} URLs make "
                f"{blocks} block(s) of blocksize={self.blocksize}"
            )
        return entries[start : start + self.blocksize]

    # -- documents --------------------------------------------------------------------

    def _text(self, parsed: ParsedPage) -> str:
        if self.parsing_function is None:
            return self.page_text(parsed)
        return str(self.parsing_function(parsed.soup))

    def _metadata(self, entry: dict[str, str], parsed: ParsedPage) -> dict[str, Any]:
        if self.meta_function is not None:
            return self.meta_function(dict(entry), parsed.soup)
        metadata: dict[str, Any] = {"source": entry["loc"], **entry}
        if parsed.response.redirected:
            metadata["final_url"] = parsed.response.final_url
        metadata.update(parsed.scan.metadata)
        if self.parsing_function is None and self.extracts_structure(parsed):
            metadata.update(parsed.scan.structure())
        return metadata


def _nothing_to_load(root: str, listed: int, left_out: dict[str, int]) -> str:
    if not listed:
        found = "lists no page URLs"
    else:
        reasons = ", ".join(f"{count} {reason}" for reason, count in left_out.items())
        found = f"lists {listed} page URL(s), none to load: {reasons}"
    failed = left_out.get("nested sitemap(s) failed")
    if failed and not listed:
        found += f" ({failed} nested sitemap(s) failed)"
    return f"Sitemap {root} {found}; nothing was loaded"


def _compile(pattern: object) -> re.Pattern[str]:
    if not isinstance(pattern, str):
        raise ValidationError(f"filter_urls must be regular expressions (strings), got {pattern!r}")
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValidationError(f"Invalid filter_urls pattern {pattern!r}: {exc}") from exc
