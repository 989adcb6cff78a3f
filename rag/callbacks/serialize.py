"""Run inputs and outputs as JSON-ready values, for trace files and console lines."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any
from uuid import UUID

__all__ = ["to_jsonable", "token_usage_of"]

_MAX_DEPTH = 12  # deeper structures are cut (a cycle or a pathological input must not hang a trace)


def _message(value: Any, depth: int) -> dict[str, Any]:
    data: dict[str, Any] = {"type": value.type, "content": to_jsonable(value.content, depth + 1)}
    for key in ("tool_calls", "tool_call_id", "name", "usage_metadata", "status"):
        item = getattr(value, key, None)
        if item:
            data[key] = to_jsonable(item, depth + 1)
    return data


def to_jsonable(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-ready data: Documents, messages, model results, dataclasses, UUIDs
    and dates become dicts and strings; anything unknown becomes its ``repr``."""
    from rag.documents import Document
    from rag.messages import BaseMessage

    if depth > _MAX_DEPTH:
        return "..."
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (UUID, datetime)):
        return str(value)
    if isinstance(value, Document):
        return {"page_content": value.page_content, "metadata": to_jsonable(value.metadata, depth + 1), "id": value.id}
    if isinstance(value, BaseMessage):
        return _message(value, depth)
    if isinstance(value, BaseException):
        return f"{type(value).__name__}: {value}"
    if isinstance(value, dict):
        return {str(key): to_jsonable(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(item, depth + 1) for item in value]
    if hasattr(value, "to_messages") and hasattr(value, "to_string"):  # a prompt value
        return {"messages": [_message(m, depth + 1) for m in value.to_messages()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
    return repr(value)


def token_usage_of(response: Any) -> dict[str, int] | None:
    """The token counts reported with a model's result (summed over its generations), or None."""
    total: dict[str, int] = {}
    for candidates in getattr(response, "generations", None) or []:
        for generation in candidates:
            usage = getattr(getattr(generation, "message", None), "usage_metadata", None) or {}
            for key in ("input_tokens", "output_tokens", "total_tokens"):
                if isinstance(usage.get(key), int):
                    total[key] = total.get(key, 0) + usage[key]
    return total or None
