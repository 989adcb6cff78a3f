"""Reading sitemaps without lxml: XML url sets, sitemap indexes, text lists, gzip (pure)."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field

from loaders._inflate import InflateError, InflateLimitExceeded, inflate
from rag.errors import ValidationError

__all__ = ["Sitemap", "parse_sitemap", "URL_FIELDS"]

#: The ``<url>`` children kept as metadata, as LangChain keeps them.
URL_FIELDS = ("loc", "lastmod", "changefreq", "priority")
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass
class Sitemap:
    """What one sitemap lists: ``urls`` (a dict of :data:`URL_FIELDS` per ``<url>``, in
    document order) and ``sitemaps`` (the ``<loc>`` of each ``<sitemap>`` of an index)."""

    urls: list[dict[str, str]] = field(default_factory=list)
    sitemaps: list[str] = field(default_factory=list)


def parse_sitemap(content: bytes, *, source: str, max_bytes: int | None = None) -> Sitemap:
    """Parse an XML sitemap or index, or a text sitemap (one URL a line); gzip is undone.

    ``max_bytes`` caps the decompressed size. Malformed XML, a DOCTYPE or entity
    declaration (never in sitemaps; refused rather than expanded) or an oversized gzip
    body raises :class:`ValidationError` naming ``source``.

    >>> parse_sitemap(b"<urlset><url><loc> https://h/a </loc></url></urlset>", source="s").urls
    [{'loc': 'https://h/a'}]
    >>> parse_sitemap(b"https://h/a\\nhttps://h/b\\n", source="s").urls
    [{'loc': 'https://h/a'}, {'loc': 'https://h/b'}]
    """
    if content.startswith(_GZIP_MAGIC):
        content = _gunzip(content, source=source, max_bytes=max_bytes)
    stripped = content.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"<"):
        return _parse_xml(stripped, source=source)
    return _parse_text(stripped, source=source)


def _parse_xml(content: bytes, *, source: str) -> Sitemap:
    if b"<!DOCTYPE" in content or b"<!ENTITY" in content:
        raise ValidationError(f"Refusing sitemap {source!r}: it declares a DOCTYPE or entities")
    try:
        root = ElementTree.fromstring(content)
    except ElementTree.ParseError as exc:
        raise ValidationError(f"Malformed XML sitemap {source!r}: {exc}") from exc
    sitemap = Sitemap()
    for element in root.iter():
        name = _local_name(element.tag)
        if name == "url":
            fields = {
                child_name: (child.text or "").strip()
                for child in element
                if (child_name := _local_name(child.tag)) in URL_FIELDS
            }
            if fields.get("loc"):
                sitemap.urls.append({key: fields[key] for key in URL_FIELDS if key in fields})
        elif name == "sitemap":
            for child in element:
                if _local_name(child.tag) == "loc" and (child.text or "").strip():
                    sitemap.sitemaps.append((child.text or "").strip())
    return sitemap


def _parse_text(content: bytes, *, source: str) -> Sitemap:
    text = content.decode("utf-8", errors="replace")
    # The text format is one absolute URL a line; anything else (comments, blanks) is not one.
    return Sitemap(
        urls=[
            {"loc": line.strip()}
            for line in text.splitlines()
            if line.strip().lower().startswith(("http://", "https://"))
        ]
    )


def _local_name(tag: object) -> str:
    # "{http://www.sitemaps.org/schemas/sitemap/0.9}loc" -> "loc": any namespace, or none.
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def _gunzip(data: bytes, *, source: str, max_bytes: int | None) -> bytes:
    # Every member of a concatenated .gz file, never inflating past max_bytes.
    try:
        return inflate(data, "gzip", max_bytes)
    except InflateError as exc:
        raise ValidationError(f"Corrupt gzip sitemap {source!r}: {exc}") from exc
    except InflateLimitExceeded:
        raise ValidationError(
            f"Sitemap {source!r} inflates past max_bytes={max_bytes}; raise max_bytes to read it"
        ) from None
