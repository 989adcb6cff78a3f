"""``create_history_aware_retriever``: rewrite a follow-up question with the conversation
before retrieving (LangChain's, from ``langchain_classic.chains``)."""

from __future__ import annotations

from typing import Any

from rag.errors import ValidationError
from rag.parsers import StrOutputParser
from rag.runnables import Runnable, RunnableLambda, coerce_to_runnable

__all__ = ["create_history_aware_retriever", "CONTEXTUALIZE_PROMPT"]

#: A system prompt for the rewriting model, as LangChain's tutorials word it.
CONTEXTUALIZE_PROMPT = (
    "Given a chat history and the latest user question which might reference context in the "
    "chat history, formulate a standalone question which can be understood without the chat "
    "history. Do NOT answer the question, just reformulate it if needed and otherwise return it as is."
)


def create_history_aware_retriever(llm: Any, retriever: Any, prompt: Any) -> Runnable:
    """A Runnable from ``{"input": question, "chat_history": [messages]}`` to Documents.

    Without ``chat_history`` (missing or empty) the question goes to ``retriever`` as it is;
    with it, ``prompt | llm | StrOutputParser()`` first rewrites the question into a
    standalone search query, which is retrieved. ``prompt`` must take ``input`` (and
    usually a ``MessagesPlaceholder("chat_history")``). Pass the result as the retriever of
    :func:`create_retrieval_chain`.

    >>> from rag.documents import Document
    >>> from rag.models import FakeListChatModel
    >>> from rag.prompts import ChatPromptTemplate, MessagesPlaceholder
    >>> prompt = ChatPromptTemplate.from_messages([("system", CONTEXTUALIZE_PROMPT),
    ...     MessagesPlaceholder("chat_history"), ("human", "{input}")])
    >>> retriever = RunnableLambda(lambda query: [Document(query)])
    >>> chain = create_history_aware_retriever(FakeListChatModel(responses=["How do I drop an index?"]),
    ...                                        retriever, prompt)
    >>> chain.invoke({"input": "How do I create an index?"})[0].page_content
    'How do I create an index?'
    >>> chain.invoke({"input": "and undo it?", "chat_history": [("human", "How do I create an index?"),
    ...                                                         ("ai", "CREATE INDEX.")]})[0].page_content
    'How do I drop an index?'
    """
    variables = getattr(prompt, "input_variables", None)
    if variables is None:
        raise ValidationError(f"prompt must be a prompt template, got {type(prompt).__name__}")
    if "input" not in variables:
        raise ValidationError(f"Expected `input` to be a prompt variable, but got {variables}")
    if not (isinstance(llm, Runnable) or callable(llm)):
        raise ValidationError(f"llm must be a chat model or Runnable, got {type(llm).__name__}")
    if not (isinstance(retriever, Runnable) or callable(retriever)):
        raise ValidationError(f"retriever must be a retriever or Runnable, got {type(retriever).__name__}")
    retriever = coerce_to_runnable(retriever)
    direct = RunnableLambda(_question, name="input") | retriever
    rewritten = prompt | coerce_to_runnable(llm) | StrOutputParser() | retriever

    def route(value: dict[str, Any]) -> Runnable:
        if not isinstance(value, dict):
            raise ValidationError(f"a history-aware retriever takes a dict with 'input' (and 'chat_history'), "
                                  f"got {type(value).__name__} {value!r:.60}")
        return rewritten if value.get("chat_history") else direct

    return RunnableLambda(route, name="chat_retriever_chain")


def _question(value: dict[str, Any]) -> Any:
    if "input" not in value:
        raise ValidationError(f"a history-aware retriever needs the question under 'input', got keys {sorted(value)}")
    return value["input"]
