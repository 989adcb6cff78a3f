"""``ConversationChain``: a chat with memory, the classic way."""

from __future__ import annotations

from typing import Any

from rag.classic.chains.llm import LLMChain
from rag.classic.memory.buffer import ConversationBufferMemory
from rag.errors import ValidationError
from rag.prompts import PromptTemplate

__all__ = ["ConversationChain", "CONVERSATION_PROMPT"]

CONVERSATION_PROMPT = PromptTemplate.from_template(
    "The following is a friendly conversation between a human and an AI. The AI answers from what it "
    "knows and says so when it does not know.\n\nCurrent conversation:\n{history}\nHuman: {input}\nAI:"
)


class ConversationChain(LLMChain):
    """An :class:`LLMChain` whose prompt (default :data:`CONVERSATION_PROMPT`, variables
    ``history`` and ``input``) gets the conversation from ``memory`` (default a new
    :class:`~rag.classic.memory.ConversationBufferMemory`); input ``input_key`` (default
    "input"), output ``output_key`` (default "response"). The prompt's variables must be
    the memory's variables plus the input key, checked when built.

    >>> from rag.models import FakeListChatModel
    >>> chat = ConversationChain(llm=FakeListChatModel(responses=["Hi Bob!", "You are Bob."]))
    >>> chat.predict(input="I'm Bob.")
    'Hi Bob!'
    >>> chat.memory.buffer
    "Human: I'm Bob.\\nAI: Hi Bob!"
    """

    prompt: Any = CONVERSATION_PROMPT
    input_key: str = "input"
    output_key: str = "response"

    def _check(self) -> None:
        if self.memory is None:
            self.memory = ConversationBufferMemory()
        super()._check()
        memory_keys = list(self.memory.memory_variables)
        if self.input_key in memory_keys:
            raise ValidationError(f"The input key {self.input_key} was also found in the memory keys ({memory_keys}) "
                                  "- please provide keys that don't overlap.")
        variables = list(self.prompt.input_variables)
        if set(variables) != {*memory_keys, self.input_key}:
            raise ValidationError(f"Got unexpected prompt input variables. The prompt expects {variables}, but got "
                                  f"{memory_keys} as inputs from memory, and {self.input_key} as the normal input key.")

    @property
    def input_keys(self) -> list[str]:
        return [self.input_key]

    @property
    def _chain_type(self) -> str:
        return "conversation"
