"""CSV files: one document per row."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator, Sequence
from typing import Any

from loaders._files import decode, read_bytes
from loaders.base import BaseLoader
from rag import Document
from rag.errors import ValidationError

__all__ = ["CSVLoader"]


def _cell_text(value: Any) -> str:
    # DictReader puts surplus cells in a list under the key None and fills short rows with
    # None; LangChain renders them as "a,b" and "None", kept here for identical content.
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return ",".join(cell.strip() for cell in value)
    return str(value)


class CSVLoader(BaseLoader):
    """One document per CSV row, as LangChain's ``CSVLoader``.

    The content is one ``column: value`` line per content column, in file order, keys and
    values stripped. Metadata: ``source`` (the path as given, or the row's value in
    ``source_column``), ``row`` (0-based data-row index) and each of ``metadata_columns``
    with its raw value.

    Args:
        file_path: path to the CSV file.
        source_column: column whose value becomes ``metadata["source"]``. Default None.
        metadata_columns: columns copied into metadata and left out of the content.
        csv_args: keyword arguments for ``csv.DictReader`` (``delimiter``, ``fieldnames``...).
        encoding: codec name; default None means UTF-8 with an optional BOM (an Excel BOM
            would otherwise end up in the first column's name).
        autodetect_encoding: on a decode failure, detect the encoding. Default False.
        content_columns: keyword-only; when given, only these columns form the content.

    Columns named in ``source_column``, ``metadata_columns`` or ``content_columns`` must
    exist in the header, otherwise :class:`ValidationError` (a ``ValueError``) names the
    column and the header; LangChain silently ignores unknown ``content_columns``.

    >>> CSVLoader("people.csv", metadata_columns=["id"]).load()[0]  # doctest: +SKIP
    Document(page_content='name: Ada', metadata={'source': 'people.csv', 'row': 0, 'id': '1'})
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        source_column: str | None = None,
        metadata_columns: Sequence[str] = (),
        csv_args: dict[str, Any] | None = None,
        encoding: str | None = None,
        autodetect_encoding: bool = False,
        *,
        content_columns: Sequence[str] = (),
    ) -> None:
        for name, columns in (
            ("metadata_columns", metadata_columns),
            ("content_columns", content_columns),
        ):
            if isinstance(columns, str):
                raise ValidationError(
                    f"{name} must be a sequence of column names, got the string {columns!r}; "
                    f"write [{columns!r}]"
                )
        self.file_path = file_path
        self.source_column = source_column
        self.metadata_columns = tuple(metadata_columns)
        self.csv_args = dict(csv_args or {})
        self.encoding = encoding
        self.autodetect_encoding = autodetect_encoding
        self.content_columns = tuple(content_columns)

    def lazy_load(self) -> Iterator[Document]:
        """Yield one document per data row."""
        path_source = str(self.file_path)
        text = decode(
            read_bytes(self.file_path),
            source=path_source,
            encoding=self.encoding,
            autodetect_encoding=self.autodetect_encoding,
        )
        # newline="" lets the csv module see quoted newlines inside cells as they are.
        reader = csv.DictReader(io.StringIO(text, newline=""), **self.csv_args)
        header = reader.fieldnames
        if header is None:  # empty file: no header, no rows
            return
        self._check_columns(list(header))
        for row_index, row in enumerate(reader):
            if self.content_columns:
                content_keys = [key for key in row if key in self.content_columns]
            else:
                content_keys = [key for key in row if key not in self.metadata_columns]
            content = "\n".join(
                f"{key.strip() if key is not None else key}: {_cell_text(row[key])}"
                for key in content_keys
            )
            source = row[self.source_column] if self.source_column is not None else path_source
            metadata: dict[str, Any] = {"source": source, "row": row_index}
            for column in self.metadata_columns:
                metadata[column] = row[column]
            yield Document(content, metadata)

    def _check_columns(self, header: list[str]) -> None:
        wanted = [("source_column", self.source_column)] if self.source_column else []
        wanted += [("metadata_columns", column) for column in self.metadata_columns]
        wanted += [("content_columns", column) for column in self.content_columns]
        for argument, column in wanted:
            if column not in header:
                raise ValidationError(
                    f"{argument} names column {column!r}, which is not in the header of "
                    f"{str(self.file_path)!r}; columns are {header}"
                )
