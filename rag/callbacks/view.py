"""Reading a :class:`~rag.callbacks.FileTracer` file back as an indented tree."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Iterator, Optional, TextIO, Union

from rag.errors import ValidationError

__all__ = ["read_trace", "format_trace", "print_trace"]

PathLike = Union[str, os.PathLike]


def read_trace(path: PathLike) -> list[dict[str, Any]]:
    """The top-level run records in a trace file, oldest first (blank lines skipped).

    A line that is not a run record raises :class:`~rag.errors.ValidationError` with its
    line number; a missing file raises ``FileNotFoundError``.
    """
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValidationError(f"{path}:{number} is not JSON ({exc.msg}); is this a FileTracer trace file?") from exc
            if not isinstance(record, dict) or "name" not in record or "run_type" not in record:
                raise ValidationError(f"{path}:{number} is not a run record (needs 'name' and 'run_type')")
            records.append(record)
    return records


def _summary(value: Any, limit: int = 80) -> str:
    if value is None:
        return ""
    if isinstance(value, dict) and isinstance(value.get("documents"), list):
        return f"{len(value['documents'])} documents"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _line(record: dict[str, Any]) -> str:
    parts = [f"{record['name']} [{record['run_type']}]"]
    if record.get("duration_ms") is not None:
        parts.append(f"{record['duration_ms']:.1f} ms")
    usage = record.get("token_usage")
    if usage:
        parts.append(f"tokens in={usage.get('input_tokens', 0)} out={usage.get('output_tokens', 0)}")
    if record.get("error"):
        parts.append(f"ERROR {record['error']}")
    elif record.get("run_type") != "chat_model" or not record.get("outputs"):
        summary = _summary(record.get("outputs"))
        if summary:
            parts.append(f"-> {summary}")
    return "  ".join(parts)


def _tree(record: dict[str, Any], prefix: str, last: bool, top: bool) -> Iterator[str]:
    branch = "" if top else ("└─ " if last else "├─ ")
    yield f"{prefix}{branch}{_line(record)}"
    child_prefix = prefix if top else prefix + ("   " if last else "│  ")
    children = record.get("children") or []
    for index, child in enumerate(children):
        yield from _tree(child, child_prefix, index == len(children) - 1, False)


def format_trace(path: PathLike) -> str:
    """A trace file as text: one tree per top-level invocation, separated by blank lines;
    each line shows a run's name, type, duration, token counts and a short output or error.

    >>> import tempfile, pathlib
    >>> from rag.callbacks import FileTracer
    >>> from rag.runnables import RunnableLambda
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> chain = RunnableLambda(lambda x: x + 1, name="inc") | RunnableLambda(lambda x: x * 2, name="double")
    >>> chain.invoke(1, {"callbacks": [FileTracer(path)], "run_name": "demo"})
    4
    >>> print(format_trace(path))  # doctest: +ELLIPSIS
    demo [chain]  ... ms  -> 4
    ├─ inc [chain]  ... ms  -> 2
    └─ double [chain]  ... ms  -> 4
    """
    return "\n\n".join("\n".join(_tree(record, "", True, True)) for record in read_trace(path))


def print_trace(path: PathLike, stream: Optional[TextIO] = None) -> None:
    """Write :func:`format_trace` of ``path`` to ``stream`` (default ``sys.stdout``)."""
    out = stream if stream is not None else sys.stdout
    text = format_trace(path)
    out.write(text + ("\n" if text else ""))
