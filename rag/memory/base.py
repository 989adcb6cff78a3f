"""The chat history interface, the in-memory history, and messages as JSON records.

A history is two primitives, :meth:`BaseChatMessageHistory.get_messages` and
:meth:`~BaseChatMessageHistory.add_messages` (plus ``clear``); the rest (``messages``,
``add_message``, ``add_user_message``, ``add_ai_message``, the async methods) is derived.

Records: a message is stored as LangChain's ``message_to_dict`` shape, ``{"type": "human",
"data": {...}}``, where ``data`` is the wire form of :mod:`rag.codec` (the same fields
LangChain's pydantic dump has), so a history written by LangChain's
``SQLChatMessageHistory`` reads back here and the other way round.

>>> history = InMemoryChatMessageHistory()
>>> history.add_user_message("hi"); history.add_ai_message("hello")
>>> [m.type for m in history.messages]
['human', 'ai']
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from typing import Any, Optional, Sequence

from rag.codec import decode, encode
from rag.errors import InvalidTypeError, StorageError, ValidationError
from rag.message_roles import ROLES
from rag.messages import AIMessage, BaseMessage, HumanMessage, get_buffer_string, message_chunk_to_message

__all__ = [
    "BaseChatMessageHistory",
    "InMemoryChatMessageHistory",
    "CorruptHistoryError",
    "message_to_dict",
    "messages_to_dict",
    "message_from_dict",
    "messages_from_dict",
    "check_session_id",
]


class CorruptHistoryError(StorageError):
    """A stored history holds a record that is not a message. ``location`` names it (a
    file's ``path:line``, or a database row); ``messages`` are the good messages read
    before it. Nothing is deleted: fix or remove the record named."""

    def __init__(self, message: str, *, location: str, messages: Sequence[BaseMessage] = ()) -> None:
        super().__init__(message)
        self.location = location
        self.messages = list(messages)


def check_session_id(session_id: Any, *, what: str = "session_id") -> str:
    """``session_id`` if it is a non-empty str; otherwise a ValidationError naming it.
    (LangChain passes any value on, so whether ``1`` and ``"1"`` share a history depends on
    the store.)"""
    if not isinstance(session_id, str) or not session_id:
        raise ValidationError(f"{what} must be a non-empty str, got {type(session_id).__name__} {session_id!r:.60}")
    return session_id


def message_to_dict(message: BaseMessage) -> dict[str, Any]:
    """``{"type": message.type, "data": {...}}``, LangChain's record of a message. A
    streamed :class:`~rag.messages.AIMessageChunk` is stored as the whole AIMessage."""
    if not isinstance(message, BaseMessage):
        raise InvalidTypeError(f"a chat history holds messages, got {type(message).__name__} {message!r:.60}")
    message = message_chunk_to_message(message)
    return {"type": message.type, "data": encode(message)}


def messages_to_dict(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    return [message_to_dict(message) for message in messages]


def message_from_dict(record: Any) -> BaseMessage:
    """The message a :func:`message_to_dict` record holds; ValidationError when it holds none."""
    if not isinstance(record, dict) or not isinstance(record.get("data"), dict) or not isinstance(record.get("type"), str):
        raise ValidationError(f"expected a message record {{'type': ..., 'data': {{...}}}}, got {record!r:.80}")
    message = decode({**record["data"], "type": record["type"]})
    if not isinstance(message, BaseMessage):
        known = ", ".join(role.type for role in ROLES)
        raise ValidationError(f"not a message of a known type ({known}): {record!r:.80}")
    return message_chunk_to_message(message)


def messages_from_dict(records: Sequence[Any]) -> list[BaseMessage]:
    return [message_from_dict(record) for record in records]


def checked_messages(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    if isinstance(messages, (BaseMessage, str, dict)):
        raise InvalidTypeError(f"add_messages needs a list of messages, got {type(messages).__name__}; wrap it in a list")
    checked = list(messages)
    for message in checked:
        if not isinstance(message, BaseMessage):
            raise InvalidTypeError(f"a chat history holds messages, got {type(message).__name__} {message!r:.60}")
    return [message_chunk_to_message(message) for message in checked]


class BaseChatMessageHistory(ABC):
    """A conversation's messages, oldest first. Subclasses implement
    :meth:`get_messages`, :meth:`add_messages` (all of one call stored together, or none)
    and :meth:`clear`."""

    @abstractmethod
    def get_messages(self) -> list[BaseMessage]:
        """Every message, oldest first."""

    @abstractmethod
    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append ``messages`` (all or none)."""

    @abstractmethod
    def clear(self) -> None:
        """Remove every message of this history."""

    @property
    def messages(self) -> list[BaseMessage]:
        """:meth:`get_messages` (LangChain's attribute)."""
        return self.get_messages()

    def add_message(self, message: BaseMessage) -> None:
        self.add_messages([message])

    def add_user_message(self, message: Any) -> None:
        """Append a HumanMessage (a str becomes one)."""
        self.add_message(message if isinstance(message, HumanMessage) else HumanMessage(message))

    def add_ai_message(self, message: Any) -> None:
        """Append an AIMessage (a str becomes one)."""
        self.add_message(message if isinstance(message, AIMessage) else AIMessage(message))

    async def aget_messages(self) -> list[BaseMessage]:
        return await asyncio.to_thread(self.get_messages)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        await asyncio.to_thread(self.add_messages, messages)

    async def aclear(self) -> None:
        await asyncio.to_thread(self.clear)

    def __str__(self) -> str:
        return get_buffer_string(self.messages)


class InMemoryChatMessageHistory(BaseChatMessageHistory):
    """A history held in a list (``messages``), lost when the process ends.

    >>> history = InMemoryChatMessageHistory(messages=[HumanMessage("hi")])
    >>> len(history.messages)
    1
    """

    def __init__(self, *, messages: Optional[Sequence[BaseMessage]] = None) -> None:
        self._messages: list[BaseMessage] = checked_messages(messages or [])

    def get_messages(self) -> list[BaseMessage]:
        return list(self._messages)

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        self._messages.extend(checked_messages(messages))

    def clear(self) -> None:
        self._messages = []

    # LangChain's InMemoryChatMessageHistory exposes ``messages`` as a plain, settable field.
    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        return self._messages

    @messages.setter
    def messages(self, value: Sequence[BaseMessage]) -> None:
        self._messages = checked_messages(value)

    async def aget_messages(self) -> list[BaseMessage]:  # no thread for a list
        return self.get_messages()

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        self.add_messages(messages)

    async def aclear(self) -> None:
        self.clear()

    def __repr__(self) -> str:
        return f"InMemoryChatMessageHistory(messages={self._messages!r})"
