"""From fetched HTML to text: decoding, readable-text extraction and page metadata.

One import for the web loaders; each part lives in its own module:

- :mod:`loaders._charset`: a response body to text (which charset wins).
- :mod:`loaders._readable`: what of a page is readable text and how it is laid out
  (the tag vocabularies, the rules, and the walk over a BeautifulSoup tree).
- :mod:`loaders._page_scan`: one streaming html.parser pass giving the text, metadata,
  ``<base href>`` and links; page metadata read from a parsed tree.
"""

from __future__ import annotations

from loaders._charset import decode_body
from loaders._page_scan import PageScan, html_to_text, page_metadata, scan_page
from loaders._readable import (
    CHROME_TAGS,
    UNREADABLE_TAGS,
    is_chrome,
    readable_text,
    strip_unreadable,
)

__all__ = [
    "decode_body",
    "readable_text",
    "html_to_text",
    "page_metadata",
    "UNREADABLE_TAGS",
    "CHROME_TAGS",
    "is_chrome",
    "strip_unreadable",
    "scan_page",
    "PageScan",
]
