"""Vector stores written for LangChain, on our base: detected when the class is defined.

A subclass of :class:`stores.base.VectorStore` normally implements the engine primitives
(``_write``, ``_search_documents`` ...). A store ported from LangChain implements LangChain's
methods instead: ``add_texts`` or ``add_documents``, ``similarity_search``, ``from_texts``,
optionally ``similarity_search_with_score``, ``similarity_search_by_vector``,
``similarity_search_with_score_by_vector``, ``delete``, ``get_by_ids`` and
``_select_relevance_score_fn``. :func:`adopt_langchain_methods` (called by
``VectorStore.__init_subclass__``) recognises such a class (it defines some of those and
leaves the primitives abstract) and gives it what LangChain's base class derives from them,
for every method it does not define itself:

- ``add_texts`` <-> ``add_documents`` (whichever it lacks calls the other), the async
  twins (its own async method if it has one, else the sync one in a worker thread),
  ``from_documents`` -> ``from_texts``, ``similarity_search_with_relevance_scores`` from
  ``similarity_search_with_score`` and ``_select_relevance_score_fn`` (with LangChain's
  ``_cosine_relevance_score_fn`` and friends), ``as_retriever``, ``search``;
- beyond LangChain's base: ``similarity_search`` from ``similarity_search_with_score``,
  search by text from search by vector, and MMR when it can search by vector (candidates'
  vectors from its ``get_vectors_by_ids`` if it has one, else by embedding their texts).

What cannot be derived raises NotImplementedError naming the method to implement, as in
LangChain (``delete``, ``get_by_ids``, ``similarity_search_with_score``, relevance scores
without ``_select_relevance_score_fn``). Differences from LangChain's base: relevance
scores are clipped to [0, 1] (LangChain warns and returns them as they are); ``len()``
raises TypeError naming the class (such a store has no count primitive). The engine
primitives become stubs that raise NotImplementedError, so our own methods built on them
(``add_vectors``, ``get_vectors_by_ids``, batched search) say what is missing.
"""

from __future__ import annotations

import math
from itertools import cycle
from typing import Any, Callable, Optional, Sequence

import numpy as np

from rag._threads import to_thread
from rag.documents import Document
from rag.embeddings.base import embed_query_text, embed_texts
from stores.mmr import maximal_marginal_relevance

__all__ = ["adopt_langchain_methods", "is_langchain_style"]

#: The engine primitives of :class:`stores.base.VectorStore`.
ENGINE_PRIMITIVES = ("_write", "_delete_ids", "_documents_by_ids", "_vectors_by_ids", "_search_documents",
                     "_count", "_relevance")
#: Defining any of these (and no primitives) marks a store written for LangChain.
LANGCHAIN_METHODS = ("add_texts", "add_documents", "similarity_search", "similarity_search_with_score",
                     "similarity_search_by_vector", "similarity_search_with_score_by_vector")


_MARK = "__rag_langchain_derived__"  # set on what adoption installs, to tell it from the user's


def _installed(value: Any) -> bool:
    return getattr(getattr(value, "__func__", value), _MARK, False)


def _defines(cls: type, name: str, base: type) -> bool:
    """True when ``cls`` or an ancestor below ``base`` defines ``name`` itself (not by adoption)."""
    return any(name in vars(klass) and not _installed(vars(klass)[name]) for klass in cls.__mro__
               if klass is not base and isinstance(klass, type) and issubclass(klass, base))


def _primitive_missing(cls: type, name: str) -> bool:
    value = getattr(cls, name, None)
    return getattr(value, "__isabstractmethod__", False) or _installed(value)


def is_langchain_style(cls: type, base: type) -> bool:
    """A store implementing LangChain's methods rather than the engine primitives."""
    return (any(_primitive_missing(cls, name) for name in ENGINE_PRIMITIVES)
            and any(_defines(cls, name, base) for name in LANGCHAIN_METHODS))


def adopt_langchain_methods(cls: type, base: type) -> None:
    """Give a LangChain-style subclass of ``base`` LangChain's derived methods (see module)."""
    if not is_langchain_style(cls, base):
        return
    for name in ENGINE_PRIMITIVES:
        if _primitive_missing(cls, name):
            setattr(cls, name, _missing_primitive(name))
    for name, method in _DERIVED.items():
        if not _defines(cls, name, base):
            setattr(cls, name, method)
    cls.implements_langchain_api = True


# ---------------------------------------------------------------------- helpers


def _missing_primitive(name: str) -> Callable[..., Any]:
    def primitive(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"{type(self).__name__} implements LangChain's VectorStore methods, not the engine primitive "
            f"{name}(); this call needs it (or the LangChain method that does the same)"
        )

    primitive.__name__ = name
    setattr(primitive, _MARK, True)
    return primitive


def _own(self: Any, name: str) -> bool:
    """Whether the store's class defines ``name`` below our base (set at adoption)."""
    from stores.base import VectorStore

    return _defines(type(self), name, VectorStore)


async def _in_thread(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return await to_thread(function, *args, **kwargs)


def _require_embeddings(self: Any, method: str) -> Any:
    embeddings = self.embeddings
    if embeddings is None:
        raise NotImplementedError(f"{type(self).__name__}.{method} needs the store's embeddings, and it has none")
    return embeddings


# ---------------------------------------------------------------------- writing


def _documents(texts: Any, metadatas: Optional[Sequence[dict]], ids: Optional[Sequence[str]]) -> list[Document]:
    """LangChain's way from ``add_texts`` arguments to Documents (missing ids stay None)."""
    texts = texts if isinstance(texts, (list, tuple)) else list(texts)
    if metadatas and len(metadatas) != len(texts):
        raise ValueError(f"The number of metadatas must match the number of texts. Got {len(metadatas)} "
                         f"metadatas and {len(texts)} texts.")
    metadata_iter = iter(metadatas) if metadatas else cycle([{}])
    id_iter = iter(ids) if ids else cycle([None])
    return [Document(text, dict(metadata), doc_id) for text, metadata, doc_id in zip(texts, metadata_iter, id_iter)]


def _with_document_ids(documents: list[Document], kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` plus the documents' ids when any has one (LangChain: then ids are meant)."""
    if "ids" not in kwargs:
        ids = [document.id for document in documents]
        if any(ids):
            kwargs["ids"] = ids
    return kwargs


def add_texts(self: Any, texts: Any, metadatas: Optional[Sequence[dict]] = None, *,
              ids: Optional[Sequence[str]] = None, **kwargs: Any) -> list[str]:
    """LangChain's default: build Documents and call the store's ``add_documents``."""
    if not _own(self, "add_documents"):
        raise NotImplementedError(f"`add_texts` has not been implemented for {type(self).__name__}")
    documents = _documents(texts, metadatas, ids)
    return self.add_documents(documents, **({**kwargs, "ids": ids} if ids is not None else kwargs))


def add_documents(self: Any, documents: list[Document], **kwargs: Any) -> list[str]:
    """LangChain's default: the documents' texts, metadata and ids to ``add_texts``."""
    if not _own(self, "add_texts"):
        raise NotImplementedError(f"`add_documents` and `add_texts` have not been implemented for {type(self).__name__}")
    kwargs = _with_document_ids(documents, kwargs)
    return self.add_texts([d.page_content for d in documents], [d.metadata for d in documents], **kwargs)


async def aadd_texts(self: Any, texts: Any, metadatas: Optional[Sequence[dict]] = None, *,
                     ids: Optional[Sequence[str]] = None, **kwargs: Any) -> list[str]:
    if _own(self, "aadd_documents"):
        documents = _documents(texts, metadatas, ids)
        return await self.aadd_documents(documents, **({**kwargs, "ids": ids} if ids is not None else kwargs))
    return await _in_thread(self.add_texts, texts, metadatas, ids=ids, **kwargs)


async def aadd_documents(self: Any, documents: list[Document], **kwargs: Any) -> list[str]:
    if _own(self, "aadd_texts"):
        kwargs = _with_document_ids(documents, kwargs)
        return await self.aadd_texts([d.page_content for d in documents], [d.metadata for d in documents], **kwargs)
    return await _in_thread(self.add_documents, documents, **kwargs)


def delete(self: Any, ids: Optional[Sequence[str]] = None, **kwargs: Any) -> Optional[bool]:
    raise NotImplementedError(f"{type(self).__name__} does not implement delete()")


def get_by_ids(self: Any, ids: Sequence[str], /) -> list[Document]:
    raise NotImplementedError(f"{type(self).__name__} does not yet support get_by_ids.")


def _unavailable(name: str, instead: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} implements LangChain's VectorStore methods; "
                                  f"{name}() needs our engine primitives: use {instead}")

    method.__name__ = name
    return method


# ---------------------------------------------------------------------- searching


def similarity_search(self: Any, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
    if _own(self, "similarity_search_with_score") or _own(self, "similarity_search_with_score_by_vector"):
        return [document for document, _ in self.similarity_search_with_score(query, k, **kwargs)]
    if _own(self, "similarity_search_by_vector"):
        vector = embed_query_text(_require_embeddings(self, "similarity_search"), query)
        return self.similarity_search_by_vector(vector.tolist(), k, **kwargs)
    raise NotImplementedError(f"{type(self).__name__} does not implement similarity_search()")


def similarity_search_with_score(self: Any, query: str, k: int = 4, **kwargs: Any) -> list[tuple[Document, float]]:
    if _own(self, "similarity_search_with_score_by_vector"):
        vector = embed_query_text(_require_embeddings(self, "similarity_search_with_score"), query)
        return self.similarity_search_with_score_by_vector(vector.tolist(), k, **kwargs)
    raise NotImplementedError(f"{type(self).__name__} does not implement similarity_search_with_score()")


def similarity_search_by_vector(self: Any, embedding: Any, k: int = 4, **kwargs: Any) -> list[Document]:
    if _own(self, "similarity_search_with_score_by_vector"):
        return [document for document, _ in self.similarity_search_with_score_by_vector(embedding, k, **kwargs)]
    raise NotImplementedError(f"{type(self).__name__} does not implement similarity_search_by_vector()")


def similarity_search_with_score_by_vector(self: Any, embedding: Any, k: int = 4, **kwargs: Any) -> list[tuple[Document, float]]:
    raise NotImplementedError(f"{type(self).__name__} does not implement similarity_search_with_score_by_vector()")


def _select_relevance_score_fn(self: Any) -> Callable[[float], float]:
    raise NotImplementedError(
        f"{type(self).__name__} gives no relevance scores: implement _select_relevance_score_fn() "
        "(for example returning self._cosine_relevance_score_fn) or _similarity_search_with_relevance_scores()"
    )


def _similarity_search_with_relevance_scores(self: Any, query: str, k: int = 4, **kwargs: Any) -> list[tuple[Document, float]]:
    relevance = self._select_relevance_score_fn()
    return [(document, relevance(score)) for document, score in self.similarity_search_with_score(query, k, **kwargs)]


def similarity_search_with_relevance_scores(self: Any, query: str, k: int = 4, **kwargs: Any) -> list[tuple[Document, float]]:
    """LangChain's: ``score_threshold`` (optional, in [0, 1]) drops weaker results; scores
    are clipped to [0, 1] (LangChain warns about values outside it and keeps them)."""
    threshold = kwargs.pop("score_threshold", None)
    pairs = [(document, min(1.0, max(0.0, float(score))))
             for document, score in self._similarity_search_with_relevance_scores(query, k=k, **kwargs)]
    if threshold is not None:
        pairs = [(document, score) for document, score in pairs if score >= threshold]
    return pairs


def _euclidean_relevance_score_fn(distance: float) -> float:
    """LangChain's: Euclidean distance of unit vectors (0 to sqrt 2) to relevance."""
    return 1.0 - distance / math.sqrt(2)


def _cosine_relevance_score_fn(distance: float) -> float:
    """LangChain's: cosine distance to relevance."""
    return 1.0 - distance


def _max_inner_product_relevance_score_fn(distance: float) -> float:
    """LangChain's formula, kept as it is for stores that select it."""
    return 1.0 - distance if distance > 0 else -1.0 * distance


# ---------------------------------------------------------------------- MMR


def _mmr_pairs(self: Any, embedding: Any, k: int, fetch_k: int, lambda_mult: float,
               kwargs: dict[str, Any]) -> list[tuple[Document, float]]:
    if _own(self, "similarity_search_with_score_by_vector"):
        candidates = self.similarity_search_with_score_by_vector(embedding, max(fetch_k, k), **kwargs)
    elif _own(self, "similarity_search_by_vector"):
        candidates = [(document, float("nan")) for document in
                      self.similarity_search_by_vector(embedding, max(fetch_k, k), **kwargs)]
    else:
        raise NotImplementedError(
            f"{type(self).__name__} cannot run MMR: it searches by text only; implement "
            "similarity_search_with_score_by_vector() or max_marginal_relevance_search()")
    if not candidates:
        return []
    documents = [document for document, _ in candidates]
    if _own(self, "get_vectors_by_ids") and all(d.id for d in documents):
        vectors = np.asarray(self.get_vectors_by_ids([d.id for d in documents]), dtype=np.float32)
    else:  # the store does not hand out vectors: embed the candidates' texts again
        vectors = embed_texts(_require_embeddings(self, "max_marginal_relevance_search"),
                              [d.page_content for d in documents])
    order = maximal_marginal_relevance(np.asarray(embedding, dtype=np.float32), vectors, lambda_mult, k)
    return [candidates[i] for i in order]


def max_marginal_relevance_search_with_score_by_vector(self: Any, embedding: Any, *, k: int = 4, fetch_k: int = 20,
                                                       lambda_mult: float = 0.5, **kwargs: Any) -> list[tuple[Document, float]]:
    return _mmr_pairs(self, embedding, k, fetch_k, lambda_mult, kwargs)


def max_marginal_relevance_search_by_vector(self: Any, embedding: Any, k: int = 4, fetch_k: int = 20,
                                            lambda_mult: float = 0.5, **kwargs: Any) -> list[Document]:
    return [document for document, _ in _mmr_pairs(self, embedding, k, fetch_k, lambda_mult, kwargs)]


def max_marginal_relevance_search(self: Any, query: str, k: int = 4, fetch_k: int = 20,
                                  lambda_mult: float = 0.5, **kwargs: Any) -> list[Document]:
    vector = embed_query_text(_require_embeddings(self, "max_marginal_relevance_search"), query)
    return self.max_marginal_relevance_search_by_vector(vector.tolist(), k, fetch_k, lambda_mult, **kwargs)


# ---------------------------------------------------------------------- construction


def _from_documents(cls: Any, documents: list[Document], embedding: Any, **kwargs: Any) -> Any:
    """LangChain's default: texts, metadata and (if any) ids to ``from_texts``."""
    return cls.from_texts([d.page_content for d in documents], embedding,
                          metadatas=[d.metadata for d in documents], **_with_document_ids(documents, kwargs))


async def _afrom_texts(cls: Any, texts: list[str], embedding: Any, metadatas: Optional[list[dict]] = None,
                       **kwargs: Any) -> Any:
    return await _in_thread(cls.from_texts, texts, embedding, metadatas=metadatas, **kwargs)


async def _afrom_documents(cls: Any, documents: list[Document], embedding: Any, **kwargs: Any) -> Any:
    return await cls.afrom_texts([d.page_content for d in documents], embedding,
                                 metadatas=[d.metadata for d in documents], **_with_document_ids(documents, kwargs))


def _length(self: Any) -> int:
    raise TypeError(f"{type(self).__name__} implements LangChain's VectorStore methods and cannot count its documents")


def _async_of(name: str) -> Callable[..., Any]:
    """LangChain's default async method: the sync one in a worker thread."""
    async def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return await _in_thread(getattr(self, name), *args, **kwargs)

    method.__name__ = "a" + name
    return method


_DERIVED: dict[str, Any] = {
    "add_texts": add_texts,
    "add_documents": add_documents,
    "aadd_texts": aadd_texts,
    "aadd_documents": aadd_documents,
    "delete": delete,
    "get_by_ids": get_by_ids,
    "add_embeddings": _unavailable("add_embeddings", "add_texts"),
    "add_vectors": _unavailable("add_vectors", "add_documents"),
    "get_vectors_by_ids": _unavailable("get_vectors_by_ids", "get_by_ids"),
    "similarity_search_with_score_by_vectors": _unavailable(
        "similarity_search_with_score_by_vectors", "similarity_search_with_score_by_vector per query"),
    "similarity_search": similarity_search,
    "similarity_search_with_score": similarity_search_with_score,
    "similarity_search_by_vector": similarity_search_by_vector,
    "similarity_search_with_score_by_vector": similarity_search_with_score_by_vector,
    "similarity_search_with_relevance_scores": similarity_search_with_relevance_scores,
    "_similarity_search_with_relevance_scores": _similarity_search_with_relevance_scores,
    "_select_relevance_score_fn": _select_relevance_score_fn,
    "_euclidean_relevance_score_fn": staticmethod(_euclidean_relevance_score_fn),
    "_cosine_relevance_score_fn": staticmethod(_cosine_relevance_score_fn),
    "_max_inner_product_relevance_score_fn": staticmethod(_max_inner_product_relevance_score_fn),
    "max_marginal_relevance_search": max_marginal_relevance_search,
    "max_marginal_relevance_search_by_vector": max_marginal_relevance_search_by_vector,
    "max_marginal_relevance_search_with_score_by_vector": max_marginal_relevance_search_with_score_by_vector,
    "from_documents": classmethod(_from_documents),
    "afrom_texts": classmethod(_afrom_texts),
    "afrom_documents": classmethod(_afrom_documents),
    "__len__": _length,
    "__bool__": lambda self: True,
}
for _name in ("delete", "get_by_ids", "similarity_search", "similarity_search_with_score", "similarity_search_by_vector",
              "similarity_search_with_relevance_scores", "max_marginal_relevance_search",
              "max_marginal_relevance_search_by_vector", "max_marginal_relevance_search_with_score_by_vector"):
    _DERIVED["a" + _name] = _async_of(_name)
for _value in _DERIVED.values():
    setattr(getattr(_value, "__func__", _value), _MARK, True)
# Our base's properties read these; a LangChain store's __init__ does not call ours.
_DERIVED.update({"_embedding": None, "_dimension": None})
