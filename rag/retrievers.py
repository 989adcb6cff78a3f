"""Retrievers: Runnables that turn a query string into a list of Documents."""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from typing import Any, Optional, Protocol, runtime_checkable

from rag import _callbacks
from rag.documents import Document
from rag.errors import ValidationError
from rag.runnables import Runnable, RunnableConfig
from rag.search_types import VECTOR_STORE_SEARCH_TYPES, asearch_store, check_search_kwargs, search_store

__all__ = ["BaseRetriever", "VectorStoreRetriever", "SearchableStore", "BM25Retriever", "EnsembleRetriever"]

# BM25Retriever and EnsembleRetriever live in their own modules, which import BaseRetriever
# from here; resolving them on first access (PEP 562) avoids the import cycle.
_LAZY = {"BM25Retriever": "rag.bm25", "EnsembleRetriever": "rag.ensemble"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class BaseRetriever(Runnable[str, list[Document]]):
    """A Runnable from a query string to Documents. Subclasses implement
    :meth:`_get_relevant_documents`; ``invoke``, ``ainvoke``, ``batch`` and the callbacks
    (``on_retriever_start`` / ``_end`` / ``_error`` on each handler in
    ``config["callbacks"]``) come from here. ``kwargs`` given to ``invoke`` reach
    ``_get_relevant_documents``.
    """

    tags: Optional[list[str]] = None
    metadata: Optional[dict[str, Any]] = None

    @abstractmethod
    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        """The documents relevant to ``query``."""

    async def _aget_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        """Async :meth:`_get_relevant_documents`; a worker thread unless overridden."""
        return await asyncio.to_thread(self._get_relevant_documents, query, **kwargs)

    def _input_jsonschema(self) -> dict[str, Any]:
        return {"type": "string"}

    def _output_jsonschema(self) -> dict[str, Any]:
        from rag.runnables.schema import DOCUMENT_SCHEMA

        return {"type": "array", "items": DOCUMENT_SCHEMA}

    @staticmethod
    def _check_query(query: Any) -> str:
        if not isinstance(query, str):
            raise ValidationError(f"a retriever's input must be a query string, got {type(query).__name__}: {query!r:.60}")
        return query

    def invoke(self, input: str, config: Optional[RunnableConfig] = None, **kwargs: Any) -> list[Document]:
        query = self._check_query(input)
        run = _callbacks.start_run(config, "retriever", self.get_name(), query, tags=self.tags, metadata=self.metadata)
        try:
            documents = self._get_relevant_documents(query, **kwargs)
        except Exception as exc:
            run.error(exc)
            raise
        run.end(documents)
        return documents

    async def ainvoke(self, input: str, config: Optional[RunnableConfig] = None, **kwargs: Any) -> list[Document]:
        query = self._check_query(input)
        run = await _callbacks.astart_run(config, "retriever", self.get_name(), query, tags=self.tags,
                                          metadata=self.metadata)
        try:
            documents = await self._aget_relevant_documents(query, **kwargs)
        except Exception as exc:
            await run.aerror(exc)
            raise
        await run.aend(documents)
        return documents


@runtime_checkable
class SearchableStore(Protocol):
    """What :class:`VectorStoreRetriever` needs from a vector store."""

    def similarity_search(self, query: str, k: int = 4, filter: Any = None) -> list[Document]: ...

    def similarity_search_with_relevance_scores(self, query: str, k: int = 4, filter: Any = None) -> list[tuple[Document, float]]: ...

    def max_marginal_relevance_search(self, query: str, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, filter: Any = None) -> list[Document]: ...


class VectorStoreRetriever(BaseRetriever):
    """Retrieves from a vector store with one of three search types.

    ``search_type``: "similarity" (default), "similarity_score_threshold" (needs
    ``search_kwargs["score_threshold"]`` in [0, 1]; works on every store of ours, unlike
    LangChain's in-memory store) or "mmr". ``search_kwargs`` go to the store's search
    method (``k``, ``filter``, ``fetch_k``, ``score_threshold``, ``lambda_mult``, by search
    type); kwargs given to ``invoke`` override them for that call. Everything is validated
    here, so a bad search type or threshold fails at once with the valid choices.

    >>> from stores import InMemoryVectorStore
    >>> from rag.embeddings import HashingEmbeddings
    >>> store = InMemoryVectorStore.from_texts(["a cat", "a dog"], HashingEmbeddings(dim=64))
    >>> store.as_retriever(search_kwargs={"k": 1}).invoke("cat")[0].page_content
    'a cat'
    """

    def __init__(
        self,
        vectorstore: Any,
        search_type: str = "similarity",
        search_kwargs: Optional[dict[str, Any]] = None,
        *,
        tags: Optional[list[str]] = None,
        metadata: Optional[dict[str, Any]] = None,
    ) -> None:
        member = VECTOR_STORE_SEARCH_TYPES.check(search_type)
        if search_kwargs is not None and not isinstance(search_kwargs, dict):
            raise ValidationError(f"search_kwargs must be a dict, got {type(search_kwargs).__name__}")
        search_kwargs = dict(search_kwargs or {})
        check_search_kwargs(member, search_kwargs)
        if not isinstance(vectorstore, SearchableStore):
            raise ValidationError(f"vectorstore must be a vector store, got {type(vectorstore).__name__}")
        self.vectorstore = vectorstore
        self.search_type = member.value  # LangChain's name, even when given as "threshold"
        self.search_kwargs = search_kwargs
        self.tags = list(tags) if tags else [type(vectorstore).__name__]
        self.metadata = metadata

    def _kwargs(self, overrides: dict[str, Any]) -> dict[str, Any]:
        merged = {**self.search_kwargs, **overrides}
        if overrides:
            check_search_kwargs(VECTOR_STORE_SEARCH_TYPES.check(self.search_type), merged)
        return merged

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        return search_store(self.vectorstore, query, self.search_type, self._kwargs(kwargs))

    async def _aget_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        return await asearch_store(self.vectorstore, query, self.search_type, self._kwargs(kwargs))

    def get_name(self) -> str:
        return f"{type(self.vectorstore).__name__}Retriever"

    def __repr__(self) -> str:
        return f"VectorStoreRetriever(vectorstore={type(self.vectorstore).__name__}, search_type={self.search_type!r}, search_kwargs={self.search_kwargs!r})"
