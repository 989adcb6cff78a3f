"""From fetched HTML to text: decoding, readable-text extraction and page metadata.

One import for the web loaders; each part lives in its own module:

- :mod:`loaders._charset`: a response body to text (which charset wins).
- :mod:`loaders._readable`: what of a page is readable text (the element rules:
  unreadable, chrome, permalink marks).
- :mod:`loaders._layout`: how it is laid out, with the offsets of its headings and
  structural blocks.
- :mod:`loaders._page_scan`: one reading of a page giving the text, metadata,
  ``<base href>`` and links, from a streaming html.parser pass or a parsed tree.
"""

from __future__ import annotations

from loaders._charset import decode_body
from loaders._page_scan import (
    PageScan,
    html_to_text,
    page_metadata,
    readable_text,
    scan_page,
    scan_tree,
)
from loaders._readable import CHROME_TAGS, UNREADABLE_TAGS, is_chrome, strip_unreadable

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
    "scan_tree",
    "PageScan",
]
