"""Metadata filters: compile a LangChain-style filter once, then test documents quickly.

A filter is a callable or a dict. In a dict:

- ``{"field": value}`` — equality; ``{"field": [a, b]}`` — one of the values;
- ``{"field": {"$op": operand}}`` with ``$eq``, ``$ne`` (also ``$neq``), ``$gt``, ``$gte``,
  ``$lt``, ``$lte``, ``$in``, ``$nin``, ``$exists``;
- ``{"$and": [f, ...]}``, ``{"$or": [f, ...]}``, ``{"$not": f}``;
- several keys in one dict must all match.

A comparison on a missing field does not match; the negations ``$ne``, ``$nin`` and
``$not`` do match it (as in LangChain). Ordering comparisons between values that cannot
be ordered (a string against a number) do not match rather than raise. An unknown operator
raises :class:`~rag.errors.ValidationError` naming it, when the filter is compiled.
"""

from __future__ import annotations

import operator
from typing import Any, Callable, Mapping, Union

from rag.errors import ValidationError

__all__ = ["Filter", "Predicate", "compile_filter", "OPERATORS"]

Predicate = Callable[[Mapping[str, Any]], bool]
Filter = Union[Callable[..., bool], Mapping[str, Any], None]

_MISSING = object()

_ORDERING: dict[str, Callable[[Any, Any], bool]] = {
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}
OPERATORS = ("$eq", "$ne", "$neq", *_ORDERING, "$in", "$nin", "$exists")
COMBINATORS = ("$and", "$or", "$not")


def _ordered(compare: Callable[[Any, Any], bool], field: str, operand: Any) -> Predicate:
    def test(metadata: Mapping[str, Any]) -> bool:
        value = metadata.get(field, _MISSING)
        if value is _MISSING:
            return False
        try:
            return bool(compare(value, operand))
        except TypeError:
            return False

    return test


def _as_list(op: str, field: str, operand: Any) -> list[Any]:
    if isinstance(operand, (list, tuple, set, frozenset)):
        return list(operand)
    raise ValidationError(f"{op} on {field!r} needs a list of values, got {operand!r:.60}")


def _one_of(values: list[Any]) -> Callable[[Any], bool]:
    # Hashable values get a set lookup; unhashable ones (dicts, lists) fall back to a scan.
    try:
        lookup = frozenset(values)
    except TypeError:
        return lambda value: value in values

    def test(value: Any) -> bool:
        try:
            return value in lookup
        except TypeError:
            return value in values

    return test


def _field_operator(field: str, op: str, operand: Any) -> Predicate:
    if op == "$eq":
        return lambda m: (v := m.get(field, _MISSING)) is not _MISSING and v == operand
    if op in ("$ne", "$neq"):
        return lambda m: m.get(field, _MISSING) is _MISSING or m[field] != operand
    if op in _ORDERING:
        return _ordered(_ORDERING[op], field, operand)
    if op == "$in":
        member = _one_of(_as_list(op, field, operand))
        return lambda m: (v := m.get(field, _MISSING)) is not _MISSING and member(v)
    if op == "$nin":
        member = _one_of(_as_list(op, field, operand))
        return lambda m: (v := m.get(field, _MISSING)) is _MISSING or not member(v)
    if op == "$exists":
        if not isinstance(operand, bool):
            raise ValidationError(f"$exists on {field!r} needs true or false, got {operand!r:.60}")
        return lambda m: (field in m) == operand
    raise ValidationError(
        f"unknown filter operator {op!r} on field {field!r}; expected one of {', '.join(OPERATORS)}"
    )


def _field(field: str, condition: Any) -> Predicate:
    if isinstance(condition, Mapping) and condition and all(str(k).startswith("$") for k in condition):
        tests = [_field_operator(field, op, operand) for op, operand in condition.items()]
        return tests[0] if len(tests) == 1 else (lambda m: all(t(m) for t in tests))
    if isinstance(condition, list):
        member = _one_of(condition)
        return lambda m: (v := m.get(field, _MISSING)) is not _MISSING and member(v)
    return lambda m: (v := m.get(field, _MISSING)) is not _MISSING and v == condition


def _clauses(op: str, operand: Any) -> list[Predicate]:
    if not isinstance(operand, (list, tuple)) or not operand:
        raise ValidationError(f"{op} needs a non-empty list of filters, got {operand!r:.60}")
    return [_compile_dict(clause) for clause in operand]


def _compile_dict(spec: Any) -> Predicate:
    if not isinstance(spec, Mapping):
        raise ValidationError(f"a filter must be a dict or a callable, got {type(spec).__name__}: {spec!r:.60}")
    tests: list[Predicate] = []
    for key, condition in spec.items():
        if key == "$and":
            parts = _clauses(key, condition)
            tests.append(lambda m, parts=parts: all(p(m) for p in parts))
        elif key == "$or":
            parts = _clauses(key, condition)
            tests.append(lambda m, parts=parts: any(p(m) for p in parts))
        elif key == "$not":
            inner = _compile_dict(condition)
            tests.append(lambda m, inner=inner: not inner(m))
        elif isinstance(key, str) and key.startswith("$"):
            raise ValidationError(
                f"unknown filter operator {key!r} at the top level; expected a field name or one of "
                f"{', '.join(COMBINATORS)}"
            )
        else:
            tests.append(_field(key, condition))
    if len(tests) == 1:
        return tests[0]
    return lambda m: all(t(m) for t in tests)


def compile_filter(spec: Filter) -> Predicate | None:
    """A predicate over metadata dicts for a dict filter, the callable itself, or None.

    Raises ValidationError for a malformed filter or an unknown operator.
    """
    if spec is None:
        return None
    if callable(spec) and not isinstance(spec, Mapping):
        return spec  # type: ignore[return-value]
    if isinstance(spec, Mapping) and not spec:
        return None
    return _compile_dict(spec)
