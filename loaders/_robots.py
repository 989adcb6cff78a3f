"""robots.txt rules per origin, fetched once each with the crawler's own fetcher."""

from __future__ import annotations

import asyncio
import logging
from urllib.robotparser import RobotFileParser

from loaders._http import FetchError, HttpFetcher
from loaders._urls import origin

__all__ = ["RobotsRules"]

logger = logging.getLogger("loaders")


class RobotsRules:
    """Answers "may ``user_agent`` fetch this URL?" from each origin's ``/robots.txt``.

    As :mod:`urllib.robotparser` reads them: 401 and 403 forbid the whole site; a missing
    file (404) or any other error allows it (logged). Each origin's file is fetched once,
    even when many tasks ask at the same time.
    """

    def __init__(self, fetcher: HttpFetcher, user_agent: str) -> None:
        self.fetcher = fetcher
        self.user_agent = user_agent
        self._parsers: dict[tuple[str, str], asyncio.Task[RobotFileParser]] = {}

    async def allowed(self, url: str) -> bool:
        key = origin(url)
        task = self._parsers.get(key)
        if task is None:
            task = asyncio.ensure_future(self._load(f"{key[0]}://{key[1]}/robots.txt"))
            self._parsers[key] = task
        parser = await asyncio.shield(task)
        return parser.can_fetch(self.user_agent, url)

    async def _load(self, robots_url: str) -> RobotFileParser:
        parser = RobotFileParser(robots_url)
        try:
            # Not counted against max_concurrency: a page's redirect hop may be waiting on
            # this file while holding a slot (see RedirectGuard).
            page = await self.fetcher.fetch(robots_url, limited=False)
        except FetchError as exc:
            if exc.status in (401, 403):
                parser.disallow_all = True
            else:
                if exc.status not in (404, 410):
                    logger.warning("robots.txt unavailable, crawling without it: %s", exc)
                parser.allow_all = True
            return parser
        parser.parse(page.content.decode("utf-8", errors="replace").splitlines())
        return parser
