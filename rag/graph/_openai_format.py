"""Messages with their content in OpenAI's chat format: what
``add_messages(format="langchain-openai")`` keeps in a state (LangGraph's option).

Content blocks written for other providers become OpenAI's: Anthropic ``image`` blocks
(``source`` base64 or url) and LangChain's standard image blocks (``url`` / ``base64`` with
``mime_type``) become ``image_url`` blocks with a URL or a ``data:`` URL; ``tool_use``
blocks in an AI message become its ``tool_calls`` (unless one with that id is there);
``tool_result`` blocks in a human message become :class:`~rag.messages.ToolMessage` s that
follow it (the human message is dropped when nothing else is left in it); ``json`` blocks
become text; ``thinking``/``reasoning``, ``file`` and ``input_audio`` blocks are kept.
Text blocks keep only their text (provider extras such as ``cache_control`` go), and a
content made only of text blocks becomes one string, the texts joined by newlines (as
LangChain's ``convert_to_openai_messages`` with ``text_format="string"``).

Unlike LangChain's round trip through OpenAI dicts, message ids, names and the other
fields are kept, so a later update can still replace a message by its id.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Iterable

from rag.errors import ValidationError
from rag.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = ["openai_format"]

_KEPT = frozenset({"thinking", "reasoning", "file", "input_audio"})


def openai_format(messages: Iterable[BaseMessage]) -> list[BaseMessage]:
    """``messages`` with OpenAI-shaped content (see the module docstring); a block of a
    kind OpenAI has no counterpart for raises naming its position and the block."""
    formatted: list[BaseMessage] = []
    for index, message in enumerate(messages):
        formatted.extend(_format(index, message))
    return formatted


def _format(index: int, message: BaseMessage) -> list[BaseMessage]:
    if not isinstance(message.content, list):
        return [message]
    blocks: list[dict[str, Any]] = []
    calls = list(message.tool_calls) if isinstance(message, AIMessage) else []
    results: list[BaseMessage] = []
    for position, block in enumerate(message.content):
        where = f"messages[{index}].content[{position}]"
        if isinstance(block, str):
            blocks.append({"type": "text", "text": block})
            continue
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "tool_use" and isinstance(message, AIMessage):
            _need(block, ("id", "name", "input"), where)
            if not any(call.get("id") == block["id"] for call in calls):
                calls.append({"name": block["name"], "args": block["input"], "id": block["id"], "type": "tool_call"})
        elif kind == "tool_result":
            _need(block, ("tool_use_id", "content"), where)
            answer = ToolMessage(block["content"], tool_call_id=block["tool_use_id"],
                                 status="error" if block.get("is_error") else "success")
            results.extend(_format(index, answer))
        else:
            blocks.append(_block(block, kind, where))
    content: Any = blocks
    if all(block.get("type") == "text" for block in blocks):
        content = "\n".join(block["text"] for block in blocks)
    changes: dict[str, Any] = {"content": content}
    if isinstance(message, AIMessage):
        changes["tool_calls"] = calls
    if results and not content and isinstance(message, HumanMessage):
        return results  # the message only carried tool results
    return [dataclasses.replace(message, **changes), *results]


def _block(block: Any, kind: Any, where: str) -> dict[str, Any]:
    """One content block in OpenAI's shape (tool blocks are handled by the caller)."""
    if kind == "text":
        _need(block, ("text",), where)
        return {"type": "text", "text": block["text"]}
    if kind == "image_url":
        _need(block, ("image_url",), where)
        url = block["image_url"]
        return {"type": "image_url", "image_url": {"url": url} if isinstance(url, str) else url}
    if kind == "image":
        return {"type": "image_url", "image_url": {"url": _image_url(block, where)}}
    if kind == "json":
        _need(block, ("json",), where)
        return {"type": "text", "text": json.dumps(block["json"])}
    if kind in _KEPT:
        return block
    raise ValidationError(
        f"add_messages(format='langchain-openai'): the content block at {where} is not one OpenAI's format "
        f"has a counterpart for (text, image_url, image, json, tool_use, tool_result, thinking, reasoning, file, "
        f"input_audio), got {block!r:.120}"
    )


def _image_url(block: dict[str, Any], where: str) -> str:
    source = block.get("source")
    if isinstance(source, dict):  # Anthropic's: {"type": "base64", "media_type", "data"} or {"type": "url", "url"}
        if source.get("type") == "url" and "url" in source:
            return str(source["url"])
        _need(source, ("type", "media_type", "data"), f"{where}['source']")
        return f"data:{source['media_type']};{source['type']},{source['data']}"
    if "url" in block:  # LangChain's standard block
        return str(block["url"])
    if "base64" in block or "data" in block:
        data = block.get("base64", block.get("data"))
        return f"data:{block.get('mime_type', 'image/jpeg')};base64,{data}"
    raise ValidationError(f"the image block at {where} has no source, url or base64 data: {block!r:.120}")


def _need(block: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
    missing = [key for key in keys if key not in block]
    if missing:
        raise ValidationError(f"the content block at {where} lacks {missing}: {block!r:.120}")
