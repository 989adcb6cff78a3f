"""The OpenAI chat-completions wire format: our messages out, replies and chunks in.

Pure functions on plain data, shared by the sync and async paths of ``ChatOpenAI``.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from rag.message_roles import role_of
from rag.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from rag.models.errors import APIError, APIResponseValidationError

__all__ = ["message_to_openai", "ai_message_from_response", "chunk_from_stream_event", "usage_of"]


def message_to_openai(message: BaseMessage) -> dict[str, Any]:
    """One message as an OpenAI ``messages`` entry (its role from :data:`rag.message_roles.ROLES`)."""
    role = role_of(message)
    if role is None:
        raise APIError(f"cannot send a {type(message).__name__} to an OpenAI-compatible server")
    entry: dict[str, Any] = {"role": role.openai_role, "content": message.content}
    if isinstance(message, AIMessage):
        entry["content"] = message.content or None
        calls = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": json.dumps(c["args"])}}
            for c in message.tool_calls
        ] + [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["args"] or ""}}
            for c in message.invalid_tool_calls
        ]
        if calls:
            entry["tool_calls"] = calls
    elif isinstance(message, ToolMessage):
        entry["tool_call_id"] = message.tool_call_id
    if message.name:
        entry["name"] = message.name
    return entry


def usage_of(body: dict[str, Any]) -> Optional[dict[str, int]]:
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return None
    prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    return {"input_tokens": prompt, "output_tokens": completion,
            "total_tokens": int(usage.get("total_tokens") or prompt + completion)}


def _parse_tool_calls(raw_calls: list[dict[str, Any]]) -> tuple[list[dict], list[dict]]:
    valid, invalid = [], []
    for call in raw_calls:
        function = call.get("function") or {}
        name, arguments = function.get("name"), function.get("arguments") or ""
        try:
            args = json.loads(arguments) if arguments.strip() else {}
            if not isinstance(args, dict):
                raise ValueError(f"arguments must be a JSON object, got {type(args).__name__}")
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            invalid.append({"name": name, "args": arguments, "id": call.get("id"),
                            "error": f"arguments are not valid JSON: {exc}"})
            continue
        valid.append({"name": name, "args": args, "id": call.get("id")})
    return valid, invalid


def _metadata(body: dict[str, Any], finish_reason: Any) -> dict[str, Any]:
    metadata = {"model_name": body.get("model"), "finish_reason": finish_reason,
                "system_fingerprint": body.get("system_fingerprint")}
    return {k: v for k, v in metadata.items() if v is not None}


def ai_message_from_response(body: Any) -> AIMessage:
    """The :class:`AIMessage` in a chat-completions response body."""
    try:
        choice = body["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise APIResponseValidationError(
            f"the server's reply has no choices[0].message: {json.dumps(body)[:200]}", body=body
        ) from exc
    valid, invalid = _parse_tool_calls(message.get("tool_calls") or [])
    return AIMessage(
        message.get("content") or "",
        tool_calls=valid,  # type: ignore[arg-type]
        invalid_tool_calls=invalid,  # type: ignore[arg-type]
        usage_metadata=usage_of(body),  # type: ignore[arg-type]
        response_metadata=_metadata(body, choice.get("finish_reason")),
        id=body.get("id"),
    )


def chunk_from_stream_event(body: Any) -> Optional[AIMessageChunk]:
    """The :class:`AIMessageChunk` in one streamed event (None for an empty keep-alive)."""
    if not isinstance(body, dict):
        raise APIResponseValidationError(f"a streamed event is not a JSON object: {str(body)[:200]}", body=body)
    if body.get("error"):
        error = body["error"]
        message = error.get("message") if isinstance(error, dict) else str(error)
        raise APIError(f"the server reported an error mid-stream: {message}", body=body)
    usage = usage_of(body)
    choices = body.get("choices") or []
    if not choices:
        return AIMessageChunk("", usage_metadata=usage, id=body.get("id")) if usage else None  # type: ignore[arg-type]
    choice = choices[0]
    delta = choice.get("delta") or {}
    tool_chunks = [
        {"name": (c.get("function") or {}).get("name"), "args": (c.get("function") or {}).get("arguments"),
         "id": c.get("id"), "index": c.get("index")}
        for c in delta.get("tool_calls") or []
    ]
    finish = choice.get("finish_reason")
    return AIMessageChunk(
        delta.get("content") or "",
        tool_call_chunks=tool_chunks,  # type: ignore[arg-type]
        usage_metadata=usage,  # type: ignore[arg-type]
        response_metadata=_metadata(body, finish) if finish else {},
        id=body.get("id"),
    )
