"""GenericFakeChatModel: replies scripted as messages, tool calls included, for tests.

LangChain's fake models cannot drive an agent: ``bind_tools`` raises NotImplementedError on
them, and its GenericFakeChatModel drops ``tool_calls`` when streaming. Ours inherit
``bind_tools`` from :class:`~rag.models.BaseChatModel` (the tools are accepted and ignored:
the script decides what the model "calls") and stream tool calls as ``tool_call_chunks``
that add up to the scripted message.

>>> from rag.messages import AIMessage
>>> model = GenericFakeChatModel(messages=iter([
...     AIMessage("", tool_calls=[{"name": "search", "args": {"query": "rag"}, "id": "call_1"}]),
...     "RAG retrieves, then generates.",
... ]))
>>> model.bind_tools([]).invoke("What is RAG?").tool_calls[0]["args"]
{'query': 'rag'}
>>> model.invoke("Thanks").content
'RAG retrieves, then generates.'
"""

from __future__ import annotations

import copy
import json
import re
import threading
from typing import Any, Iterable, Iterator, Optional, Union

from rag.errors import UsageError, ValidationError
from rag.messages import AIMessage, AIMessageChunk, BaseMessage
from rag.models.base import BaseChatModel

__all__ = ["GenericFakeChatModel", "scripted_reply", "reply_chunks"]

_WORDS = re.compile(r"\s*\S+\s*|\s+")

Scripted = Union[AIMessage, str]


def scripted_reply(item: Any, where: str) -> AIMessage:
    """A fresh copy of one scripted reply (a str or an AIMessage): the graph and the model
    set ids on the messages they return, which must not leak back into the script."""
    if isinstance(item, str):
        return AIMessage(item)
    if isinstance(item, AIMessage):
        return copy.deepcopy(item)
    raise ValidationError(f"{where}: a scripted reply must be a str or an AIMessage, got {type(item).__name__}: {item!r:.60}")


def reply_chunks(message: AIMessage) -> Iterator[AIMessageChunk]:
    """``message`` as stream chunks: the text word by word (each word with the spaces after
    it), then one chunk per tool call (its arguments as a JSON string); the last chunk
    carries ``usage_metadata`` and ``response_metadata``. The chunks add up to ``message``."""
    if not isinstance(message.content, str):
        raise ValidationError("a scripted reply streams only str content; pass a str, not content blocks")
    pieces: list[AIMessageChunk] = [AIMessageChunk(word, id=message.id) for word in _WORDS.findall(message.content)]
    pieces += [
        AIMessageChunk("", id=message.id, tool_call_chunks=[{
            "name": call["name"], "args": json.dumps(call["args"]), "id": call["id"], "index": index,
            "type": "tool_call_chunk"}])
        for index, call in enumerate(message.tool_calls)
    ]
    if not pieces:
        pieces.append(AIMessageChunk("", id=message.id))
    last = pieces[-1]
    last.usage_metadata = message.usage_metadata
    last.response_metadata = dict(message.response_metadata)
    last.additional_kwargs = dict(message.additional_kwargs)
    yield from pieces


class GenericFakeChatModel(BaseChatModel):
    """Answers each call with the next message of ``messages`` (AIMessages, tool calls
    included, or strings), whatever the input; ``stream`` yields the reply's words, then
    its tool calls (see :func:`reply_chunks`). Thread-safe. When the script runs out it
    raises :class:`~rag.errors.UsageError` saying how many replies it gave (LangChain's
    raises a bare StopIteration).

    ``messages`` may be an iterator (LangChain's form, ``iter([...])``) or a list.
    """

    def __init__(self, *, messages: Iterable[Scripted]) -> None:
        if isinstance(messages, (str, AIMessage)) or not isinstance(messages, Iterable):
            raise ValidationError(
                f"GenericFakeChatModel needs messages=iter([...]) of AIMessages or strings, got {type(messages).__name__}"
            )
        self.messages: Iterator[Scripted] = iter(messages)
        self.given = 0
        self.name = None
        self._lock = threading.Lock()

    def _next(self) -> AIMessage:
        with self._lock:
            item = next(self.messages, None)
            if item is None:
                raise UsageError(
                    f"GenericFakeChatModel has no scripted reply left: it gave all {self.given}; add more to messages=..."
                )
            self.given += 1
        return scripted_reply(item, "GenericFakeChatModel")

    def _generate(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> AIMessage:
        return self._next()

    def _stream(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> Iterator[AIMessageChunk]:
        yield from reply_chunks(self._next())

    @property
    def _llm_type(self) -> str:
        return "generic-fake-chat-model"

    def __repr__(self) -> str:
        return f"GenericFakeChatModel(given={self.given})"
