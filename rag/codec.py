"""LangChain's JSON shapes of our objects, and back: the wire format and the message records.

LangServe (0.3.3) sends LangChain objects as their pydantic dumps, told apart by ``type``:
a Document is ``{"id", "metadata", "page_content", "type": "Document"}``; a message
``{"content", "additional_kwargs", "response_metadata", "type", "name", "id", ...}`` with
``type`` a type tag of :data:`rag.message_roles.ROLES` ("human", "ai", "system", "tool",
"AIMessageChunk"...); prompt values are ``StringPromptValue`` / ``ChatPromptValueConcrete``.
:func:`encode` writes those shapes, so LangServe's ``RemoteRunnable`` rebuilds
langchain-core objects from our answers; :func:`decode` reads them (from LangServe or from
us) into ours. A dict whose ``type`` is not one of these, or whose fields do not fit, stays
a dict (as in LangServe). The server (:mod:`rag.serve`) speaks this format, and chat
histories (:mod:`rag.memory`) store messages in it, so it sits here, beside the messages,
below both.

>>> from rag.documents import Document
>>> wire = encode(Document("hi", {"a": 1}, id="d1"))
>>> wire
{'id': 'd1', 'metadata': {'a': 1}, 'page_content': 'hi', 'type': 'Document'}
>>> decode(wire) == Document("hi", {"a": 1}, id="d1")
True
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from datetime import date, datetime
from typing import Any, Callable, Iterable, Optional
from uuid import UUID

from rag.documents import Document
from rag.errors import InvalidTypeError, RagError
from rag.message_roles import message_class_for_type
from rag.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from rag.prompts.values import ChatPromptValue, StringPromptValue

__all__ = ["encode", "decode", "dumps", "loads"]

_BASE_FIELDS = ("content", "additional_kwargs", "response_metadata")


def _message(message: BaseMessage) -> dict[str, Any]:
    wire: dict[str, Any] = {key: encode(getattr(message, key)) for key in _BASE_FIELDS}
    wire.update(type=message.type, name=message.name, id=message.id)
    if isinstance(message, AIMessage):
        wire.update(tool_calls=encode(message.tool_calls), invalid_tool_calls=encode(message.invalid_tool_calls),
                    usage_metadata=encode(message.usage_metadata))
    if isinstance(message, AIMessageChunk):
        wire.update(tool_call_chunks=encode(message.tool_call_chunks), chunk_position=None)
    if isinstance(message, ToolMessage):
        wire.update(tool_call_id=message.tool_call_id, artifact=encode(message.artifact), status=message.status)
    return wire


def encode(value: Any) -> Any:
    """``value`` as JSON-ready data in LangServe's shapes. Documents, messages, prompt
    values, UUIDs, dates and dataclasses are converted; anything else that JSON cannot hold
    raises :class:`~rag.errors.InvalidTypeError` naming its type."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        # JSON has no NaN/Infinity; LangServe's orjson writes null for them.
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(key): encode(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(item) for item in value]
    if isinstance(value, Document):
        return {"id": value.id, "metadata": encode(value.metadata), "page_content": value.page_content,
                "type": "Document"}
    if isinstance(value, BaseMessage):
        return _message(value)
    if isinstance(value, StringPromptValue):
        return {"text": value.text, "type": "StringPromptValue"}
    if isinstance(value, ChatPromptValue):
        return {"messages": encode(value.messages), "type": "ChatPromptValueConcrete"}
    if isinstance(value, (UUID, datetime, date)):
        return str(value) if isinstance(value, UUID) else value.isoformat()
    if isinstance(value, BaseException):
        return {"type": type(value).__name__, "message": str(value)}
    if isinstance(value, (set, frozenset)):
        return [encode(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    raise InvalidTypeError(f"cannot send a {type(value).__name__} as JSON: {value!r:.80}")


def _known(wire: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    return {name: wire[name] for name in names if wire.get(name) is not None}


def _init_fields(cls: type) -> tuple[str, ...]:
    # The keyword fields a message class takes (content is positional).
    return tuple(f.name for f in dataclasses.fields(cls) if f.init and f.name not in ("_", "content"))


@functools.cache
def _message_builder(cls: type[BaseMessage]) -> Callable[[dict[str, Any]], BaseMessage]:
    names = _init_fields(cls)
    return lambda w: cls(w["content"], **_known(w, names))


def _document(w: dict[str, Any]) -> Document:
    return Document(w["page_content"], w.get("metadata") or {}, id=w.get("id"))


def _chat_prompt(w: dict[str, Any]) -> ChatPromptValue:
    messages = w["messages"]
    if not isinstance(messages, list) or not all(isinstance(m, BaseMessage) for m in messages):
        raise InvalidTypeError("a chat prompt value needs a list of messages")
    return ChatPromptValue(messages)


# type tag -> builder from the (already decoded) dict; a message's tag names its class in
# the role table (LangChain's chunks of other kinds load as the whole messages we have).
_BUILDERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "Document": _document,
    "StringPromptValue": lambda w: StringPromptValue(w["text"]),
    "ChatPromptValueConcrete": _chat_prompt,
}


def _builder(type_tag: Any) -> Optional[Callable[[dict[str, Any]], Any]]:
    if not isinstance(type_tag, str):
        return None
    message_class = message_class_for_type(type_tag)
    return _message_builder(message_class) if message_class is not None else _BUILDERS.get(type_tag)


def decode(value: Any) -> Any:
    """JSON data with LangServe's shapes as our objects (inner values first)."""
    if isinstance(value, list):
        return [decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    inner = {key: decode(item) for key, item in value.items()}
    builder = _builder(inner.get("type"))
    if builder is None:
        return inner
    try:
        return builder(inner)
    except (RagError, KeyError, TypeError, ValueError):
        return inner  # not one of ours after all: keep the data


def dumps(value: Any) -> str:
    """:func:`encode` then compact JSON text."""
    return json.dumps(encode(value), separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def loads(text: str | bytes) -> Any:
    """JSON text to our objects (:func:`decode`)."""
    return decode(json.loads(text))
