"""Prompt templates: strings and chat messages with f-string variables.

>>> from rag.prompts import ChatPromptTemplate, MessagesPlaceholder
>>> prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"), ("human", "{q}")])
>>> [m.type for m in prompt.format_messages(history=[("ai", "hello")], q="hi")]
['ai', 'human']
"""

from rag.prompts.base import BasePromptTemplate
from rag.prompts.chat import ChatPromptTemplate, MessagesPlaceholder, MessageTemplate
from rag.prompts.prompt import PromptTemplate
from rag.prompts.values import ChatPromptValue, PromptValue, StringPromptValue

__all__ = [
    "BasePromptTemplate",
    "PromptTemplate",
    "ChatPromptTemplate",
    "MessagesPlaceholder",
    "MessageTemplate",
    "PromptValue",
    "StringPromptValue",
    "ChatPromptValue",
]
