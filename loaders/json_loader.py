"""JSON and JSON Lines files, selected with a jq path (no jq package needed)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from typing import Any

from loaders import _jq
from loaders._files import decode, read_bytes
from loaders.base import BaseLoader
from rag import Document
from rag.errors import ValidationError

__all__ = ["JSONLoader"]

MetadataFunc = Callable[[Any, dict[str, Any]], dict[str, Any]]


class JSONLoader(BaseLoader):
    """One document per value selected by ``jq_schema``, as LangChain's ``JSONLoader``.

    Args:
        file_path: path to a JSON file (UTF-8, optional BOM) or, with ``json_lines``, a file
            of one JSON value per line (blank lines ignored).
        jq_schema: which values become documents; a jq path from the subset ``.``,
            ``.key``, ``.key.sub``, ``.[]``, ``.key[]``, ``.key[].sub``, ``[n]`` and
            ``."quoted key"``. Anything else raises :class:`ValidationError` (a
            ``ValueError``) naming the schema, when the loader is built.
        content_key: key of each selected object holding the content. Default None: the
            selected value itself is the content.
        is_content_key_jq_parsable: treat ``content_key`` as a jq path (same subset) and take
            its first result. Default False.
        metadata_func: ``f(selected_value, metadata) -> dict``, called with the default
            metadata; its result is the document's metadata. ``source`` and ``seq_num``
            are added back if the function drops them.
        text_content: require the content to be a string. Default True. When False, objects
            and arrays become JSON text (non-ASCII kept as is), ``null`` becomes ``""`` and
            other scalars ``str(value)``.
        json_lines: read JSON Lines. Default False.

    Metadata: ``source`` (the path as given; LangChain stores the resolved absolute path)
    and ``seq_num``, counting documents from 1 across the whole file.

    >>> loader = JSONLoader("chat.json", jq_schema=".messages[]", content_key="text")
    >>> loader.load()  # doctest: +SKIP
    [Document(page_content='hi', metadata={'source': 'chat.json', 'seq_num': 1}), ...]
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        jq_schema: str,
        content_key: str | None = None,
        is_content_key_jq_parsable: bool | None = False,
        metadata_func: MetadataFunc | None = None,
        text_content: bool = True,
        json_lines: bool = False,
    ) -> None:
        self.file_path = file_path
        self.jq_schema = jq_schema
        self._steps = _jq.parse(jq_schema)
        self.content_key = content_key
        self.is_content_key_jq_parsable = bool(is_content_key_jq_parsable)
        self._content_steps: tuple[_jq.Step, ...] | None = None
        if content_key is not None and self.is_content_key_jq_parsable:
            self._content_steps = _jq.parse(content_key)
        self.metadata_func = metadata_func
        self.text_content = text_content
        self.json_lines = json_lines

    def lazy_load(self) -> Iterator[Document]:
        """Yield one document per selected value, in file order."""
        source = str(self.file_path)
        text = decode(
            read_bytes(self.file_path), source=source, encoding=None, autodetect_encoding=False
        )
        seq_num = 0
        for where, data in self._json_values(text, source):
            try:
                values = list(_jq.evaluate(self._steps, data, schema=self.jq_schema))
            except ValidationError as exc:
                raise ValidationError(f"{source!r}{where}: {exc}") from exc
            for value in values:
                seq_num += 1
                try:
                    content = self._content(value)
                except ValidationError as exc:
                    raise ValidationError(f"{source!r}{where}, document {seq_num}: {exc}") from exc
                yield Document(content, self._metadata(value, source, seq_num))

    def _json_values(self, text: str, source: str) -> Iterator[tuple[str, Any]]:
        if not self.json_lines:
            yield "", _parse_json(text, source, "")
            return
        # Split on "\n" only: str.splitlines would also cut at U+2028, which JSON strings
        # may contain unescaped.
        for line_number, line in enumerate(text.split("\n"), 1):
            if line.strip():
                where = f" line {line_number}"
                yield where, _parse_json(line, source, where)

    def _content(self, value: Any) -> str:
        content = value
        if self.content_key is not None:
            if self._content_steps is not None:
                content = next(
                    _jq.evaluate(self._content_steps, value, schema=self.content_key), None
                )
            elif not isinstance(value, dict):
                raise ValidationError(
                    f"content_key {self.content_key!r} needs jq_schema {self.jq_schema!r} to "
                    f"select objects, got {type(value).__name__}: {json.dumps(value)[:80]}"
                )
            elif self.content_key not in value:
                raise ValidationError(
                    f"content_key {self.content_key!r} is not in the selected object; its "
                    f"keys are {sorted(value)}"
                )
            else:
                content = value[self.content_key]
        if isinstance(content, str):
            return content
        if self.text_content and content is not None:
            raise ValidationError(
                f"expected a string as page_content, got {type(content).__name__}: "
                f"{json.dumps(content)[:80]}; pass text_content=False to accept other values"
            )
        if content is None:
            return ""
        if isinstance(content, (dict, list)):
            return json.dumps(content, ensure_ascii=False) if content else ""
        return str(content)

    def _metadata(self, value: Any, source: str, seq_num: int) -> dict[str, Any]:
        metadata: dict[str, Any] = {"source": source, "seq_num": seq_num}
        if self.metadata_func is None:
            return metadata
        result = self.metadata_func(value, dict(metadata))
        if not isinstance(result, dict):
            raise ValidationError(
                f"metadata_func must return a dict, got {type(result).__name__}: {result!r:.80}"
            )
        # Every document keeps source and seq_num, even when the function builds a new dict.
        return {**metadata, **result}


def _parse_json(text: str, source: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(
            f"{source!r}{where} is not valid JSON: {exc.msg} at line {exc.lineno} column "
            f"{exc.colno}"
        ) from exc
