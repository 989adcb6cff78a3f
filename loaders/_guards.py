"""The one redirect guard of the web loaders: what a crawl or a sitemap may request.

A guard is checked by :class:`~loaders._http.HttpFetcher` before every request it sends,
redirect hops included, so a hop it refuses is never sent (the fetch raises
:class:`~rag.errors.RequestRefusedError` with the reason). The crawler and the sitemap
loader use this one class; they differ only in the scope they give it.
"""

from __future__ import annotations

from dataclasses import dataclass

from loaders._robots import RobotsRules
from loaders._urls import is_within

__all__ = ["RedirectGuard"]


@dataclass(frozen=True)
class RedirectGuard:
    """Refuses a URL of another scheme than http(s), outside ``scope`` (a URL prefix, as
    :func:`~loaders._urls.is_within` reads it; None: anywhere) or disallowed by
    ``robots`` (None: robots.txt not read).

    >>> import asyncio
    >>> asyncio.run(RedirectGuard(scope="https://h/docs/")("https://h/blog/"))
    'redirected outside https://h/docs/'
    """

    scope: str | None = None
    robots: RobotsRules | None = None

    async def __call__(self, url: str) -> str | None:
        """Why ``url`` must not be requested, or None when it may be."""
        if not url.startswith(("http://", "https://")):
            return "redirected to a non-http(s) URL"
        if self.scope is not None and not is_within(url, self.scope):
            return f"redirected outside {self.scope}"
        # Asked for every hop: a redirect may lead into a path robots.txt disallows.
        if self.robots is not None and not await self.robots.allowed(url):
            return "disallowed by robots.txt"
        return None
