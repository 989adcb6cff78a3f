"""``create_retriever_tool``: a retriever offered to a model as a search tool."""

from __future__ import annotations

from typing import Any, Optional, Union

from rag.chains.formatting import DEFAULT_DOCUMENT_SEPARATOR, DocumentPrompt, document_prompt_of, format_documents
from rag.documents import Document
from rag.errors import ValidationError
from rag.runnables import Runnable, RunnableConfig
from rag.tools.base import ResponseFormat, Tool

__all__ = ["create_retriever_tool", "RETRIEVER_INPUT_SCHEMA", "Callbacks", "RetrieverToolOutput"]

# LangChain's ``RetrieverInput`` as JSON Schema: one required string, ``query``.
RETRIEVER_INPUT_SCHEMA: dict[str, Any] = {
    "title": "RetrieverInput",
    "description": "Input to the retriever.",
    "type": "object",
    "properties": {"query": {"description": "query to look up in retriever", "type": "string"}},
    "required": ["query"],
}


#: What LangChain's retriever tool function takes as ``callbacks``: handlers (a list, one
#: handler, or a run manager's ``get_child()``), or None.
Callbacks = Optional[Any]
#: What it returns: the formatted text, or ``(text, documents)`` for "content_and_artifact".
RetrieverToolOutput = Union[str, tuple[str, list[Document]]]


def _respond(documents: list[Document], prompt: Any, separator: str, response_format: str) -> RetrieverToolOutput:
    text = format_documents(documents, prompt, separator)
    return (text, documents) if response_format == "content_and_artifact" else text


def _run_config(callbacks: Callbacks, config: Optional[RunnableConfig]) -> Optional[RunnableConfig]:
    # The tool passes its run's config (so the retriever nests under it); a direct call
    # may pass LangChain's ``callbacks`` instead.
    if config is not None:
        return config
    return {"callbacks": callbacks} if callbacks is not None else None


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

    # Plain functions with resolvable annotations, as LangChain's (typing.get_type_hints
    # works on them; LangGraph's ToolNode calls it), not functools.partial objects.
    def func(query: str, callbacks: Callbacks = None, *, config: Optional[RunnableConfig] = None) -> RetrieverToolOutput:
        documents = retriever.invoke(query, _run_config(callbacks, config))
        return _respond(documents, prompt, document_separator, response_format)

    async def afunc(query: str, callbacks: Callbacks = None, *,
                    config: Optional[RunnableConfig] = None) -> RetrieverToolOutput:
        documents = await retriever.ainvoke(query, _run_config(callbacks, config))
        return _respond(documents, prompt, document_separator, response_format)

    return Tool(name, func, description, coroutine=afunc, args_schema=RETRIEVER_INPUT_SCHEMA,
                response_format=response_format)
