"""Classic chains (``langchain_classic.chains``): ``Chain`` with memory, ``LLMChain``,
``ConversationChain``, ``RetrievalQA``, ``ConversationalRetrievalChain``.

>>> from rag.models import FakeListChatModel
>>> chat = ConversationChain(llm=FakeListChatModel(responses=["Hello Ann."]))
>>> chat.invoke({"input": "I'm Ann."})["response"]
'Hello Ann.'
"""

from rag.classic._run_manager import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from rag.classic.chains.base import Chain
from rag.classic.chains.combine_documents import QA_PROMPT, StuffDocumentsChain, load_qa_chain
from rag.classic.chains.conversation import CONVERSATION_PROMPT, ConversationChain
from rag.classic.chains.llm import LLMChain
from rag.classic.chains.retrieval_qa import (
    CONDENSE_QUESTION_PROMPT,
    ConversationalRetrievalChain,
    RetrievalQA,
)

__all__ = [
    "Chain",
    "LLMChain",
    "ConversationChain",
    "StuffDocumentsChain",
    "load_qa_chain",
    "RetrievalQA",
    "ConversationalRetrievalChain",
    "CallbackManagerForChainRun",
    "AsyncCallbackManagerForChainRun",
    "QA_PROMPT",
    "CONVERSATION_PROMPT",
    "CONDENSE_QUESTION_PROMPT",
]
