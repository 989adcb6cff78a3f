"""Chains that answer from documents: stuff them into a prompt for a model, retrieve then
answer, or answer offline by quoting the documents.

>>> from rag.documents import Document
>>> from rag.runnables import RunnableLambda
>>> chain = create_retrieval_chain(RunnableLambda(lambda d: [Document("Paris is the capital of France.")]),
...                                ExtractiveAnswerer())
>>> chain.invoke({"input": "What is the capital of France?"})["answer"]
'Paris is the capital of France. [1]'
"""

from rag.chains.extractive import NO_ANSWER, ExtractiveAnswerer, Passage, split_sentences
from rag.chains.history_aware import CONTEXTUALIZE_PROMPT, create_history_aware_retriever
from rag.chains.formatting import DEFAULT_DOCUMENT_PROMPT, DEFAULT_DOCUMENT_SEPARATOR, format_document, format_documents
from rag.chains.retrieval import create_retrieval_chain
from rag.chains.stuff import create_stuff_documents_chain
from rag.chains.weights import AnswerWeights

__all__ = [
    "create_stuff_documents_chain",
    "create_retrieval_chain",
    "create_history_aware_retriever",
    "CONTEXTUALIZE_PROMPT",
    "ExtractiveAnswerer",
    "AnswerWeights",
    "Passage",
    "NO_ANSWER",
    "split_sentences",
    "format_document",
    "format_documents",
    "DEFAULT_DOCUMENT_PROMPT",
    "DEFAULT_DOCUMENT_SEPARATOR",
]
