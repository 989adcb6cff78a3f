"""Search types: the one vocabulary of how a search ranks, and its validation, once.

LangChain's names (``"similarity"``, ``"similarity_score_threshold"``, ``"mmr"``) and the
index's (``"hybrid"``, ``"bm25"``, and ``"threshold"``, an alias of
``"similarity_score_threshold"``) are the members of one :class:`SearchType`. Each
component answers a subset of them, a :class:`SearchTypes` defined here:
:data:`VECTOR_STORE_SEARCH_TYPES` (a vector store and its retriever) and
:data:`INDEX_SEARCH_TYPES` (the index, its retriever and ``rag search --type``).

The keyword arguments each search type takes are listed once, in :data:`SEARCH_KWARGS`;
:func:`check_search_kwargs` checks their names and values, and :func:`search_store` /
:func:`asearch_store` run a vector-store search type through LangChain's method names.

>>> SearchType("threshold") is SearchType.SIMILARITY_SCORE_THRESHOLD
True
>>> VECTOR_STORE_SEARCH_TYPES.check("mmr")
<SearchType.MMR: 'mmr'>
>>> INDEX_SEARCH_TYPES.check("fuzzy")
Traceback (most recent call last):
...
rag.errors.ValidationError: search type 'fuzzy' is not one of hybrid, similarity, mmr, threshold, bm25
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any, Iterator, Mapping, Optional

import numpy as np

from rag._threads import to_thread
from rag.documents import Document
from rag.errors import ValidationError

__all__ = [
    "SearchType",
    "SearchTypes",
    "VECTOR_STORE_SEARCH_TYPES",
    "INDEX_SEARCH_TYPES",
    "SEARCH_KWARGS",
    "check_search_kwargs",
    "check_k",
    "check_fraction",
    "search_store",
    "asearch_store",
]


class SearchType(str, Enum):
    """How a search ranks. A ``str``, so ``SearchType.MMR == "mmr"``.

    ``similarity``: dense, by similarity; ``similarity_score_threshold`` (alias
    ``threshold``): dense, only results whose relevance (0 to 1) reaches a threshold;
    ``mmr``: dense, diversified by maximal marginal relevance; ``hybrid``: dense and BM25
    fused by reciprocal rank; ``bm25``: lexical only.
    """

    SIMILARITY = "similarity"
    SIMILARITY_SCORE_THRESHOLD = "similarity_score_threshold"
    MMR = "mmr"
    HYBRID = "hybrid"
    BM25 = "bm25"

    @classmethod
    def _missing_(cls, value: object) -> Optional["SearchType"]:
        # The index's short name; SearchType("threshold") returns the LangChain member.
        return cls.SIMILARITY_SCORE_THRESHOLD if value == "threshold" else None

    def __str__(self) -> str:
        # Python 3.12 formats a str-mixin Enum as "SearchType.MMR"; messages want "mmr".
        return self.value


@dataclass(frozen=True)
class SearchTypes:
    """The search types one component answers, by the names it shows, in that order.

    ``names``: the names listed in messages and offered as command-line choices; every
    :class:`SearchType` spelling of those members is accepted (so ``"threshold"`` and
    ``"similarity_score_threshold"`` both, whichever is shown). ``quoted``: how a refusal
    lists the choices: as Python strings (``'mmr'``), for the stores and retrievers that
    callers reach from Python, or as plain words, for the index, whose names users also
    type on the command line. Iterating gives ``names``, for ``argparse`` choices.
    """

    names: tuple[str, ...]
    quoted: bool = False
    members: frozenset[SearchType] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "members", frozenset(SearchType(name) for name in self.names))

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __contains__(self, value: object) -> bool:
        return _member(value) in self.members

    def check(self, value: Any) -> SearchType:
        """``value`` as a :class:`SearchType` of this subset; a ValidationError that names
        it and the choices otherwise."""
        member = _member(value)
        if member is None or member not in self.members:
            if self.quoted:
                choices = ", ".join(map(repr, self.names))
                raise ValidationError(f"search_type must be one of {choices}, got {value!r}")
            raise ValidationError(f"search type {value!r} is not one of {', '.join(self.names)}")
        return member

    def without(self, *names: str) -> "SearchTypes":
        """This subset less ``names`` (a component that answers fewer)."""
        dropped = {SearchType(name) for name in names}
        return SearchTypes(tuple(n for n in self.names if SearchType(n) not in dropped), self.quoted)


def _member(value: object) -> Optional[SearchType]:
    try:
        return SearchType(value)
    except (ValueError, TypeError):  # TypeError: an unhashable value
        return None


#: What a vector store's ``search`` and ``as_retriever`` answer: LangChain's three.
VECTOR_STORE_SEARCH_TYPES = SearchTypes(("similarity", "similarity_score_threshold", "mmr"), quoted=True)
#: What :meth:`rag.index.Index.search` answers (``similarity_score_threshold`` accepted too).
INDEX_SEARCH_TYPES = SearchTypes(("hybrid", "similarity", "mmr", "threshold", "bm25"))

#: The keyword arguments each search type takes. A vector store's retriever accepts
#: exactly these (LangChain silently ignores unknown ``search_kwargs``; a typo here fails
#: when the retriever is built); the index accepts those it sets per call.
SEARCH_KWARGS: Mapping[SearchType, frozenset[str]] = MappingProxyType({
    SearchType.SIMILARITY: frozenset({"k", "filter", "fetch_k"}),
    SearchType.SIMILARITY_SCORE_THRESHOLD: frozenset({"k", "filter", "fetch_k", "score_threshold"}),
    SearchType.MMR: frozenset({"k", "filter", "fetch_k", "lambda_mult"}),
    SearchType.HYBRID: frozenset({"k", "filter"}),
    SearchType.BM25: frozenset({"k", "filter"}),
})


def check_k(value: Any, name: str = "k") -> int:
    """``value`` as a positive int (numpy integers accepted, bools not), or a
    ValidationError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValidationError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def check_fraction(value: Any, name: str) -> float:
    """``value`` as a float in [0, 1] (ints accepted, bools not), or a ValidationError
    naming ``name``: relevance thresholds and ``lambda_mult``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not 0 <= value <= 1:
        raise ValidationError(f"{name} must be a number between 0 and 1, got {value!r}")
    return float(value)


def check_search_kwargs(search_type: SearchType, search_kwargs: Mapping[str, Any], *,
                        accepted: Optional[frozenset[str]] = None) -> None:
    """Refuse ``search_kwargs`` that ``search_type`` does not take, or bad values.

    ``accepted``: the names the caller sets per search (default all of
    :data:`SEARCH_KWARGS`); a threshold search needs ``score_threshold``.
    """
    allowed = SEARCH_KWARGS[search_type] if accepted is None else SEARCH_KWARGS[search_type] & accepted
    unknown = sorted(set(search_kwargs) - allowed)
    if unknown:
        raise ValidationError(
            f"search_kwargs {unknown} are not used by search_type={search_type.value!r}; it accepts {sorted(allowed)}"
        )
    for name in ("k", "fetch_k"):
        if name in search_kwargs:
            check_k(search_kwargs[name], f"search_kwargs[{name!r}]")
    if search_type is SearchType.SIMILARITY_SCORE_THRESHOLD:
        if "score_threshold" not in search_kwargs:
            raise ValidationError(
                f"search_type={search_type.value!r} needs search_kwargs['score_threshold'], a number between 0 and 1"
            )
    for name in ("score_threshold", "lambda_mult"):
        if name in search_kwargs:
            check_fraction(search_kwargs[name], f"search_kwargs[{name!r}]")


# A vector-store search type -> (LangChain's method, whether it returns (document, score)
# pairs); "a" + method is its async twin.
_STORE_METHODS: Mapping[SearchType, tuple[str, bool]] = MappingProxyType({
    SearchType.SIMILARITY: ("similarity_search", False),
    SearchType.SIMILARITY_SCORE_THRESHOLD: ("similarity_search_with_relevance_scores", True),
    SearchType.MMR: ("max_marginal_relevance_search", False),
})


def search_store(store: Any, query: str, search_type: Any, search_kwargs: Mapping[str, Any]) -> list[Document]:
    """Run ``search_type`` (checked) on ``store`` through LangChain's method for it."""
    name, scored = _STORE_METHODS[VECTOR_STORE_SEARCH_TYPES.check(search_type)]
    found = getattr(store, name)(query, **search_kwargs)
    return [document for document, _ in found] if scored else found


async def asearch_store(store: Any, query: str, search_type: Any, search_kwargs: Mapping[str, Any]) -> list[Document]:
    """Async :func:`search_store`: the store's async method, else the sync one in a thread."""
    name, scored = _STORE_METHODS[VECTOR_STORE_SEARCH_TYPES.check(search_type)]
    method = getattr(store, "a" + name, None)
    if method is not None:
        found = await method(query, **search_kwargs)
    else:
        found = await to_thread(getattr(store, name), query, **search_kwargs)
    return [document for document, _ in found] if scored else found
