"""A finished run tree as the trace store's rows: JSON text, truncated and marked.

Runs become rows in the writer thread, off the traced program's path. Inputs and outputs
are encoded with :func:`rag.callbacks.serialize.to_jsonable`; a value it does not know is
stored as its ``repr`` and the run's ``notes`` say so; a field longer than the stated
limit (bytes of JSON text) is cut to it and marked, so a reader never mistakes a cut value
for the whole. Nothing is pickled: what is stored is JSON text a person can read.
"""

from __future__ import annotations

import json
import math
from typing import Any, Iterator, NamedTuple, Optional

from rag.callbacks.serialize import to_jsonable
from rag.callbacks.tracer import TraceRun
from rag.documents import Document

__all__ = ["TRUNCATED_KEY", "RunRow", "TraceRow", "encode_field", "rows_of"]

#: The key of a truncated field's stored object: ``{TRUNCATED_KEY: {"bytes", "kept", "preview"}}``.
TRUNCATED_KEY = "__rag_truncated__"


def _repr_of(value: Any, seen: list[int]) -> str:
    seen[0] += 1
    try:
        return repr(value)
    except Exception as exc:  # a broken __repr__ must not lose the run
        return f"<{type(value).__name__} object: repr failed with {type(exc).__name__}>"


def _finite(value: Any) -> Any:
    # JSON has no NaN or Infinity (a browser's JSON.parse refuses them): stored as text.
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


def encode_field(value: Any, limit: int, what: str, notes: list[str]) -> Optional[str]:
    """``value`` as JSON text of at most about ``limit`` bytes (None stays None); appends to
    ``notes`` what was stored as a repr and what was truncated."""
    if value is None:
        return None
    reprs = [0]

    def unknown(item: Any) -> Any:
        return _repr_of(item, reprs)

    def default(item: Any) -> Any:
        if type(item) is Document:  # the commonest by far: its metadata stays with the C encoder
            return {"page_content": item.page_content, "metadata": item.metadata, "id": item.id}
        return to_jsonable(item, unknown=unknown)

    try:
        # The C encoder first, calling back only for what JSON does not know (a Document,
        # a message, a UUID...): most runs never leave C.
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, default=default)
    except (TypeError, ValueError, RecursionError):  # odd keys, NaN, a cycle: the careful walk
        reprs[0] = 0
        data = to_jsonable(value, unknown=unknown)
        try:
            text = json.dumps(data, ensure_ascii=False, allow_nan=False)
        except ValueError:
            text = json.dumps(_finite(data), ensure_ascii=False)
    if reprs[0]:
        notes.append(f"{what}: {reprs[0]} value(s) not JSON-serialisable, stored as repr")
    if len(text) * 4 > limit or len(text.encode("utf-8")) > limit:  # 4 bytes a character at most
        size = len(text.encode("utf-8"))
        if size > limit:
            preview = text.encode("utf-8")[:limit].decode("utf-8", "ignore")
            notes.append(f"{what}: truncated to {limit} of {size} bytes")
            text = json.dumps({TRUNCATED_KEY: {"bytes": size, "kept": limit, "preview": preview}}, ensure_ascii=False)
    return text


class RunRow(NamedTuple):
    """One row of the ``runs`` table (times as ISO 8601 UTC text and microseconds)."""

    id: str
    trace_id: str
    parent_run_id: Optional[str]
    dotted_order: str
    project: str
    name: str
    run_type: str
    start_us: int
    start_time: str
    end_time: Optional[str]
    duration_ms: Optional[float]
    status: str
    error: Optional[str]
    inputs: Optional[str]
    outputs: Optional[str]
    tags: str
    metadata: str
    input_tokens: Optional[int]
    output_tokens: Optional[int]
    total_tokens: Optional[int]
    notes: Optional[str]


class TraceRow(NamedTuple):
    """One row of the ``traces`` table: the top run and the tree's totals, for listing."""

    trace_id: str
    project: str
    name: str
    start_us: int
    start_time: str
    duration_ms: Optional[float]
    status: str
    error: Optional[str]
    runs: int
    errors: int
    input_tokens: int
    output_tokens: int
    total_tokens: int
    tags: str


def _walk(run: TraceRun) -> Iterator[TraceRun]:
    yield run
    for child in run.children:
        yield from _walk(child)


def _micros(run: TraceRun) -> int:
    return int(run.start_time.timestamp() * 1_000_000)


def _tokens(run: TraceRun, key: str) -> Optional[int]:
    return (run.token_usage or {}).get(key)


def rows_of(root: TraceRun, project: str, max_field_bytes: int) -> tuple[TraceRow, list[RunRow]]:
    """The rows of the tree under ``root`` (which need not be a trace's first run: a tree
    whose parent this tracer never saw is stored as a trace of its own)."""
    trace_id = str(root.id)
    rows = []
    for run in _walk(root):
        notes: list[str] = []
        inputs = encode_field(run.inputs, max_field_bytes, "inputs", notes)
        outputs = encode_field(run.outputs, max_field_bytes, "outputs", notes)
        metadata = encode_field(run.metadata, max_field_bytes, "metadata", notes) if run.metadata else "{}"
        rows.append(RunRow(
            str(run.id), trace_id, str(run.parent_run_id) if run is not root and run.parent_run_id else None,
            run.dotted_order, project, run.name, run.run_type, _micros(run), run.start_time.isoformat(),
            run.end_time.isoformat() if run.end_time else None, run.duration_ms,
            "error" if run.error is not None else "success", run.error, inputs, outputs,
            json.dumps(run.tags, ensure_ascii=False) if run.tags else "[]", metadata, _tokens(run, "input_tokens"),
            _tokens(run, "output_tokens"), _tokens(run, "total_tokens"),
            json.dumps(notes, ensure_ascii=False) if notes else None))
    totals = {key: sum(getattr(row, key) or 0 for row in rows) for key in ("input_tokens", "output_tokens", "total_tokens")}
    trace = TraceRow(trace_id, project, root.name, _micros(root), root.start_time.isoformat(), root.duration_ms,
                     "error" if root.error is not None else "success", root.error, len(rows),
                     sum(1 for row in rows if row.status == "error"), totals["input_tokens"], totals["output_tokens"],
                     totals["total_tokens"], json.dumps(root.tags, ensure_ascii=False))
    return trace, rows
