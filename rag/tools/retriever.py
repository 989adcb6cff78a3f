"""``create_retriever_tool``: a retriever offered to a model as a search tool."""

from __future__ import annotations

from functools import partial
from typing import Any, Optional

from rag.chains.formatting import DEFAULT_DOCUMENT_SEPARATOR, DocumentPrompt, document_prompt_of, format_documents
from rag.documents import Document
from rag.errors import ValidationError
from rag.runnables import Runnable, RunnableConfig
from rag.tools.base import ResponseFormat, Tool

__all__ = ["create_retriever_tool", "RETRIEVER_INPUT_SCHEMA"]

# LangChain's ``RetrieverInput`` as JSON Schema: one required string, ``query``.
RETRIEVER_INPUT_SCHEMA: dict[str, Any] = {
    "title": "RetrieverInput",
    "description": "Input to the retriever.",
    "type": "object",
    "properties": {"query": {"description": "query to look up in retriever", "type": "string"}},
    "required": ["query"],
}


def _respond(documents: list[Document], prompt: Any, separator: str, response_format: str) -> Any:
    text = format_documents(documents, prompt, separator)
    return (text, documents) if response_format == "content_and_artifact" else text


def _search(retriever: Runnable, prompt: Any, separator: str, response_format: str, query: str,
            config: Optional[RunnableConfig] = None) -> Any:
    return _respond(retriever.invoke(query, config), prompt, separator, response_format)


async def _asearch(retriever: Runnable, prompt: Any, separator: str, response_format: str, query: str,
                   config: Optional[RunnableConfig] = None) -> Any:
    return _respond(await retriever.ainvoke(query, config), prompt, separator, response_format)


def create_retriever_tool(
    retriever: Runnable,
    name: str,
    description: str,
    *,
    document_prompt: DocumentPrompt = None,
    document_separator: str = DEFAULT_DOCUMENT_SEPARATOR,
    response_format: ResponseFormat = "content",
) -> Tool:
    """A :class:`Tool` that searches ``retriever`` for its one argument, ``query``.

    Each found document is formatted with ``document_prompt`` (default
    ``"{page_content}"``; metadata keys are variables too, and one a document lacks raises
    ValueError naming it), joined with ``document_separator`` (default two newlines).
    ``response_format="content_and_artifact"`` makes the function return ``(text, documents)``:
    the text goes to the model, the Documents travel as the ToolMessage's ``artifact``.
    The retriever's run nests under the tool's run in traces.

    >>> from stores import InMemoryVectorStore
    >>> from rag.embeddings import HashingEmbeddings
    >>> store = InMemoryVectorStore.from_texts(["Cats purr.", "Dogs bark."], HashingEmbeddings(dim=64))
    >>> search = create_retriever_tool(store.as_retriever(search_kwargs={"k": 1}), "pets", "Search pet facts.")
    >>> search.invoke("cats purr")
    'Cats purr.'
    """
    if not isinstance(retriever, Runnable):
        raise ValidationError(f"create_retriever_tool needs a retriever (a Runnable), got {type(retriever).__name__}")
    if not isinstance(document_separator, str):
        raise ValidationError(f"document_separator must be a str, got {document_separator!r:.40}")
    prompt = document_prompt_of(document_prompt)
    settings = (retriever, prompt, document_separator, response_format)
    return Tool(name, partial(_search, *settings), description, coroutine=_asearch_bound(settings),
                args_schema=RETRIEVER_INPUT_SCHEMA, response_format=response_format)


def _asearch_bound(settings: tuple[Any, ...]) -> Any:
    # functools.partial of an async function is not recognised as a coroutine function by
    # inspect before Python 3.12's markers, so bind it in a real ``async def``.
    async def search(query: str, config: Optional[RunnableConfig] = None) -> Any:
        return await _asearch(*settings, query, config)

    return search
