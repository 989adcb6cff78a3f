"""One search of an index, as a frozen value checked once where it is built.

Every way into an index's search builds a :class:`SearchRequest`: :meth:`Index.search
<rag.index.Index.search>`, its retriever (from LangChain-style ``search_kwargs``), the
answer chain, ``rag search`` and the server's ``POST /search``. Whatever reaches a backend
is already valid, so a new search parameter is one field here, not an edit in every
caller.

>>> SearchRequest("rotate keys", k=3, search_type="threshold", threshold=0.4).search_type
<SearchType.SIMILARITY_SCORE_THRESHOLD: 'similarity_score_threshold'>
>>> SearchRequest.from_search_kwargs("q", "mmr", {"k": 3, "lamda_mult": 0.2})
Traceback (most recent call last):
...
rag.errors.ValidationError: search_kwargs for search type mmr got unknown key(s) 'lamda_mult'; accepted: fetch_k, filter, k, lambda_mult
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union

from rag.errors import ValidationError
from rag.hybrid import HybridConfig
from rag.search_types import INDEX_SEARCH_TYPES, SearchType, check_fraction, check_k

__all__ = ["SearchRequest", "MAX_K", "MAX_QUERY_CHARS", "REQUEST_FIELDS", "SEARCH_KWARGS_OF", "check_k"]

#: The largest ``k`` (and ``fetch_k``) a request may ask for: more is a mistake, not a
#: search (a server refuses it before any work).
MAX_K = 10_000
#: The longest query accepted, in characters (a query is embedded: longer says nothing more).
MAX_QUERY_CHARS = 10_000

#: The ``search_kwargs`` keys an index retriever takes for each search type (LangChain's
#: names; ``score_threshold`` is the request's ``threshold``).
SEARCH_KWARGS_OF: Mapping[SearchType, frozenset[str]] = {
    SearchType.HYBRID: frozenset({"k", "filter"}),
    SearchType.BM25: frozenset({"k", "filter"}),
    SearchType.SIMILARITY: frozenset({"k", "filter", "fetch_k"}),
    SearchType.SIMILARITY_SCORE_THRESHOLD: frozenset({"k", "filter", "fetch_k", "score_threshold"}),
    SearchType.MMR: frozenset({"k", "filter", "fetch_k", "lambda_mult"}),
}

#: The request's fields, in order (the server's JSON body takes these names).
REQUEST_FIELDS = ("query", "k", "search_type", "filter", "threshold", "fetch_k", "lambda_mult")


@dataclass(frozen=True)
class SearchRequest:
    """What to search for and how; every field checked in the constructor.

    ``query``: the text (any string, as LangChain's retrievers take, of at most
    :data:`MAX_QUERY_CHARS` characters); ``k``: results wanted, 1 to :data:`MAX_K` (default 4; numpy integers
    accepted); ``search_type``: a :class:`~rag.search_types.SearchType` or its name
    (``hybrid``, the default, ``similarity``, ``mmr``, ``threshold`` /
    ``similarity_score_threshold``, ``bm25``); ``filter``: a metadata filter in the
    stores' dict language or a predicate over a chunk's metadata (checked by the store
    when it compiles it); ``threshold``: the minimum relevance, 0 to 1, for ``threshold``
    only (and required there); ``fetch_k``: candidates considered (similarity, threshold,
    mmr; default: the index's saved MMR setting for mmr, the store's for the others);
    ``lambda_mult``: MMR's balance, 0 (diversity) to 1 (relevance), mmr only (default: the
    index's saved setting).
    """

    query: str
    k: int = 4
    search_type: SearchType = SearchType.HYBRID
    filter: Any = None
    threshold: Optional[float] = None
    fetch_k: Optional[int] = None
    lambda_mult: Optional[float] = None

    def __init__(self, query: str, k: int = 4, search_type: Union[SearchType, str] = SearchType.HYBRID,
                 filter: Any = None, threshold: Optional[float] = None, fetch_k: Optional[int] = None,
                 lambda_mult: Optional[float] = None) -> None:
        # Written out rather than generated: a search type may be given by name
        # (``"mmr"``), while the field always holds the checked SearchType member.
        for name, value in zip(REQUEST_FIELDS, (query, k, search_type, filter, threshold, fetch_k, lambda_mult)):
            object.__setattr__(self, name, value)
        self.__post_init__()

    def __post_init__(self) -> None:
        if not isinstance(self.query, str):
            raise ValidationError(f"query must be a string, got {type(self.query).__name__}: {self.query!r:.60}")
        if len(self.query) > MAX_QUERY_CHARS:
            raise ValidationError(f"query must be at most {MAX_QUERY_CHARS} characters, got {len(self.query)}")
        search_type = INDEX_SEARCH_TYPES.check(self.search_type)
        object.__setattr__(self, "search_type", search_type)
        object.__setattr__(self, "k", _check_count(self.k, "k"))
        thresholded = search_type is SearchType.SIMILARITY_SCORE_THRESHOLD
        if self.threshold is not None and not thresholded:
            raise ValidationError(f"threshold applies to search type 'threshold' only, not {search_type.value!r}")
        if thresholded:
            if self.threshold is None:
                raise ValidationError("search type 'threshold' needs threshold=X (--threshold X), a number between 0 and 1")
            object.__setattr__(self, "threshold", check_fraction(self.threshold, "threshold"))
        if self.fetch_k is not None:
            if "fetch_k" not in SEARCH_KWARGS_OF[search_type]:
                raise ValidationError(f"fetch_k applies to search types similarity, threshold and mmr, "
                                      f"not {search_type.value!r}")
            object.__setattr__(self, "fetch_k", _check_count(self.fetch_k, "fetch_k"))
            if self.fetch_k < self.k:
                raise ValidationError(f"fetch_k ({self.fetch_k}) must be at least k ({self.k}): the candidates "
                                      "considered include the results")
        if self.lambda_mult is not None:
            if search_type is not SearchType.MMR:
                raise ValidationError(f"lambda_mult applies to search type 'mmr' only, not {search_type.value!r}")
            object.__setattr__(self, "lambda_mult", check_fraction(self.lambda_mult, "lambda_mult"))

    def score_name(self, hybrid: Optional[HybridConfig] = None) -> str:
        """What the scores of this search measure on an index fusing by ``hybrid`` (default:
        :class:`~rag.hybrid.HybridConfig`'s): ``rrf`` or ``fused`` (a hybrid search's fusion, see
        :attr:`~rag.hybrid.HybridConfig.score_name`), ``bm25`` (the lexical side's own
        score) or ``relevance`` (in [0, 1])."""
        return score_name(self.search_type, hybrid)

    @classmethod
    def from_search_kwargs(cls, query: str, search_type: Union[SearchType, str],
                           search_kwargs: Optional[Mapping[str, Any]]) -> "SearchRequest":
        """A request from LangChain's ``as_retriever(search_type, search_kwargs)`` shape.
        An unknown key (a typo such as ``lamda_mult``) is refused, naming the keys that
        the search type accepts (LangChain drops it silently)."""
        member = INDEX_SEARCH_TYPES.check(search_type)
        kwargs = dict(search_kwargs or {})
        unknown = sorted(set(kwargs) - SEARCH_KWARGS_OF[member])
        if unknown:
            raise ValidationError(
                f"search_kwargs for search type {member.value} got unknown key(s) {', '.join(map(repr, unknown))}; accepted: "
                f"{', '.join(sorted(SEARCH_KWARGS_OF[member]))}")
        if member is SearchType.SIMILARITY_SCORE_THRESHOLD and kwargs.get("score_threshold") is None:
            raise ValidationError(f"search type {member.value} needs search_kwargs={{'score_threshold': X}}, a "
                                  "number between 0 and 1")
        try:
            return cls(query, k=kwargs.get("k", 4), search_type=member, filter=kwargs.get("filter"),
                       threshold=kwargs.get("score_threshold"), fetch_k=kwargs.get("fetch_k"),
                       lambda_mult=kwargs.get("lambda_mult"))
        except ValidationError as exc:
            # Named as the caller wrote it: search_kwargs' key, not the request's field.
            message = str(exc)
            if message.startswith("threshold "):
                message = "score_threshold " + message[len("threshold "):]
            raise ValidationError(f"search_kwargs: {message}") from None

    def with_query(self, query: str) -> "SearchRequest":
        """This request for another query (a retriever's template, filled per call)."""
        return SearchRequest(query, self.k, self.search_type, self.filter, self.threshold, self.fetch_k,
                             self.lambda_mult)


def score_name(search_type: Union[SearchType, str], hybrid: Optional[HybridConfig] = None) -> str:
    """What the score of a search type measures: ``rrf`` or ``fused`` (hybrid, by the
    index's fusion ``hybrid``; default :class:`~rag.hybrid.HybridConfig`'s), ``bm25`` or
    ``relevance``."""
    member = INDEX_SEARCH_TYPES.check(search_type)
    if member is SearchType.HYBRID:
        return (hybrid if hybrid is not None else HybridConfig()).score_name
    return "bm25" if member is SearchType.BM25 else "relevance"


def _check_count(value: Any, name: str) -> int:
    count = check_k(value, name)
    if count > MAX_K:
        raise ValidationError(f"{name} must be at most {MAX_K}, got {count}")
    return count
