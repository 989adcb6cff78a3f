"""Retrievers: Runnables that turn a query string into a list of Documents."""

from __future__ import annotations

import asyncio
import inspect
from abc import abstractmethod
from typing import Any, ClassVar, Optional, Protocol, runtime_checkable

from rag import _callbacks
from rag._fields import assign_fields
from rag._lazy import lazy_exports
from rag.callbacks.manager import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from rag.documents import Document
from rag.errors import ValidationError
from rag.runnables import Runnable, RunnableConfig
from rag.search_types import VECTOR_STORE_SEARCH_TYPES, asearch_store, check_search_kwargs, search_store

__all__ = ["BaseRetriever", "VectorStoreRetriever", "SearchableStore", "BM25Retriever", "EnsembleRetriever"]

# BM25Retriever and EnsembleRetriever live in their own modules, which import BaseRetriever
# from here; resolving them on first access (PEP 562) avoids the import cycle.
__getattr__, __dir__ = lazy_exports(__name__, {"rag.bm25": ["BM25Retriever"], "rag.ensemble": ["EnsembleRetriever"]})


class BaseRetriever(Runnable[str, list[Document]]):
    """A Runnable from a query string to Documents.

    Subclasses implement :meth:`_get_relevant_documents` (and optionally
    :meth:`_aget_relevant_documents`); ``invoke``, ``ainvoke``, ``batch`` and the callbacks
    (``on_retriever_start`` / ``_end`` / ``_error`` on each handler in
    ``config["callbacks"]``) come from here. Either signature works:

    - LangChain's, ``_get_relevant_documents(self, query, *, run_manager)``: the retriever's
      run comes as a :class:`~rag.callbacks.CallbackManagerForRetrieverRun` (async: an
      :class:`~rag.callbacks.AsyncCallbackManagerForRetrieverRun`); pass
      ``run_manager.get_child()`` as ``config={"callbacks": ...}`` to nest what it calls.
    - ``_get_relevant_documents(self, query, **kwargs)``: no run manager.

    Keywords given to ``invoke`` reach ``_get_relevant_documents`` when its signature takes
    any besides ``run_manager``; otherwise they raise ValidationError (LangChain drops them).
    As LangChain's pydantic retrievers, a subclass without its own ``__init__`` is built
    from keywords for its annotated fields (see :mod:`rag._fields`).

    >>> class FirstWords(BaseRetriever):
    ...     documents: list
    ...     k: int = 1
    ...     def _get_relevant_documents(self, query, *, run_manager):
    ...         return [d for d in self.documents if query in d.page_content][: self.k]
    >>> FirstWords(documents=[Document("a cat"), Document("a dog")]).invoke("dog")[0].page_content
    'a dog'
    """

    tags: Optional[list[str]] = None
    metadata: Optional[dict[str, Any]] = None
    # How _get_relevant_documents / _aget_relevant_documents are called (set per subclass).
    _sync_style: ClassVar[tuple[bool, bool]] = (False, True)
    _async_style: ClassVar[tuple[bool, bool]] = (False, True)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._sync_style = _call_style(cls._get_relevant_documents)
        cls._async_style = _call_style(cls._aget_relevant_documents)

    def __init__(self, **fields: Any) -> None:
        assign_fields(self, fields, BaseRetriever)

    @abstractmethod
    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        """The documents relevant to ``query``."""

    async def _aget_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        """Async :meth:`_get_relevant_documents`; a worker thread unless overridden."""
        manager = kwargs.pop("run_manager", None)
        if manager is not None and self._sync_style[0]:
            kwargs["run_manager"] = manager.get_sync() if hasattr(manager, "get_sync") else manager
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

    def _arguments(self, style: tuple[bool, bool], manager: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
        takes_manager, takes_keywords = style
        if kwargs and not takes_keywords:
            raise ValidationError(
                f"{type(self).__name__}._get_relevant_documents takes no keyword arguments besides "
                f"run_manager; invoke got {sorted(kwargs)}"
            )
        return {**kwargs, "run_manager": manager} if takes_manager else kwargs

    def _run_metadata(self, config: Optional[RunnableConfig]) -> dict[str, Any]:
        return {**(self.metadata or {}), **((config or {}).get("metadata") or {})}

    def _call(self, query: str, manager: CallbackManagerForRetrieverRun, kwargs: dict[str, Any]) -> list[Document]:
        return self._get_relevant_documents(query, **self._arguments(self._sync_style, manager, kwargs))

    def invoke(self, input: str, config: Optional[RunnableConfig] = None, **kwargs: Any) -> list[Document]:
        query = self._check_query(input)
        run = _callbacks.start_run(config, "retriever", self.get_name(), query, tags=self.tags, metadata=self.metadata)
        try:
            documents = self._call(query, CallbackManagerForRetrieverRun(run, self._run_metadata(config)), kwargs)
        except Exception as exc:
            run.error(exc)
            raise
        run.end(documents)
        return documents

    async def ainvoke(self, input: str, config: Optional[RunnableConfig] = None, **kwargs: Any) -> list[Document]:
        query = self._check_query(input)
        run = await _callbacks.astart_run(config, "retriever", self.get_name(), query, tags=self.tags,
                                          metadata=self.metadata)
        metadata = self._run_metadata(config)
        try:
            if type(self)._aget_relevant_documents is BaseRetriever._aget_relevant_documents:
                # Only the sync body exists: run it in a worker thread with a sync manager.
                documents = await asyncio.to_thread(
                    self._call, query, CallbackManagerForRetrieverRun(run, metadata), kwargs)
            else:
                arguments = self._arguments(self._async_style, AsyncCallbackManagerForRetrieverRun(run, metadata), kwargs)
                documents = await self._aget_relevant_documents(query, **arguments)
        except Exception as exc:
            await run.aerror(exc)
            raise
        await run.aend(documents)
        return documents


def _call_style(method: Any) -> tuple[bool, bool]:
    """(takes ``run_manager``, takes other keywords) for a ``_get_relevant_documents``."""
    rest = list(inspect.signature(method).parameters.values())[2:]  # after self and the query
    takes_manager = any(p.name == "run_manager" for p in rest)
    takes_keywords = any(p.name != "run_manager" and p.kind is not p.VAR_POSITIONAL for p in rest)
    return takes_manager, takes_keywords


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
