"""``create_retrieval_chain``: retrieve for the question, then answer from what was found."""

from __future__ import annotations

from typing import Any

from rag.errors import ValidationError
from rag.retrievers import BaseRetriever
from rag.runnables import Runnable, RunnablePassthrough, RunnablePick, coerce_to_runnable

__all__ = ["create_retrieval_chain"]


def create_retrieval_chain(retriever: Any, combine_docs_chain: Any) -> Runnable:
    """A chain from ``{"input": question, ...}`` to the same dict plus ``context`` (the
    retrieved Documents) and ``answer`` (what ``combine_docs_chain`` made of them).

    ``retriever``: a :class:`~rag.retrievers.BaseRetriever` (given ``input``) or any
    Runnable taking the whole dict and returning Documents (e.g. a history-aware
    retriever). ``combine_docs_chain``: e.g. :func:`create_stuff_documents_chain` or an
    :class:`ExtractiveAnswerer`; it receives the dict with ``context`` added. Other input
    keys (``chat_history`` ...) pass through. ``stream`` yields the input keys, then
    ``{"context": [...]}``, then ``{"answer": chunk}`` as the answer is produced.

    >>> from rag.documents import Document
    >>> from rag.runnables import RunnableLambda
    >>> chain = create_retrieval_chain(RunnableLambda(lambda d: [Document("Paris.")]),
    ...                                RunnableLambda(lambda d: d["context"][0].page_content))
    >>> chain.invoke({"input": "Capital of France?"})["answer"]
    'Paris.'
    """
    if isinstance(retriever, BaseRetriever):
        retrieval_docs: Runnable = RunnablePick("input") | retriever
    elif isinstance(retriever, Runnable) or callable(retriever):
        retrieval_docs = coerce_to_runnable(retriever)
    else:
        raise ValidationError(f"retriever must be a retriever or a Runnable, got {type(retriever).__name__}")
    if not (isinstance(combine_docs_chain, Runnable) or callable(combine_docs_chain)):
        raise ValidationError(f"combine_docs_chain must be a Runnable, got {type(combine_docs_chain).__name__}")
    return (
        RunnablePassthrough.assign(context=retrieval_docs.with_config(run_name="retrieve_documents"))
        .assign(answer=combine_docs_chain)
        .with_config(run_name="retrieval_chain")
    )
