"""The conversation as it was: every turn, the last ``k`` turns, or fixed values."""

from __future__ import annotations

from typing import Any

from rag.classic.base_memory import BaseMemory
from rag.classic.memory.chat_memory import BaseChatMemory
from rag.errors import ValidationError
from rag.messages import BaseMessage, get_buffer_string

__all__ = ["ConversationBufferMemory", "ConversationBufferWindowMemory", "SimpleMemory", "ReadOnlySharedMemory"]


class _TranscriptMemory(BaseChatMemory):
    """Shared by the buffer memories: the prefixes, the key, and messages-or-string."""

    human_prefix: str = "Human"
    ai_prefix: str = "AI"
    memory_key: str = "history"

    def _kept(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        return messages

    @property
    def buffer_as_messages(self) -> list[BaseMessage]:
        return self._kept(list(self.chat_memory.messages))

    @property
    def buffer_as_str(self) -> str:
        return get_buffer_string(self.buffer_as_messages, human_prefix=self.human_prefix, ai_prefix=self.ai_prefix)

    @property
    def buffer(self) -> Any:
        """The messages (``return_messages=True``) or their transcript."""
        return self.buffer_as_messages if self.return_messages else self.buffer_as_str

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return {self.memory_key: self.buffer}


class ConversationBufferMemory(_TranscriptMemory):
    """Every message of the conversation under ``memory_key`` (default "history"), as a
    transcript (``"Human: hi\\nAI: hello"``, prefixes ``human_prefix`` / ``ai_prefix``) or
    as messages with ``return_messages=True``.

    >>> memory = ConversationBufferMemory()
    >>> memory.save_context({"input": "hi"}, {"output": "hello"})
    >>> memory.load_memory_variables({})
    {'history': 'Human: hi\\nAI: hello'}
    """


class ConversationBufferWindowMemory(_TranscriptMemory):
    """The last ``k`` exchanges (default 5; 2·k messages; 0 keeps none). The history keeps
    everything; only what is loaded is cut.

    >>> memory = ConversationBufferWindowMemory(k=1)
    >>> memory.save_context({"input": "a"}, {"output": "b"})
    >>> memory.save_context({"input": "c"}, {"output": "d"})
    >>> memory.buffer
    'Human: c\\nAI: d'
    """

    k: int = 5

    def _check(self) -> None:
        super()._check()
        if isinstance(self.k, bool) or not isinstance(self.k, int):
            raise ValidationError(f"k must be an int (exchanges kept), got {self.k!r}")

    def _kept(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        return messages[-self.k * 2:] if self.k > 0 else []


class SimpleMemory(BaseMemory):
    """Fixed ``memories`` (a dict) given to every call; never changes."""

    memories: dict = {}

    @property
    def memory_variables(self) -> list[str]:
        return list(self.memories)

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return dict(self.memories)

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Nothing to save."""

    def clear(self) -> None:
        """Nothing to clear."""


class ReadOnlySharedMemory(BaseMemory):
    """Another chain's ``memory``, read but never written (for a tool or sub-chain)."""

    memory: BaseMemory

    @property
    def memory_variables(self) -> list[str]:
        return self.memory.memory_variables

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return self.memory.load_memory_variables(inputs)

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Read-only: nothing saved."""

    def clear(self) -> None:
        """Read-only: nothing cleared."""
