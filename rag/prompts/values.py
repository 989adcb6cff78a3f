"""Prompt values: what a prompt template produces and a model accepts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rag.messages import BaseMessage, HumanMessage, get_buffer_string

__all__ = ["PromptValue", "StringPromptValue", "ChatPromptValue"]


class PromptValue:
    """A formatted prompt, readable as a string (for text models) or as messages (for chat
    models)."""

    type: ClassVar[str] = "PromptValue"

    def to_string(self) -> str:
        raise NotImplementedError

    def to_messages(self) -> list[BaseMessage]:
        raise NotImplementedError


@dataclass
class StringPromptValue(PromptValue):
    """A formatted string prompt; as messages it is one :class:`HumanMessage`.

    >>> StringPromptValue("hi").to_messages()
    [HumanMessage(content='hi')]
    """

    text: str
    type: ClassVar[str] = "StringPromptValue"

    def to_string(self) -> str:
        return self.text

    def to_messages(self) -> list[BaseMessage]:
        return [HumanMessage(self.text)]


@dataclass
class ChatPromptValue(PromptValue):
    """Formatted messages; as a string they read as a transcript (``"Human: hi"``)."""

    messages: list[BaseMessage]
    type: ClassVar[str] = "ChatPromptValue"

    def to_string(self) -> str:
        return get_buffer_string(self.messages)

    def to_messages(self) -> list[BaseMessage]:
        return list(self.messages)
