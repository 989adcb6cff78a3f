"""FakeListChatModel: scripted replies for tests, streamed word by word."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, AsyncIterator, Iterator, Optional, Sequence, Union

from rag.errors import ValidationError
from rag.messages import AIMessage, AIMessageChunk, BaseMessage
from rag.models.base import BaseChatModel
from rag.models.fake_generic import reply_chunks, scripted_reply

__all__ = ["FakeListChatModel"]


class FakeListChatModel(BaseChatModel):
    """Answers with ``responses`` in turn, starting again after the last; ``i`` is the index
    of the next reply. ``stream`` yields the reply word by word (each word with the spaces
    that follow it, so the chunks add up to the reply exactly); ``sleep`` seconds pass
    before each chunk (default None: no wait). Thread-safe.

    Unlike LangChain's fake (one chunk per character), chunks are words, closer to how real
    models stream tokens. A response may also be an :class:`~rag.messages.AIMessage` with
    ``tool_calls`` (its tool calls stream as ``tool_call_chunks`` after the words), and
    ``bind_tools`` works (the tools are accepted; the script decides the calls), so the
    model can drive an agent; LangChain's raises NotImplementedError in ``bind_tools``.

    >>> model = FakeListChatModel(responses=["Hello there", "Bye"])
    >>> model.invoke("hi").content, [c.content for c in model.stream("hi")]
    ('Hello there', ['Bye'])
    """

    def __init__(self, responses: Sequence[Union[str, AIMessage]], *, sleep: Optional[float] = None, i: int = 0) -> None:
        if isinstance(responses, str) or not responses or not all(isinstance(r, (str, AIMessage)) for r in responses):
            raise ValidationError(
                f"FakeListChatModel needs a non-empty list of responses (str or AIMessage), got {responses!r:.80}")
        if sleep is not None and (not isinstance(sleep, (int, float)) or sleep < 0):
            raise ValidationError(f"sleep must be None or seconds >= 0, got {sleep!r}")
        self.responses = list(responses)
        self.sleep = sleep
        self.i = i
        self.name = None
        self._lock = threading.Lock()

    def _next_response(self) -> AIMessage:
        with self._lock:
            response = self.responses[self.i % len(self.responses)]
            self.i = (self.i + 1) % len(self.responses)
        return scripted_reply(response, "FakeListChatModel")

    def _generate(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> AIMessage:
        return self._next_response()

    async def _agenerate(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> AIMessage:
        return self._next_response()

    def _stream(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> Iterator[AIMessageChunk]:
        for chunk in reply_chunks(self._next_response()):
            if self.sleep:
                time.sleep(self.sleep)
            yield chunk

    async def _astream(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> AsyncIterator[AIMessageChunk]:
        for chunk in reply_chunks(self._next_response()):
            if self.sleep:
                await asyncio.sleep(self.sleep)
            yield chunk

    @property
    def _llm_type(self) -> str:
        return "fake-list-chat-model"

    def __repr__(self) -> str:
        return f"FakeListChatModel(responses={len(self.responses)} replies, i={self.i})"
