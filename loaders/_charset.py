"""A fetched body to text: which charset wins, strict decoding, ``\n`` newlines."""

from __future__ import annotations

import codecs
import logging

from loaders._files import decode, normalize_newlines
from rag.errors import ValidationError

__all__ = ["decode_body"]

logger = logging.getLogger("loaders")


def decode_body(
    content: bytes,
    *,
    source: str,
    header_charset: str | None,
    encoding: str | None,
    autoset_encoding: bool,
) -> str:
    """Decode a response body to text with ``\\n`` newlines.

    ``encoding`` (if given) wins and is applied strictly (ValidationError naming ``source``
    when the bytes do not fit). Otherwise, with ``autoset_encoding`` (the default), the
    HTTP ``charset`` is tried first, then a BOM, ``<meta charset>``, UTF-8 and Windows-1252,
    each strictly; bytes that fit none are decoded as UTF-8 with U+FFFD replacements and a
    logged warning. Without it, the HTTP charset (else UTF-8) is used with replacements.
    """
    if encoding is not None:
        return normalize_newlines(
            decode(content, source=source, encoding=encoding, autodetect_encoding=False)
        )
    charset = header_charset if header_charset and _known_codec(header_charset) else None
    if not autoset_encoding:
        return normalize_newlines(content.decode(charset or "utf-8", errors="replace"))
    try:
        return normalize_newlines(
            decode(content, source=source, encoding=charset, autodetect_encoding=True)
        )
    except ValidationError as exc:
        logger.warning("%s; decoded as UTF-8 with replacement characters", exc)
        return normalize_newlines(content.decode("utf-8", errors="replace"))


def _known_codec(name: str) -> bool:
    try:
        codecs.lookup(name)
    except LookupError:
        return False
    return True
