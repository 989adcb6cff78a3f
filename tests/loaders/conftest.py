"""Fixtures for loader tests: files are written into tmp_path by the tests themselves."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


def _pdf_string(text: str) -> bytes:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return b"(" + escaped.encode("latin-1") + b")"


def write_pdf(path: Path, pages: list[list[str]], info: dict[str, str] | None = None) -> Path:
    """Write a real, uncompressed PDF: one page per entry, one text line per string.

    Built by hand (objects, content streams in Helvetica, byte-exact xref) so extraction
    runs pypdf's real text path without any PDF writer library.
    """
    objects: list[bytes] = []
    page_count = len(pages)
    first_page = 4
    kids = " ".join(f"{first_page + 2 * index} 0 R" for index in range(page_count))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {page_count} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for index, lines in enumerate(pages):
        content_number = first_page + 2 * index + 1
        objects.append(
            (
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                f"/Resources << /Font << /F1 3 0 R >> >> /Contents {content_number} 0 R >>"
            ).encode()
        )
        stream = b"BT /F1 14 Tf 72 720 Td 18 TL "
        stream += b" ".join(_pdf_string(line) + b" Tj T*" for line in lines)
        stream += b" ET"
        objects.append(
            b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream"
        )
    info_number = None
    if info:
        entries = b" ".join(
            b"/" + key.encode() + b" " + _pdf_string(value) for key, value in info.items()
        )
        objects.append(b"<< " + entries + b" >>")
        info_number = len(objects)
    body = b"%PDF-1.4\n"
    offsets = []
    for number, obj in enumerate(objects, 1):
        offsets.append(len(body))
        body += f"{number} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref_at = len(body)
    body += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    body += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    trailer = f"<< /Size {len(objects) + 1} /Root 1 0 R"
    if info_number:
        trailer += f" /Info {info_number} 0 R"
    body += f"trailer\n{trailer} >>\nstartxref\n{xref_at}\n%%EOF\n".encode()
    path.write_bytes(body)
    return path


@pytest.fixture
def make_pdf() -> Callable[..., Path]:
    """``make_pdf(path, pages, info=None)``: see :func:`write_pdf`."""
    return write_pdf
