"""Links of a crawled page: resolved, normalised, de-duplicated, http(s) only (pure functions)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urljoin, urlsplit

from loaders._urls import normalize_url

__all__ = ["regex_links", "resolve_links", "SKIPPED_SUFFIXES"]

#: Paths with these endings are not pages; the crawler does not even request them.
SKIPPED_SUFFIXES = (
    ".css",
    ".js",
    ".mjs",
    ".ico",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".svg",
    ".webp",
    ".avif",
    ".bmp",
    ".tif",
    ".tiff",
    ".csv",
    ".bz2",
    ".gz",
    ".tgz",
    ".xz",
    ".zip",
    ".7z",
    ".rar",
    ".tar",
    ".epub",
    ".pdf",
    ".doc",
    ".docx",
    ".xls",
    ".xlsx",
    ".ppt",
    ".pptx",
    ".pptm",
    ".mp3",
    ".mp4",
    ".m4a",
    ".ogg",
    ".wav",
    ".webm",
    ".mov",
    ".avi",
    ".woff",
    ".woff2",
    ".ttf",
    ".otf",
    ".eot",
    ".exe",
    ".dmg",
    ".iso",
    ".bin",
    ".apk",
    ".msi",
)


def regex_links(html: str, pattern: str | re.Pattern[str]) -> list[str]:
    """Links matched by ``pattern`` in raw HTML (LangChain's ``link_regex``): the first
    group when the pattern has groups, else the whole match; in order of appearance."""
    found = []
    for match in re.finditer(pattern, html):
        found.append(match.group(1) if match.re.groups else match.group(0))
    return found


def resolve_links(hrefs: Iterable[str], base: str) -> list[str]:
    """Absolute, normalised http(s) URLs without fragments, first occurrence kept.

    mailto:, javascript:, data: and fragment-only links are dropped, as are links to
    :data:`SKIPPED_SUFFIXES` and malformed ones.

    >>> resolve_links(["a.html#x", "a.html", "#top", "mailto:x@y", "//h2/p", "b.png"], "http://h/d/")
    ['http://h/d/a.html', 'http://h2/p']
    """
    seen: set[str] = set()
    links: list[str] = []
    for href in hrefs:
        href = href.strip()
        if not href or href.startswith("#"):
            continue
        try:
            absolute = urljoin(base, href)
            parts = urlsplit(absolute)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                continue
            normal = normalize_url(absolute)
        except ValueError:  # a malformed port or IPv6 literal: not a link we can follow
            continue
        if urlsplit(normal).path.lower().endswith(SKIPPED_SUFFIXES) or normal in seen:
            continue
        seen.add(normal)
        links.append(normal)
    return links
