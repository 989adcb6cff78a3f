"""Run inputs and outputs as JSON-ready values, for trace files and console lines."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any, Callable
from uuid import UUID

__all__ = ["to_jsonable", "token_usage_of"]

_MAX_DEPTH = 12  # deeper structures are cut (a cycle or a pathological input must not hang a trace)


def _message(value: Any, depth: int, unknown: Callable[[Any], Any] = repr) -> dict[str, Any]:
    data: dict[str, Any] = {"type": value.type, "content": to_jsonable(value.content, depth + 1, unknown)}
    for key in ("tool_calls", "tool_call_id", "name", "usage_metadata", "status"):
        item = getattr(value, key, None)
        if item:
            data[key] = to_jsonable(item, depth + 1, unknown)
    return data


def to_jsonable(value: Any, depth: int = 0, unknown: Callable[[Any], Any] = repr) -> Any:
    """``value`` as JSON-ready data: Documents, messages, model results, dataclasses, UUIDs
    and dates become dicts and strings; anything unknown becomes ``unknown(value)`` (default
    its ``repr``; the trace store also counts them, to mark the run)."""
    from rag.documents import Document
    from rag.messages import BaseMessage

    if depth > _MAX_DEPTH:
        return "..."
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (UUID, datetime)):
        return str(value)
    if isinstance(value, Document):
        return {"page_content": value.page_content, "metadata": to_jsonable(value.metadata, depth + 1, unknown), "id": value.id}
    if isinstance(value, BaseMessage):
        return _message(value, depth, unknown)
    if isinstance(value, BaseException):
        return f"{type(value).__name__}: {value}"
    if isinstance(value, dict):
        return {str(key): to_jsonable(item, depth + 1, unknown) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(item, depth + 1, unknown) for item in value]
    if hasattr(value, "to_messages") and hasattr(value, "to_string"):  # a prompt value
        return {"messages": [_message(m, depth + 1, unknown) for m in value.to_messages()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name), depth + 1, unknown) for f in dataclasses.fields(value)}
    return unknown(value)


def _usage_of(value: Any) -> Any:
    return value.get("usage_metadata") if isinstance(value, dict) else getattr(value, "usage_metadata", None)


def token_usage_of(response: Any) -> dict[str, int] | None:
    """The token counts reported with a model's result (summed over its generations), or None.

    A message, or a dict, carrying LangChain's ``usage_metadata`` (what a ``@traceable``
    model function returns) is read too."""
    total: dict[str, int] = {}
    direct = _usage_of(response)
    if isinstance(direct, dict):
        return {key: direct[key] for key in ("input_tokens", "output_tokens", "total_tokens")
                if isinstance(direct.get(key), int)} or None
    for candidates in getattr(response, "generations", None) or []:
        for generation in candidates:
            usage = getattr(getattr(generation, "message", None), "usage_metadata", None) or {}
            for key in ("input_tokens", "output_tokens", "total_tokens"):
                if isinstance(usage.get(key), int):
                    total[key] = total.get(key, 0) + usage[key]
    return total or None
