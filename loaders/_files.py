"""Reading local files: existence checks, text decoding and binary sniffing."""

from __future__ import annotations

import codecs
import errno
import os
from pathlib import Path

from bs4.dammit import EncodingDetector

from rag.errors import ValidationError

__all__ = ["read_bytes", "decode", "normalize_newlines", "looks_binary", "SNIFF_BYTES"]

# Like git and grep, one NUL byte near the start marks a file as binary; text encodings that
# legitimately contain NULs (UTF-16/32) announce themselves with a BOM, checked first.
SNIFF_BYTES = 8192
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


def read_bytes(file_path: str | os.PathLike[str]) -> bytes:
    """The file's bytes; FileNotFoundError / IsADirectoryError name the path as given."""
    path = Path(file_path)
    if not path.exists():
        raise FileNotFoundError(errno.ENOENT, "File not found", str(file_path))
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "Expected a file, got a directory", str(file_path))
    return path.read_bytes()


def looks_binary(file_path: str | os.PathLike[str]) -> bool:
    """True when the first ``SNIFF_BYTES`` (8192) bytes hold a NUL byte and no UTF-16/32 BOM."""
    with open(file_path, "rb") as handle:
        head = handle.read(SNIFF_BYTES)
    return b"\x00" in head and not head.startswith(_WIDE_BOMS)


def decode(
    data: bytes,
    *,
    source: str,
    encoding: str | None,
    autodetect_encoding: bool,
) -> str:
    """Decode ``data`` strictly; newlines are left untouched.

    ``encoding=None`` means UTF-8 with an optional BOM, whatever the platform's locale. With
    ``autodetect_encoding``, a failed decode falls back to the encodings beautifulsoup4's
    ``EncodingDetector`` finds deterministically (BOM, declared charset, then UTF-8 and
    Windows-1252; never a statistical guess). Failure
    raises :class:`ValidationError` naming ``source`` and every encoding tried.
    """
    first = encoding or "utf-8-sig"
    try:
        return data.decode(first)
    except LookupError as exc:
        raise ValidationError(
            f"Unknown encoding {encoding!r} for {source!r}; expected a codec name such as "
            "'utf-8' or 'latin-1'"
        ) from exc
    except UnicodeDecodeError as exc:
        if not autodetect_encoding:
            raise ValidationError(
                f"Could not decode {source!r} as {first}: {exc.reason} at byte {exc.start} "
                f"({data[exc.start : exc.start + 1]!r}); pass encoding=... or "
                "autodetect_encoding=True"
            ) from exc
        first_error = exc
    # Candidates, in order: a BOM's encoding, a declared one (XML/HTML meta), UTF-8,
    # Windows-1252. beautifulsoup4's EncodingDetector would also ask chardet or
    # charset-normalizer when either happens to be installed; their guesses (Latin-1 text
    # read as an Arabic code page, say) would make results depend on what else is in the
    # environment, so we use only its deterministic parts. Each candidate is tried strictly:
    # UnicodeDammit's last resort would replace bytes with U+FFFD, silently losing text.
    markup, bom_encoding = EncodingDetector.strip_byte_order_mark(data)
    declared = EncodingDetector.find_declared_encoding(markup, is_html=True, search_entire_document=False)
    tried = [first]
    for candidate in (bom_encoding, declared, "utf-8", "windows-1252"):
        if not candidate or _codec_name(candidate) in {_codec_name(name) for name in tried}:
            continue
        tried.append(candidate)
        try:
            return markup.decode(candidate)
        except (UnicodeDecodeError, LookupError):
            continue
    raise ValidationError(
        f"Could not decode {source!r}: tried encodings {', '.join(tried)}; pass the "
        "file's encoding with encoding=..."
    ) from first_error


def read_text(file_path: str | os.PathLike[str], *, encoding: str | None, autodetect_encoding: bool) -> str:
    """A text file's content, decoded as :func:`decode` does, with ``\n`` newlines
    (:func:`normalize_newlines`)."""
    return normalize_newlines(decode(read_bytes(file_path), source=str(file_path), encoding=encoding,
                                     autodetect_encoding=autodetect_encoding))


def normalize_newlines(text: str) -> str:
    """``\\r\\n`` and ``\\r`` become ``\\n``, as Python's text-mode ``open`` does."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _codec_name(name: str) -> str:
    # utf-8-sig differs from utf-8 only by an optional BOM: one failing means both fail.
    try:
        return codecs.lookup(name).name.replace("utf-8-sig", "utf-8")
    except LookupError:
        return name
