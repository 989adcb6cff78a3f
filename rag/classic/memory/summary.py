"""Memories that keep the conversation short: a running summary written by the model,
a summary of what no longer fits, or only what fits in a token budget."""

from __future__ import annotations

import re
from typing import Any

from rag.classic.chains.llm import LLMChain
from rag.classic.memory.chat_memory import BaseChatMemory, replace_messages
from rag.errors import ValidationError
from rag.messages import BaseMessage, SystemMessage, get_buffer_string
from rag.prompts import PromptTemplate
from rag.runnables import Runnable

__all__ = ["SUMMARY_PROMPT", "ConversationSummaryMemory", "ConversationSummaryBufferMemory",
           "ConversationTokenBufferMemory", "count_message_tokens"]

SUMMARY_PROMPT = PromptTemplate.from_template(
    "Extend the summary of a conversation with its new lines, and reply with the new summary only.\n\n"
    "Summary so far:\n{summary}\n\nNew lines of conversation:\n{new_lines}\n\nNew summary:"
)

_WORDS = re.compile(r"\w+|[^\w\s]")


def count_message_tokens(llm: Any, messages: list[BaseMessage]) -> int:
    """``llm.get_num_tokens_from_messages(messages)`` when the model counts tokens; a
    model from another library that counts text (a LangChain LLM's ``get_num_tokens``)
    counts each message's transcript line, as LangChain's base class does; otherwise
    words and punctuation marks of each ``role: text`` line (an approximation that needs
    no tokenizer download)."""
    counter = getattr(llm, "get_num_tokens_from_messages", None)
    if counter is not None and isinstance(llm, Runnable):
        return int(counter(messages))
    text_counter = getattr(llm, "get_num_tokens", None)
    if text_counter is not None:
        return sum(int(text_counter(get_buffer_string([m]))) for m in messages)
    return sum(len(_WORDS.findall(f"{m.type}: {m.text}")) for m in messages)


class _Summarizer(BaseChatMemory):
    """The summary prompt and the model that writes summaries."""

    human_prefix: str = "Human"
    ai_prefix: str = "AI"
    llm: Any
    prompt: Any = SUMMARY_PROMPT
    summary_message_cls: type = SystemMessage
    memory_key: str = "history"

    def _check(self) -> None:
        super()._check()
        expected = {"summary", "new_lines"}
        if set(self.prompt.input_variables) != expected:
            raise ValidationError(f"Got unexpected prompt input variables. The prompt expects "
                                  f"{self.prompt.input_variables}, but it should have {expected}.")

    def predict_new_summary(self, messages: list[BaseMessage], existing_summary: str) -> str:
        """The summary ``existing_summary`` extended with ``messages``, by the model."""
        new_lines = get_buffer_string(messages, human_prefix=self.human_prefix, ai_prefix=self.ai_prefix)
        return LLMChain(llm=self.llm, prompt=self.prompt).predict(summary=existing_summary, new_lines=new_lines)

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]


class ConversationSummaryMemory(_Summarizer):
    """A running summary (``buffer``), extended by ``llm`` after every exchange; loaded
    as the string or, with ``return_messages=True``, as one ``summary_message_cls``
    (SystemMessage) message. The history keeps the full conversation.

    >>> from rag.models import FakeListChatModel
    >>> memory = ConversationSummaryMemory(llm=FakeListChatModel(responses=["They greeted."]))
    >>> memory.save_context({"input": "hi"}, {"output": "hello"})
    >>> memory.load_memory_variables({})
    {'history': 'They greeted.'}
    """

    buffer: str = ""

    @classmethod
    def from_messages(cls, llm: Any, chat_memory: Any, *, summarize_step: int = 2,
                      **kwargs: Any) -> "ConversationSummaryMemory":
        """A memory whose summary covers ``chat_memory``'s messages, ``summarize_step`` at a time."""
        memory = cls(llm=llm, chat_memory=chat_memory, **kwargs)
        messages = list(memory.chat_memory.messages)
        for start in range(0, len(messages), summarize_step):
            memory.buffer = memory.predict_new_summary(messages[start:start + summarize_step], memory.buffer)
        return memory

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        value: Any = [self.summary_message_cls(content=self.buffer)] if self.return_messages else self.buffer
        return {self.memory_key: value}

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        super().save_context(inputs, outputs)
        self.buffer = self.predict_new_summary(list(self.chat_memory.messages)[-2:], self.buffer)

    def clear(self) -> None:
        super().clear()
        self.buffer = ""


def _pruned(llm: Any, messages: list[BaseMessage], limit: int) -> tuple[list[BaseMessage], list[BaseMessage]]:
    """``(dropped, kept)``: the oldest messages dropped until the rest fit in ``limit`` tokens."""
    dropped: list[BaseMessage] = []
    kept = list(messages)
    while kept and count_message_tokens(llm, kept) > limit:
        dropped.append(kept.pop(0))
    return dropped, kept


class ConversationSummaryBufferMemory(_Summarizer):
    """The recent messages that fit in ``max_token_limit`` tokens (default 2000), after a
    summary (``moving_summary_buffer``) of the older ones, written by ``llm`` as they
    leave the window. Unlike LangChain, a file or SQLite history is pruned too (see
    :func:`~rag.classic.memory.chat_memory.replace_messages`)."""

    max_token_limit: int = 2000
    moving_summary_buffer: str = ""

    def _messages(self) -> list[BaseMessage]:
        messages = list(self.chat_memory.messages)
        if self.moving_summary_buffer:
            messages = [self.summary_message_cls(content=self.moving_summary_buffer), *messages]
        return messages

    @property
    def buffer(self) -> Any:
        return self.load_memory_variables({})[self.memory_key]

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        messages = self._messages()
        value: Any = messages if self.return_messages else get_buffer_string(
            messages, human_prefix=self.human_prefix, ai_prefix=self.ai_prefix)
        return {self.memory_key: value}

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        super().save_context(inputs, outputs)
        self.prune()

    def prune(self) -> None:
        """Summarise and drop the oldest messages while the history is over the limit."""
        dropped, kept = _pruned(self.llm, list(self.chat_memory.messages), self.max_token_limit)
        if dropped:
            self.moving_summary_buffer = self.predict_new_summary(dropped, self.moving_summary_buffer)
            replace_messages(self.chat_memory, kept)

    def clear(self) -> None:
        super().clear()
        self.moving_summary_buffer = ""


class ConversationTokenBufferMemory(BaseChatMemory):
    """The most recent messages that fit in ``max_token_limit`` tokens (default 2000),
    counted by ``llm`` (see :func:`count_message_tokens`); older ones are removed from
    the history itself (a file or SQLite history too, unlike LangChain)."""

    human_prefix: str = "Human"
    ai_prefix: str = "AI"
    llm: Any
    memory_key: str = "history"
    max_token_limit: int = 2000

    @property
    def buffer_as_messages(self) -> list[BaseMessage]:
        return list(self.chat_memory.messages)

    @property
    def buffer_as_str(self) -> str:
        return get_buffer_string(self.buffer_as_messages, human_prefix=self.human_prefix, ai_prefix=self.ai_prefix)

    @property
    def buffer(self) -> Any:
        return self.buffer_as_messages if self.return_messages else self.buffer_as_str

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return {self.memory_key: self.buffer}

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        super().save_context(inputs, outputs)
        dropped, kept = _pruned(self.llm, list(self.chat_memory.messages), self.max_token_limit)
        if dropped:
            replace_messages(self.chat_memory, kept)
