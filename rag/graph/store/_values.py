"""Values and filters, the same in every store: a value is a JSON object; a filter matches
fields of it (one implementation, so the memory and SQLite stores agree).

>>> matches({"price": 12, "user": {"name": "ann"}}, check_filter({"price": {"$gt": 10}, "user.name": "ann"}))
True
"""

from __future__ import annotations

import json
import math
import operator as _operator
import re
from collections.abc import Mapping
from typing import Any, Callable, Optional

from rag.errors import ValidationError

__all__ = ["check_value", "check_filter", "matches", "OPERATORS"]

OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")
#: A filter key is a field name or a dotted path of them (LangGraph's SQLite rule: keys
#: reach SQL, and a rule the same everywhere keeps the stores interchangeable).
_FILTER_KEY = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$")


def check_value(namespace: tuple[str, ...], key: str, value: Any) -> dict[str, Any]:
    """``value`` as a plain dict of JSON data, or a ValidationError naming the key, the
    field and its type (a value must survive a round trip through JSON in every store)."""
    if not isinstance(value, Mapping):
        raise ValidationError(f"the value stored at {namespace} / {key!r} must be a dict of JSON data, got "
                              f"{type(value).__name__} {value!r:.60}")
    value = dict(value)
    problem = _first_non_json(value, "")
    if problem is not None:
        path, bad = problem
        raise ValidationError(f"the value stored at {namespace} / {key!r} cannot be stored as JSON: field {path!r} "
                              f"is {type(bad).__name__} {bad!r:.60}; use str, int, float, bool, None, list or dict")
    return value


def _first_non_json(data: Any, path: str) -> Optional[tuple[str, Any]]:
    if data is None or isinstance(data, (str, bool, int)):
        return None
    if isinstance(data, float):
        return None if math.isfinite(data) else (path or "$", data)  # NaN/inf are not JSON
    if isinstance(data, Mapping):
        for name, inner in data.items():
            if not isinstance(name, str):
                return (f"{path}.{name!r}" if path else repr(name), name)
            found = _first_non_json(inner, f"{path}.{name}" if path else name)
            if found is not None:
                return found
        return None
    if isinstance(data, (list, tuple)):
        for i, inner in enumerate(data):
            found = _first_non_json(inner, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    return (path or "$", data)


def encode(value: Mapping[str, Any]) -> str:
    """The stored form of a checked value (compact JSON, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def check_filter(filter: Optional[Mapping[str, Any]]) -> tuple[tuple[tuple[str, ...], Any], ...]:
    """``filter`` as ``((path, condition), ...)``; a bad key or operator raises, naming it."""
    if not filter:
        return ()
    checked = []
    for key, condition in filter.items():
        if not isinstance(key, str) or not _FILTER_KEY.match(key):
            raise ValidationError(f"Invalid filter key {key!r}: a filter key is a field name or a dotted path of "
                                  "letters, digits, '_' and '-' (such as 'user.name')")
        if isinstance(condition, Mapping) and any(str(op).startswith("$") for op in condition):
            unknown = [op for op in condition if op not in OPERATORS]
            if unknown:
                raise ValidationError(f"Unsupported filter operator {unknown[0]!r} for key {key!r}; use one of "
                                      f"{', '.join(OPERATORS)}")
        checked.append((tuple(key.split(".")), condition))
    return tuple(checked)


_MISSING = object()


def _at(value: Any, path: tuple[str, ...]) -> Any:
    for name in path:
        if not isinstance(value, dict) or name not in value:
            return _MISSING
        value = value[name]
    return value


def matches(value: dict[str, Any], checked: tuple[tuple[tuple[str, ...], Any], ...]) -> bool:
    """Whether ``value`` meets every condition of a :func:`check_filter` result."""
    for path, condition in checked:
        if not _meets(_at(value, path), condition):
            return False
    return True


def _meets(found: Any, condition: Any) -> bool:
    if isinstance(condition, Mapping) and any(str(op).startswith("$") for op in condition):
        return all(_apply(found, op, operand) for op, operand in condition.items())
    return _equal(found, condition)


def _equal(found: Any, expected: Any) -> bool:
    """JSON equality: true is not 1, a dict matches when each given field matches."""
    if found is _MISSING:
        return False
    if isinstance(expected, Mapping):
        return isinstance(found, dict) and all(_equal(found.get(k, _MISSING), v) for k, v in expected.items())
    if isinstance(expected, (list, tuple)):
        return (isinstance(found, list) and len(found) == len(expected)
                and all(_equal(f, e) for f, e in zip(found, expected)))
    if isinstance(expected, bool) or isinstance(found, bool):
        return isinstance(found, bool) and isinstance(expected, bool) and found is expected
    return bool(found == expected)


def _apply(found: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return _equal(found, operand)
    if operator == "$ne":
        return not _equal(found, operand)
    # An order compares numbers with numbers and strings with strings; anything else
    # (a missing field, a bool, a list) does not match rather than raise.
    numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (found, operand))
    strings = isinstance(found, str) and isinstance(operand, str)
    return (numbers or strings) and bool(_ORDER[operator](found, operand))


_ORDER: dict[str, Callable[[Any, Any], Any]] = {"$gt": _operator.gt, "$gte": _operator.ge, "$lt": _operator.lt,
                                                "$lte": _operator.le}
