"""The long-term memory store's interface (LangGraph's ``langgraph.store.base``).

A store keeps JSON documents under a *namespace* (a tuple of string labels, like a folder
path: ``("users", "alice", "memories")``) and a *key*. Unlike a checkpointer, which keeps
one thread's state, a store outlives threads: a graph can remember facts about a user
across conversations. Each backend implements two primitives, :meth:`BaseStore.batch` and
:meth:`BaseStore.abatch`, over four operations (:class:`GetOp`, :class:`PutOp`,
:class:`SearchOp`, :class:`ListNamespacesOp`); everything else is derived here.

>>> from rag.graph.store.memory import InMemoryStore
>>> store = InMemoryStore()
>>> store.put(("users", "alice"), "lang", {"likes": "Python"})
>>> store.get(("users", "alice"), "lang").value
{'likes': 'Python'}
>>> [item.key for item in store.search(("users",), filter={"likes": "Python"})]
['lang']
"""

from __future__ import annotations

import builtins  # Item has a method named dict: its annotations name the type in full
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, NamedTuple, Optional, TypedDict, Union

from rag.errors import ValidationError
from rag.graph.store.embed import ensure_embeddings, get_text_at_path, tokenize_path

__all__ = [
    "BaseStore", "Item", "SearchItem", "GetOp", "PutOp", "SearchOp", "ListNamespacesOp", "MatchCondition",
    "Op", "Result", "NamespacePath", "NamespaceMatchType", "InvalidNamespaceError", "IndexConfig", "TTLConfig",
    "NOT_PROVIDED", "NotProvided", "validate_op_namespace", "get_text_at_path", "tokenize_path",
    "ensure_embeddings",
]


class NotProvided:
    """The default of ``put(ttl=...)``: "use the store's default TTL" (None means "never expire")."""

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_PROVIDED = NotProvided()


class InvalidNamespaceError(ValidationError):
    """A namespace that is empty, or holds a label that is not a non-empty str without
    "." or NUL (a ValueError, as LangGraph's)."""


@dataclass(eq=False, kw_only=True)
class Item:
    """A stored document: ``value`` (a JSON object), under ``namespace`` and ``key``, with
    ``created_at`` / ``updated_at`` (timezone-aware UTC datetimes; ISO strings are parsed).

    Two items are equal when their namespace, key, value and times are; an item hashes by
    ``(namespace, key)``.
    """

    value: builtins.dict[str, Any]
    key: str
    namespace: tuple[str, ...]
    created_at: datetime
    updated_at: datetime

    def __post_init__(self) -> None:
        # An item read back from JSON has a list namespace and ISO string times.
        self.namespace = tuple(self.namespace)
        if isinstance(self.created_at, str):
            self.created_at = datetime.fromisoformat(self.created_at)
        if isinstance(self.updated_at, str):
            self.updated_at = datetime.fromisoformat(self.updated_at)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Item):
            return NotImplemented
        return (self.value == other.value and self.key == other.key and self.namespace == other.namespace
                and self.created_at == other.created_at and self.updated_at == other.updated_at)

    def __hash__(self) -> int:
        return hash((self.namespace, self.key))

    def dict(self) -> builtins.dict[str, Any]:
        """The item as JSON-ready data (namespace as a list, times as ISO strings)."""
        return {"namespace": list(self.namespace), "key": self.key, "value": self.value,
                "created_at": self.created_at.isoformat(), "updated_at": self.updated_at.isoformat()}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.dict().items())})"


@dataclass(eq=False, init=False)
class SearchItem(Item):
    """An :class:`Item` found by :meth:`BaseStore.search`, with ``score``: the cosine
    similarity in [-1, 1] of its best-matching embedded field to the query (None without
    a query, or for an item that has no embedded field). Arguments in LangGraph's order."""

    score: Optional[float] = None

    def __init__(self, namespace: tuple[str, ...], key: str, value: builtins.dict[str, Any], created_at: datetime,
                 updated_at: datetime, score: Optional[float] = None) -> None:
        super().__init__(value=value, key=key, namespace=namespace, created_at=created_at, updated_at=updated_at)
        self.score = score

    def dict(self) -> builtins.dict[str, Any]:
        return {**super().dict(), "score": self.score}


class GetOp(NamedTuple):
    """Read the item at ``namespace`` / ``key`` (None when absent); ``refresh_ttl``: restart
    its time to live (stores with TTL only)."""

    namespace: tuple[str, ...]
    key: str
    refresh_ttl: bool = True


class SearchOp(NamedTuple):
    """Items under ``namespace_prefix`` (``()``: everywhere) whose value matches ``filter``,
    ranked by similarity to ``query`` when the store has an index (else newest first);
    ``limit`` (default 10) items after skipping ``offset``."""

    namespace_prefix: tuple[str, ...]
    filter: Optional[dict[str, Any]] = None
    limit: int = 10
    offset: int = 0
    query: Optional[str] = None
    refresh_ttl: bool = True


#: A namespace path for matching, where ``"*"`` stands for any one label.
NamespacePath = tuple[Union[str, Literal["*"]], ...]
NamespaceMatchType = Literal["prefix", "suffix"]


class MatchCondition(NamedTuple):
    """Namespaces that start (``"prefix"``) or end (``"suffix"``) with ``path``."""

    match_type: NamespaceMatchType
    path: NamespacePath


class ListNamespacesOp(NamedTuple):
    """The namespaces that meet every condition, cut to ``max_depth`` labels (and then
    deduplicated), sorted, ``limit`` (default 100) after ``offset``."""

    match_conditions: Optional[tuple[MatchCondition, ...]] = None
    max_depth: Optional[int] = None
    limit: int = 100
    offset: int = 0


class PutOp(NamedTuple):
    """Store ``value`` at ``namespace`` / ``key`` (``value=None`` deletes it). ``index``:
    None embeds the fields of the store's index config, a list of paths embeds those,
    False embeds nothing; ``ttl``: minutes to live (None: forever)."""

    namespace: tuple[str, ...]
    key: str
    value: Optional[Mapping[str, Any]]
    index: Union[Literal[False], list[str], None] = None  # type: ignore[assignment]  # (tuple.index)
    ttl: Optional[float] = None


Op = Union[GetOp, SearchOp, PutOp, ListNamespacesOp]
Result = Union[Item, list[Item], list[SearchItem], list[tuple[str, ...]], None]


class TTLConfig(TypedDict, total=False):
    """Time to live: ``default_ttl`` (minutes, None: forever), ``refresh_on_read`` (reads
    restart the clock of items that have a TTL; off unless set, as LangGraph's SQLite
    store), ``sweep_interval_minutes`` (the background sweeper's period)."""

    refresh_on_read: bool
    default_ttl: Optional[float]
    sweep_interval_minutes: Optional[float]


class IndexConfig(TypedDict, total=False):
    """Semantic search: ``embed`` (an :class:`~rag.embeddings.Embeddings`, or a function
    from a list of texts to a list of vectors, sync or async), ``dims`` (the vectors'
    length), ``fields`` (the JSON paths embedded: ``"$"`` the whole value (default),
    ``"text"``, ``"a.b"``, ``"items[*].text"``, ``"{title,body}"``)."""

    dims: int
    embed: Any
    fields: Optional[list[str]]


class BaseStore(ABC):
    """A key-value store of JSON documents under hierarchical namespaces, with optional
    semantic search. Subclasses implement :meth:`batch` and :meth:`abatch`."""

    supports_ttl: bool = False
    ttl_config: Optional[TTLConfig] = None

    @abstractmethod
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order; one result per op (an Item or None, a list, or None for a put)."""

    @abstractmethod
    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` for async code."""

    # -- the derived API, sync ---------------------------------------------------------------
    def get(self, namespace: tuple[str, ...], key: str, *, refresh_ttl: Optional[bool] = None) -> Optional[Item]:
        """The item at ``namespace`` / ``key``, or None."""
        return self.batch([_get_op(self, namespace, key, refresh_ttl)])[0]  # type: ignore[return-value]

    def search(self, namespace_prefix: tuple[str, ...], /, *, query: Optional[str] = None,
               filter: Optional[dict[str, Any]] = None, limit: int = 10, offset: int = 0,
               refresh_ttl: Optional[bool] = None) -> list[SearchItem]:
        """Items under ``namespace_prefix`` matching ``filter`` (equality, or ``{"$gt": 3}``
        with ``$eq $ne $gt $gte $lt $lte``; keys may be dotted paths), ranked by similarity
        to ``query`` when the store has an index; ``limit`` items after ``offset``."""
        op = _search_op(self, namespace_prefix, query, filter, limit, offset, refresh_ttl)
        return self.batch([op])[0]  # type: ignore[return-value]

    def put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any],
            index: Union[Literal[False], list[str], None] = None, *,
            ttl: Union[float, None, NotProvided] = NOT_PROVIDED) -> None:
        """Store ``value`` (a dict of JSON data) at ``namespace`` / ``key``, replacing it."""
        self.batch([_put_op(self, namespace, key, value, index, ttl)])

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """Remove the item at ``namespace`` / ``key`` (nothing happens when it is absent)."""
        _validate_namespace_labels(namespace)
        self.batch([PutOp(tuple(namespace), str(key), None, ttl=None)])

    def list_namespaces(self, *, prefix: Optional[NamespacePath] = None, suffix: Optional[NamespacePath] = None,
                        max_depth: Optional[int] = None, limit: int = 100, offset: int = 0) -> list[tuple[str, ...]]:
        """The namespaces holding items, filtered by ``prefix`` / ``suffix`` (``"*"``
        matches any one label), cut to ``max_depth`` labels; sorted, paginated."""
        return self.batch([_list_op(prefix, suffix, max_depth, limit, offset)])[0]  # type: ignore[return-value]

    # -- the derived API, async --------------------------------------------------------------
    async def aget(self, namespace: tuple[str, ...], key: str, *,
                   refresh_ttl: Optional[bool] = None) -> Optional[Item]:
        """:meth:`get` for async code."""
        return (await self.abatch([_get_op(self, namespace, key, refresh_ttl)]))[0]  # type: ignore[return-value]

    async def asearch(self, namespace_prefix: tuple[str, ...], /, *, query: Optional[str] = None,
                      filter: Optional[dict[str, Any]] = None, limit: int = 10, offset: int = 0,
                      refresh_ttl: Optional[bool] = None) -> list[SearchItem]:
        """:meth:`search` for async code."""
        op = _search_op(self, namespace_prefix, query, filter, limit, offset, refresh_ttl)
        return (await self.abatch([op]))[0]  # type: ignore[return-value]

    async def aput(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any],
                   index: Union[Literal[False], list[str], None] = None, *,
                   ttl: Union[float, None, NotProvided] = NOT_PROVIDED) -> None:
        """:meth:`put` for async code."""
        await self.abatch([_put_op(self, namespace, key, value, index, ttl)])

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """:meth:`delete` for async code."""
        _validate_namespace_labels(namespace)
        await self.abatch([PutOp(tuple(namespace), str(key), None, ttl=None)])

    async def alist_namespaces(self, *, prefix: Optional[NamespacePath] = None,
                               suffix: Optional[NamespacePath] = None, max_depth: Optional[int] = None,
                               limit: int = 100, offset: int = 0) -> list[tuple[str, ...]]:
        """:meth:`list_namespaces` for async code."""
        return (await self.abatch([_list_op(prefix, suffix, max_depth, limit, offset)]))[0]  # type: ignore


# -- building and checking operations (shared by BaseStore and the batched async store) ------
def _get_op(store: BaseStore, namespace: tuple[str, ...], key: str, refresh_ttl: Optional[bool]) -> GetOp:
    _validate_namespace_labels(namespace)
    return GetOp(tuple(namespace), str(key), _ensure_refresh(store.ttl_config, refresh_ttl))


def _search_op(store: BaseStore, namespace_prefix: tuple[str, ...], query: Optional[str],
               filter: Optional[dict[str, Any]], limit: int, offset: int, refresh_ttl: Optional[bool]) -> SearchOp:
    _validate_namespace_labels(namespace_prefix)
    _check_page(limit, offset)
    if filter is not None and not isinstance(filter, Mapping):
        raise ValidationError(f"filter must be a dict such as {{'color': 'red'}}, got {type(filter).__name__} "
                              f"{filter!r:.60}")
    if query is not None and not isinstance(query, str):
        raise ValidationError(f"query must be a str or None, got {type(query).__name__} {query!r:.60}")
    return SearchOp(tuple(namespace_prefix), filter, limit, offset, query,
                    _ensure_refresh(store.ttl_config, refresh_ttl))


def _put_op(store: BaseStore, namespace: tuple[str, ...], key: str, value: Mapping[str, Any],
            index: Union[Literal[False], list[str], None], ttl: Union[float, None, NotProvided]) -> PutOp:
    _validate_namespace(namespace)
    if ttl not in (NOT_PROVIDED, None) and not store.supports_ttl:
        raise NotImplementedError(f"TTL is not supported by {type(store).__name__}; use a store that supports it "
                                  "(SqliteStore) or pass ttl=None")
    if index is not None and index is not False and not (
            isinstance(index, list) and all(isinstance(path, str) for path in index)):
        raise ValidationError(f"index must be None, False or a list of JSON paths such as ['text'], got {index!r:.60}")
    return PutOp(tuple(namespace), str(key), value, index, _ensure_ttl(store.ttl_config, ttl))


def _list_op(prefix: Optional[NamespacePath], suffix: Optional[NamespacePath], max_depth: Optional[int],
             limit: int, offset: int) -> ListNamespacesOp:
    _validate_namespace_labels(tuple(prefix or ()))
    _validate_namespace_labels(tuple(suffix or ()))
    _check_page(limit, offset)
    if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1):
        raise ValidationError(f"max_depth must be None or an int >= 1, got {max_depth!r}")
    conditions = []
    if prefix:
        conditions.append(MatchCondition("prefix", tuple(prefix)))
    if suffix:
        conditions.append(MatchCondition("suffix", tuple(suffix)))
    return ListNamespacesOp(tuple(conditions), max_depth, limit, offset)


def _check_page(limit: Any, offset: Any) -> None:
    for name, number in (("limit", limit), ("offset", offset)):
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise ValidationError(f"{name} must be an int >= 0, got {number!r}")


def _validate_namespace(namespace: tuple[str, ...]) -> None:
    """A namespace one may write to: non-empty, valid labels, not under the reserved "langgraph"."""
    if not isinstance(namespace, (tuple, list)):
        raise InvalidNamespaceError(f"a namespace is a tuple of str labels such as ('users', 'alice'), got "
                                    f"{type(namespace).__name__} {namespace!r:.60}")
    if not namespace:
        raise InvalidNamespaceError("Namespace cannot be empty: give at least one label, such as ('memories',)")
    _validate_namespace_labels(namespace)
    if namespace[0] == "langgraph":
        raise InvalidNamespaceError(f'Root label for namespace cannot be "langgraph" (reserved). Got: {namespace}')


def _validate_namespace_labels(namespace: tuple[str, ...]) -> None:
    """Each label a non-empty str without "." (labels are joined with ".") or NUL."""
    if not isinstance(namespace, (tuple, list)):
        raise InvalidNamespaceError(f"a namespace is a tuple of str labels such as ('users', 'alice'), got "
                                    f"{type(namespace).__name__} {namespace!r:.60}")
    for label in namespace:
        if not isinstance(label, str):
            raise InvalidNamespaceError(f"Invalid namespace label {label!r} found in {namespace}: labels must be "
                                        f"strings, but got {type(label).__name__}")
        if "." in label:
            raise InvalidNamespaceError(f"Invalid namespace label {label!r} found in {namespace}: labels cannot "
                                        "contain periods ('.'); use separate labels instead")
        if "\x00" in label:
            raise InvalidNamespaceError(f"Invalid namespace label {label!r} found in {namespace}: labels cannot "
                                        "contain NUL bytes ('\\x00')")
        if not label:
            raise InvalidNamespaceError(f"Namespace labels cannot be empty strings. Got {label!r} in {namespace}")


def validate_op_namespace(op: Op) -> None:
    """Raise :class:`InvalidNamespaceError` when ``op`` names an invalid label (``batch``
    takes ops as given, so each backend checks them all before running any)."""
    if isinstance(op, (GetOp, PutOp)):
        _validate_namespace_labels(op.namespace)
    elif isinstance(op, SearchOp):
        _validate_namespace_labels(op.namespace_prefix)
    elif isinstance(op, ListNamespacesOp):
        for condition in op.match_conditions or ():
            _validate_namespace_labels(condition.path)


def _ensure_refresh(ttl_config: Optional[TTLConfig], refresh_ttl: Optional[bool]) -> bool:
    if refresh_ttl is not None:
        return refresh_ttl
    return ttl_config.get("refresh_on_read", True) if ttl_config is not None else True


def _ensure_ttl(ttl_config: Optional[TTLConfig], ttl: Union[float, None, NotProvided]) -> Optional[float]:
    if isinstance(ttl, NotProvided):
        return ttl_config.get("default_ttl") if ttl_config else None
    if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not ttl > 0):
        raise ValidationError(f"ttl must be None or a number of minutes > 0, got {ttl!r}")
    return ttl

