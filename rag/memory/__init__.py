"""Conversation memory: chat message histories, the runnable that keeps them, and trimming.

* :class:`InMemoryChatMessageHistory`, :class:`FileChatMessageHistory` (JSON lines,
  append-only, crash-safe) and :class:`SQLChatMessageHistory` (SQLite, the standard
  library's ``sqlite3``), all on the :class:`BaseChatMessageHistory` interface.
* :class:`RunnableWithMessageHistory`: loads a session's history before a call and stores
  the new messages after it (``config["configurable"]["session_id"]``).
* :func:`trim_messages`: a conversation under a token budget.

>>> from rag.memory import InMemoryChatMessageHistory, RunnableWithMessageHistory
>>> from rag.models import FakeListChatModel
>>> store = {}
>>> chat = RunnableWithMessageHistory(FakeListChatModel(responses=["Hello!"]),
...                                   lambda session_id: store.setdefault(session_id, InMemoryChatMessageHistory()))
>>> chat.invoke("Hi, I'm Bob.", {"configurable": {"session_id": "bob"}}).content
'Hello!'
>>> [m.type for m in store["bob"].messages]
['human', 'ai']
"""

from rag.memory.base import (
    BaseChatMessageHistory,
    CorruptHistoryError,
    InMemoryChatMessageHistory,
    message_from_dict,
    message_to_dict,
    messages_from_dict,
    messages_to_dict,
)
from rag.memory.file import FileChatMessageHistory
from rag.memory.runnable import RunnableWithMessageHistory
from rag.memory.sql import SQLChatMessageHistory
from rag.memory.trim import trim_messages

# LangChain's older name for the in-memory history.
ChatMessageHistory = InMemoryChatMessageHistory

__all__ = [
    "BaseChatMessageHistory",
    "InMemoryChatMessageHistory",
    "ChatMessageHistory",
    "FileChatMessageHistory",
    "SQLChatMessageHistory",
    "CorruptHistoryError",
    "RunnableWithMessageHistory",
    "trim_messages",
    "message_to_dict",
    "messages_to_dict",
    "message_from_dict",
    "messages_from_dict",
]
