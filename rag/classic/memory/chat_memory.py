"""``BaseChatMemory``: a classic memory kept in a chat message history.

The history is any of the project's (:class:`~rag.memory.InMemoryChatMessageHistory`
by default, :class:`~rag.memory.FileChatMessageHistory`,
:class:`~rag.memory.SQLChatMessageHistory`) or anything with ``messages``,
``add_messages`` and ``clear``: a classic memory persists where the history does.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional, Sequence

from rag.classic.base_memory import BaseMemory
from rag.errors import ValidationError
from rag.memory import InMemoryChatMessageHistory
from rag.messages import AIMessage, BaseMessage, HumanMessage

__all__ = ["BaseChatMemory", "get_prompt_input_key", "replace_messages"]


def get_prompt_input_key(inputs: dict[str, Any], memory_variables: list[str]) -> str:
    """The one input key that is neither a memory variable nor ``stop``."""
    keys = [key for key in inputs if key not in memory_variables and key != "stop"]
    if len(keys) != 1:
        raise ValidationError(f"One input key expected got {keys}; set the memory's input_key")
    return keys[0]


def replace_messages(history: Any, messages: Sequence[BaseMessage]) -> None:
    """Make ``history`` hold exactly ``messages``.

    LangChain prunes by popping from ``history.messages``, which changes only an in-memory
    history (a file or SQLite history returns a copy): the pruning was lost there. Here the
    history is rewritten, so a pruned conversation stays pruned wherever it is stored.
    """
    messages = list(messages)
    if isinstance(history, InMemoryChatMessageHistory):
        history.messages = messages
        return
    history.clear()
    if messages:
        history.add_messages(messages)


class BaseChatMemory(BaseMemory):
    """A memory over ``chat_memory`` (a chat message history; default a new in-memory one).

    ``input_key`` / ``output_key`` (default None: the one input that is not a memory
    variable; the one output, or "output" among several) choose what :meth:`save_context`
    stores as the human and AI messages. ``return_messages`` (default False): load the
    conversation as messages rather than as one transcript string.
    """

    chat_memory: Any = None
    output_key: Optional[str] = None
    input_key: Optional[str] = None
    return_messages: bool = False

    def _check(self) -> None:
        if self.chat_memory is None:
            self.chat_memory = InMemoryChatMessageHistory()
        for needed in ("messages", "add_messages", "clear"):
            if not hasattr(self.chat_memory, needed):
                raise ValidationError(
                    f"chat_memory must be a chat message history (with messages, add_messages and clear), "
                    f"got {type(self.chat_memory).__name__}"
                )

    def _get_input_output(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> tuple[Any, Any]:
        input_key = self.input_key or get_prompt_input_key(inputs, self.memory_variables)
        if self.output_key is not None:
            output_key = self.output_key
        elif len(outputs) == 1:
            output_key = next(iter(outputs))
        elif "output" in outputs:
            output_key = "output"
            warnings.warn(f"'{type(self).__name__}' got multiple output keys: {outputs.keys()}. The default "
                          "'output' key is being used. If this is not desired, please manually set 'output_key'.",
                          stacklevel=3)
        else:
            raise ValidationError(f"Got multiple output keys: {outputs.keys()}, cannot determine which to store "
                                  "in memory. Please set the 'output_key' explicitly.")
        return inputs[input_key], outputs[output_key]

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Append the call as a human message and an AI message (one write)."""
        human, ai = self._get_input_output(inputs, outputs)
        self.chat_memory.add_messages([HumanMessage(content=human), AIMessage(content=ai)])

    def clear(self) -> None:
        self.chat_memory.clear()
