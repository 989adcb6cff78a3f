"""Cache keys for node results, laid out as LangGraph lays them out.

A node's entry lives under the namespace ``("__pregel_ns_writes", "<module>.<qualname>" of
the node's function (or "__dynamic__"), "<node name>")`` and the key is a 128-bit hex
digest of ``key_func(node input)``. LangGraph digests with xxh3-128 over a pickle of the
input; here the default key is a canonical JSON text of the input (dict keys sorted, so
equal states give equal keys in any process) digested with BLAKE2b-128, and nothing is
pickled.

>>> default_cache_key({"b": 1, "a": [1, 2]}) == default_cache_key({"a": [1, 2], "b": 1})
True
>>> len(digest(default_cache_key({"q": "hi"})))
32
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
from typing import Any, Callable, Optional, Union

from rag.errors import InvalidTypeError

__all__ = ["CACHE_NS_WRITES", "default_cache_key", "digest", "identifier", "node_namespace", "task_namespace",
           "call_key"]

#: The first part of every node-result namespace (LangGraph's CACHE_NS_WRITES).
CACHE_NS_WRITES = "__pregel_ns_writes"


def _canonical(value: Any) -> Any:
    """The JSON encoder's hook: a value it does not know, as plain data tagged with its
    type (so ``1`` and ``Decimal(1)`` or two classes with the same fields differ)."""
    if isinstance(value, (set, frozenset)):
        return {"__set__": sorted((json.dumps(item, default=_canonical, sort_keys=True) for item in value))}
    if isinstance(value, bytes):
        return {"__bytes__": value.hex()}
    if isinstance(value, enum.Enum):
        return {"__enum__": _type_name(value), "value": value.value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"__type__": _type_name(value),
                "fields": {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}}
    dump = getattr(value, "model_dump", None)  # a pydantic model
    if callable(dump) and not isinstance(value, type):
        return {"__type__": _type_name(value), "fields": dump()}
    if hasattr(value, "tobytes") and hasattr(value, "dtype"):  # a numpy array or scalar
        return {"__array__": str(value.dtype), "shape": list(getattr(value, "shape", ())),
                "data": value.tobytes().hex()}
    raise InvalidTypeError(
        f"the default cache key cannot read a {_type_name(value)} in the node's input; give the node "
        "CachePolicy(key_func=...) returning a str or bytes that identifies its input"
    )


def _type_name(value: Any) -> str:
    cls = type(value)
    return f"{cls.__module__}.{cls.__qualname__}"


def _str_keys(value: Any) -> Any:
    """``value`` with every dict that has a key other than a str written as a tagged list of
    ``[key, value]`` pairs: JSON would turn ``{1: "a"}`` into ``{"1": "a"}``, and two inputs
    would share a key. Containers without such dicts come back as they are (no copy)."""
    if isinstance(value, dict):
        if all(isinstance(key, str) for key in value):
            items = {key: _str_keys(item) for key, item in value.items()}
            return value if all(items[key] is value[key] for key in value) else items
        pairs = [[_str_keys(key), _str_keys(item)] for key, item in value.items()]
        pairs.sort(key=lambda pair: json.dumps(pair[0], default=_canonical, sort_keys=True))
        return {"__items__": pairs}
    if isinstance(value, (list, tuple)):
        items = [_str_keys(item) for item in value]
        return value if all(new is old for new, old in zip(items, value)) else items
    return value


def default_cache_key(*args: Any, **kwargs: Any) -> bytes:
    """A stable key for a call's arguments: canonical JSON as UTF-8 bytes (dict keys
    sorted; dataclasses such as messages and Documents, pydantic models, enums, sets, bytes
    and numpy arrays written with their type). Raises :class:`~rag.errors.InvalidTypeError`
    naming what it cannot read (pass ``CachePolicy(key_func=...)`` for such inputs)."""
    try:
        return json.dumps(_str_keys([list(args), kwargs]), default=_canonical, sort_keys=True, ensure_ascii=False,
                          separators=(",", ":")).encode("utf-8")
    except InvalidTypeError:
        raise
    except (TypeError, ValueError) as exc:  # dict keys of mixed types, a circular reference
        raise InvalidTypeError(
            f"the default cache key cannot read the node's input ({exc}); give the node "
            "CachePolicy(key_func=...) returning a str or bytes that identifies its input"
        ) from exc


def digest(key: Union[str, bytes]) -> str:
    """The 32-hex-digit key an entry is stored under, from what a ``key_func`` returned."""
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, (bytes, bytearray)):
        raise InvalidTypeError(f"a cache key_func must return str or bytes, got {type(key).__name__} {key!r:.80}")
    return hashlib.blake2b(bytes(key), digest_size=16).hexdigest()


def identifier(node: Any) -> Optional[str]:
    """``"<module>.<qualname>"`` of a node's function (of a RunnableLambda: the function it
    wraps), or None for an object without them, such as a compiled subgraph (its entries
    then go under ``"__dynamic__"``, as in LangGraph)."""
    target = node
    if hasattr(node, "func") and hasattr(node, "afunc"):
        target = node.func or node.afunc
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None)
    module = getattr(target, "__module__", None)
    return f"{module}.{name}" if isinstance(name, str) and isinstance(module, str) else None


def node_namespace(node_name: str, node: Any) -> tuple[str, str, str]:
    """Where a node's results are cached (and what ``clear_cache([node_name])`` empties)."""
    return (CACHE_NS_WRITES, identifier(node) or "__dynamic__", node_name)


def task_namespace(func: Any) -> tuple[str, str]:
    """Where a functional-API ``@task`` function's results are cached (LangGraph keys a task
    by its function alone, not by the node that called it)."""
    return (CACHE_NS_WRITES, identifier(func) or "__dynamic__")


def call_key(key_func: Callable[..., Union[str, bytes]], func: Any, args: tuple, kwargs: dict) -> tuple[tuple[str, ...], str]:
    """The full cache key of calling ``func(*args, **kwargs)``: its :func:`task_namespace`
    and the digest of ``key_func(*args, **kwargs)`` (``CachePolicy.key_func``)."""
    return task_namespace(func), digest(key_func(*args, **kwargs))


KeyFunc = Callable[..., Union[str, bytes]]
