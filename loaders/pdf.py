"""PDF files through pypdf, the optional ``pdf`` extra."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from datetime import datetime
from typing import Any, ClassVar, Literal

from loaders._files import read_bytes
from loaders.base import BaseLoader
from rag import Document
from rag._optional import require
from rag.errors import ValidationError

__all__ = ["PyPDFLoader"]

_MODES = ("page", "single")
_EXTRACTION_MODES = ("plain", "layout")


def _pdf_date(value: str) -> str:
    # PDF dates look like D:20240131120000+01'00'; LangChain stores them as ISO 8601.
    try:
        return datetime.strptime(value.replace("'", ""), "D:%Y%m%d%H%M%S%z").isoformat("T")
    except ValueError:
        return value


def _document_info(info: Any) -> dict[str, Any]:
    """The PDF's info dictionary with LangChain's key spelling: lower case, no slash."""
    metadata: dict[str, Any] = {"producer": "PyPDF", "creator": "PyPDF", "creationdate": ""}
    for key, value in dict(info or {}).items():
        name = str(key).lstrip("/").lower()
        text = value if isinstance(value, int) and not isinstance(value, bool) else str(value)
        if name in ("creationdate", "moddate"):
            metadata[name] = _pdf_date(str(text))
        else:
            metadata[name] = text.strip() if isinstance(text, str) else text
    return metadata


class PyPDFLoader(BaseLoader):
    """One document per PDF page (or one for the file), as LangChain's ``PyPDFLoader``.

    Needs the ``pdf`` extra: ``pip install "ragpath[pdf]"``. Without it, building the
    loader raises :class:`rag.errors.MissingDependencyError` giving that command; importing
    it does not.

    Args:
        file_path: path to the PDF; kept as given in ``metadata["source"]``.
        password: password of an encrypted PDF. Default None.
        mode: keyword-only; ``"page"`` (default) for one document per page, ``"single"`` for
            one document with the pages joined by ``pages_delimiter``.
        pages_delimiter: keyword-only; default ``"\\n\\f"``, as LangChain.
        extraction_mode: keyword-only; pypdf's ``"plain"`` (default) or ``"layout"``.
        extraction_kwargs: keyword-only; more arguments for pypdf's ``extract_text``.

    Metadata, as LangChain's: ``source``, ``total_pages``, the PDF's info entries in lower
    case (``producer``, ``creator``, ``creationdate`` as ISO 8601, ``title``...), and in page
    mode ``page`` (0-based) and ``page_label`` (the label printed on the page, as a string).
    LangChain's image extraction and URL download are not supported.

    >>> PyPDFLoader("paper.pdf").load()[0].metadata["page"]  # doctest: +SKIP
    0
    """

    accepts_binary: ClassVar[bool] = True

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        password: str | bytes | None = None,
        *,
        mode: Literal["page", "single"] = "page",
        pages_delimiter: str = "\n\f",
        extraction_mode: Literal["plain", "layout"] = "plain",
        extraction_kwargs: dict[str, Any] | None = None,
    ) -> None:
        if mode not in _MODES:
            raise ValidationError(f"mode must be one of {_MODES}, got {mode!r}")
        if extraction_mode not in _EXTRACTION_MODES:
            raise ValidationError(
                f"extraction_mode must be one of {_EXTRACTION_MODES}, got {extraction_mode!r}"
            )
        self._pypdf = require("pypdf", feature="PyPDFLoader", extra="pdf")
        self.file_path = file_path
        self.password = password
        self.mode = mode
        self.pages_delimiter = pages_delimiter
        self.extraction_mode = extraction_mode
        self.extraction_kwargs = dict(extraction_kwargs or {})

    def lazy_load(self) -> Iterator[Document]:
        """Yield one document per page in order (or a single document)."""
        source = str(self.file_path)
        pypdf = self._pypdf
        try:
            reader = pypdf.PdfReader(io.BytesIO(read_bytes(self.file_path)), password=self.password)
            total_pages = len(reader.pages)
            info = reader.metadata
        except pypdf.errors.PyPdfError as exc:
            raise ValidationError(f"Could not read {source!r} as a PDF: {exc}") from exc
        common = {**_document_info(info), "source": source, "total_pages": total_pages}
        texts: list[str] = []
        for number, page in enumerate(reader.pages):
            try:
                text = page.extract_text(
                    extraction_mode=self.extraction_mode, **self.extraction_kwargs
                ).strip()
                label = reader.page_labels[number]
            except pypdf.errors.PyPdfError as exc:
                raise ValidationError(
                    f"Could not extract page {number} of {source!r}: {exc}"
                ) from exc
            if self.mode == "page":
                yield Document(text, {**common, "page": number, "page_label": label})
            else:
                texts.append(text)
        if self.mode == "single":
            yield Document(self.pages_delimiter.join(texts), common)
