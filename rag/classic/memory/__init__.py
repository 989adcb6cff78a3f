"""Classic memories (``langchain_classic.memory``), each kept in one of the project's
chat message histories (in memory, a file, SQLite) so it persists with them.

>>> from rag.memory import InMemoryChatMessageHistory
>>> memory = ConversationBufferWindowMemory(k=1, chat_memory=InMemoryChatMessageHistory())
>>> memory.save_context({"input": "hi"}, {"output": "hello"})
>>> memory.load_memory_variables({})
{'history': 'Human: hi\\nAI: hello'}
"""

from rag.classic.base_memory import BaseMemory
from rag.classic.memory.buffer import (
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ReadOnlySharedMemory,
    SimpleMemory,
)
from rag.classic.memory.chat_memory import BaseChatMemory, get_prompt_input_key
from rag.classic.memory.summary import (
    SUMMARY_PROMPT,
    ConversationSummaryBufferMemory,
    ConversationSummaryMemory,
    ConversationTokenBufferMemory,
)
from rag.classic.memory.vectorstore import VectorStoreRetrieverMemory

__all__ = [
    "BaseMemory",
    "BaseChatMemory",
    "ConversationBufferMemory",
    "ConversationBufferWindowMemory",
    "ConversationSummaryMemory",
    "ConversationSummaryBufferMemory",
    "ConversationTokenBufferMemory",
    "VectorStoreRetrieverMemory",
    "SimpleMemory",
    "ReadOnlySharedMemory",
    "SUMMARY_PROMPT",
    "get_prompt_input_key",
]
