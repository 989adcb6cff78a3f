"""Plain text files."""

from __future__ import annotations

import os
from collections.abc import Iterator

from loaders._files import read_text
from loaders.base import BaseLoader
from rag import Document

__all__ = ["TextLoader"]


class TextLoader(BaseLoader):
    """One document holding a text file's whole content, as LangChain's ``TextLoader``.

    Args:
        file_path: path to the file; kept as given in ``metadata["source"]``.
        encoding: codec name; default None means UTF-8 (a leading BOM is dropped).
            LangChain uses the platform's locale encoding instead, which makes the same
            file load differently on Windows.
        autodetect_encoding: when decoding with ``encoding`` fails, detect the encoding
            from its BOM or XML declaration, else UTF-8 then Windows-1252, using
            beautifulsoup4's detector (no chardet needed). Default False.

    A missing file raises ``FileNotFoundError``; undecodable bytes raise
    :class:`rag.errors.ValidationError` naming the file and the encodings tried (LangChain
    raises ``RuntimeError``).

    >>> TextLoader("notes.txt", autodetect_encoding=True).load()  # doctest: +SKIP
    [Document(page_content='...', metadata={'source': 'notes.txt'})]
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        encoding: str | None = None,
        autodetect_encoding: bool = False,
    ) -> None:
        self.file_path = file_path
        self.encoding = encoding
        self.autodetect_encoding = autodetect_encoding

    def lazy_load(self) -> Iterator[Document]:
        """Yield the single document."""
        source = str(self.file_path)
        text = read_text(self.file_path, encoding=self.encoding, autodetect_encoding=self.autodetect_encoding)
        yield Document(text, {"source": source})
