"""Reading sitemaps without lxml: XML url sets, sitemap indexes, text lists, gzip (pure)."""

from __future__ import annotations

import codecs
import re
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

    ``max_bytes`` caps the decompressed size. The bytes are decoded first (a BOM, the
    UTF-16/32 byte patterns of ``<?``, the XML declaration's ``encoding``, else UTF-8:
    XML's own rules), and only then checked: a DOCTYPE or entity declaration (never in
    sitemaps; refused rather than expanded) is found whatever the encoding. Malformed XML,
    such a declaration, bytes that do not decode or an oversized gzip body raise
    :class:`ValidationError` naming ``source``.

    >>> parse_sitemap(b"<urlset><url><loc> https://h/a </loc></url></urlset>", source="s").urls
    [{'loc': 'https://h/a'}]
    >>> parse_sitemap(b"https://h/a\\nhttps://h/b\\n", source="s").urls
    [{'loc': 'https://h/a'}, {'loc': 'https://h/b'}]
    """
    if content.startswith(_GZIP_MAGIC):
        content = _gunzip(content, source=source, max_bytes=max_bytes)
    text = decode_sitemap(content, source=source).lstrip("\ufeff \t\r\n")
    if text.startswith("<"):
        return _parse_xml(text, source=source)
    return _parse_text(text)


# XML 1.0 appendix F: how the first bytes of a document without a BOM tell its encoding.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16 LE, whose BOM it starts with
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_PATTERNS = (
    (b"<\0\0\0", "utf-32-le"),
    (b"\0\0\0<", "utf-32-be"),
    (b"<\0", "utf-16-le"),
    (b"\0<", "utf-16-be"),
)
_DECLARED = re.compile(rb"""\A\s*<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_DECLARATION = re.compile(r"\A\s*<\?xml[^>]*\?>")
_REFUSED = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


def decode_sitemap(content: bytes, *, source: str) -> str:
    """The sitemap's text, decoded strictly in the encoding XML's rules give it.

    >>> decode_sitemap("<urlset/>".encode("utf-16"), source="s")
    '<urlset/>'
    """
    encoding = next((name for bom, name in _BOMS if content.startswith(bom)), None)
    if encoding is None:
        encoding = next((name for start, name in _PATTERNS if content.startswith(start)), None)
    if encoding is None:
        declared = _DECLARED.match(content)
        encoding = declared.group(1).decode("ascii") if declared else "utf-8"
        if not content.lstrip().startswith(b"<"):
            # A text sitemap (one URL a line): decoded as before, a bad byte is a U+FFFD.
            return content.decode("utf-8", errors="replace")
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise ValidationError(f"Sitemap {source!r} declares the unknown encoding {encoding!r}") from None
    try:
        return content.decode(encoding)
    except (ValueError, LookupError) as exc:  # LookupError: "base64" is a codec, not a text one
        raise ValidationError(f"Sitemap {source!r} is not valid {encoding}: {exc}") from None


def _parse_xml(text: str, *, source: str) -> Sitemap:
    # Checked on the decoded text: in UTF-16 "<!DOCTYPE" is not those bytes, and expat would
    # still read the declaration.
    if _REFUSED.search(text):
        raise ValidationError(f"Refusing sitemap {source!r}: it declares a DOCTYPE or entities")
    # The text is decoded already: its declaration's encoding no longer describes it.
    text = _DECLARATION.sub("", text, count=1)
    try:
        root = ElementTree.fromstring(text)
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


def _parse_text(text: str) -> Sitemap:
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
