"""Metadata filters: the dict language parsed once into an expression tree that each
backend evaluates (a Python predicate, numpy over columns) or translates (SQL).

A filter is a callable or a dict. In a dict:

- ``{"field": value}`` — equality; ``{"field": [a, b]}`` — one of the values;
- ``{"field": {"$op": operand}}`` with ``$eq``, ``$ne`` (also ``$neq``), ``$gt``, ``$gte``,
  ``$lt``, ``$lte``, ``$in``, ``$nin``, ``$exists``;
- ``{"$and": [f, ...]}``, ``{"$or": [f, ...]}``, ``{"$not": f}``;
- several keys in one dict must all match.

Semantics, the same on every backend (the conformance suite checks each operator):

- A comparison on a missing field does not match; the negations ``$ne``, ``$nin`` and
  ``$not`` do match it (as in LangChain). A field holding ``None`` (JSON null) is present.
- Values compare as JSON values: numbers with numbers (``1 == 1.0``), strings with
  strings, lists and dicts structurally; ``True`` is a boolean, not the number 1 (Python
  alone would say ``True == 1``; a database cannot).
- Orderings (``$gt`` ...) match only a number against a number or a string against a
  string (code-point order); any other pair does not match rather than raise.
- An empty ``$and`` matches everything and an empty ``$or`` nothing (as in LangChain).
- An unknown operator raises :class:`~rag.errors.ValidationError` with LangChain's text,
  ``filter contains unsupported operator: $op``, when the filter is parsed.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Any, Callable, Literal, Mapping, Optional, Union

from rag.errors import ValidationError

__all__ = [
    "Filter", "Predicate", "Expr", "Compare", "And", "Or", "Not", "parse_filter", "compile_filter",
    "to_predicate", "value_key", "is_number", "OPERATORS", "COMBINATORS",
]

Predicate = Callable[[Mapping[str, Any]], bool]
Filter = Union[Callable[..., bool], Mapping[str, Any], None]

CompareOp = Literal["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists"]
ORDERINGS: dict[str, Callable[[Any, Any], bool]] = {
    "$gt": operator.gt, "$gte": operator.ge, "$lt": operator.lt, "$lte": operator.le,
}
OPERATORS = ("$eq", "$ne", "$neq", *ORDERINGS, "$in", "$nin", "$exists")
COMBINATORS = ("$and", "$or", "$not")


@dataclass(frozen=True)
class Compare:
    """``field op value``. ``value`` is a tuple for ``$in``/``$nin`` and a bool for ``$exists``."""

    field: str
    op: CompareOp
    value: Any


@dataclass(frozen=True)
class And:
    """Every clause matches (no clauses: everything matches)."""

    clauses: tuple["Expr", ...]


@dataclass(frozen=True)
class Or:
    """Some clause matches (no clauses: nothing matches)."""

    clauses: tuple["Expr", ...]


@dataclass(frozen=True)
class Not:
    """The clause does not match."""

    clause: "Expr"


Expr = Union[Compare, And, Or, Not]


# ---------------------------------------------------------------------- JSON values


def is_number(value: Any) -> bool:
    """True for int and float values (numpy's too), never for bool."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float)) or (_is_numpy_scalar(value) and value.dtype.kind in "iuf")


def _is_numpy_scalar(value: Any) -> bool:
    return type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0


def value_key(value: Any) -> Any:
    """A hashable key under which two values are equal exactly when they are equal JSON
    values: ``1`` and ``1.0`` share one, ``True`` and ``1`` do not; lists and dicts compare
    structurally. Values JSON lacks (dates, sets...) compare as Python compares them."""
    if _is_numpy_scalar(value):
        value = value.item()
    if isinstance(value, bool):
        return (1, value)
    if isinstance(value, str):
        return (3, value)
    if value is None:
        return (0,)
    if isinstance(value, (int, float)):
        return (2, value)
    if isinstance(value, (list, tuple)):
        return (4, tuple(value_key(item) for item in value))
    if isinstance(value, Mapping):
        return (5, frozenset((key, value_key(item)) for key, item in value.items()))
    try:
        hash(value)
    except TypeError:
        return (7, id(value))  # an unhashable foreign object equals only itself
    return (6, value)


# ---------------------------------------------------------------------- parsing


def _unsupported(op: Any, where: str) -> ValidationError:
    # LangChain's text first (code matching on it keeps working), then what we accept.
    return ValidationError(
        f"filter contains unsupported operator: {op} ({where}); expected one of "
        f"{', '.join(OPERATORS)} on a field, or {', '.join(COMBINATORS)}"
    )


def _as_values(op: str, field: str, operand: Any) -> tuple[Any, ...]:
    if isinstance(operand, (list, tuple, set, frozenset)):
        return tuple(operand)
    raise ValidationError(f"{op} on {field!r} needs a list of values, got {operand!r:.60}")


def _compare(field: str, op: str, operand: Any) -> Compare:
    if op in ("$ne", "$neq"):
        return Compare(field, "$ne", operand)
    if op == "$eq" or op in ORDERINGS:
        if op in ORDERINGS and isinstance(operand, float) and math.isnan(operand):
            raise ValidationError(f"{op} on {field!r} needs a number or a string, got NaN")
        return Compare(field, op, operand)  # type: ignore[arg-type]
    if op in ("$in", "$nin"):
        return Compare(field, op, _as_values(op, field, operand))  # type: ignore[arg-type]
    if op == "$exists":
        if not isinstance(operand, bool):
            raise ValidationError(f"$exists on {field!r} needs true or false, got {operand!r:.60}")
        return Compare(field, "$exists", operand)
    raise _unsupported(op, f"on field {field!r}")


def _field(field: str, condition: Any) -> Expr:
    if isinstance(condition, Mapping) and condition and all(str(k).startswith("$") for k in condition):
        parts = tuple(_compare(field, str(op), operand) for op, operand in condition.items())
        return parts[0] if len(parts) == 1 else And(parts)
    if isinstance(condition, list):
        return Compare(field, "$in", tuple(condition))
    return Compare(field, "$eq", condition)


def _clauses(op: str, operand: Any) -> tuple[Expr, ...]:
    if not isinstance(operand, (list, tuple)):
        raise ValidationError(f"{op} needs a list of filters, got {operand!r:.60}")
    return tuple(_parse(clause) for clause in operand)


def _parse(spec: Any) -> Expr:
    if not isinstance(spec, Mapping):
        raise ValidationError(f"a filter must be a dict or a callable, got {type(spec).__name__}: {spec!r:.60}")
    parts: list[Expr] = []
    for key, condition in spec.items():
        if key == "$and":
            parts.append(And(_clauses(key, condition)))
        elif key == "$or":
            parts.append(Or(_clauses(key, condition)))
        elif key == "$not":
            parts.append(Not(_parse(condition)))
        elif isinstance(key, str) and key.startswith("$"):
            raise _unsupported(key, "at the top level")
        elif not isinstance(key, str) or not key:
            raise ValidationError(f"a filter's field names must be non-empty strings, got {key!r:.60}")
        else:
            parts.append(_field(key, condition))
    return parts[0] if len(parts) == 1 else And(tuple(parts))


def parse_filter(spec: Any) -> Optional[Expr]:
    """The expression tree of a dict filter; None for None or ``{}`` (no filter).

    Raises ValidationError for a malformed filter or an unknown operator. Callables are
    not expressions: see :func:`compile_filter`.
    """
    if spec is None or (isinstance(spec, Mapping) and not spec):
        return None
    return _parse(spec)


# ---------------------------------------------------------------------- Python evaluation

_MISSING = object()


_PLAIN_NUMBERS = (int, float)  # exact types: bool is an int subclass and must not pass


def _equals(operand: Any) -> Callable[[Any], bool]:
    """A test ``value == operand`` as JSON values; fast paths for the common operands
    (value_key alone costs a few calls per document)."""
    if isinstance(operand, str):
        return lambda v: isinstance(v, str) and v == operand
    if operand is None:
        return lambda v: v is None
    if type(operand) in _PLAIN_NUMBERS:
        return lambda v: (type(v) in _PLAIN_NUMBERS or is_number(v)) and bool(v == operand)
    key = value_key(operand)
    return lambda v: value_key(v) == key


def _member(operand: tuple[Any, ...]) -> Callable[[Any], bool]:
    """A test ``value in operand`` as JSON values (strings alone: one set lookup)."""
    if all(isinstance(item, str) for item in operand):
        strings = frozenset(operand)
        return lambda v: isinstance(v, str) and v in strings
    keys = frozenset(value_key(item) for item in operand)
    return lambda v: value_key(v) in keys


def _compare_predicate(node: Compare) -> Predicate:
    field, op, operand = node.field, node.op, node.value
    if op == "$exists":
        return lambda m: (field in m) == operand
    if op in ORDERINGS:
        compare = ORDERINGS[op]
        if isinstance(operand, str):
            return lambda m: isinstance(v := m.get(field), str) and compare(v, operand)
        if is_number(operand):  # a missing field reads as None: not a number
            return lambda m: (type(v := m.get(field)) in _PLAIN_NUMBERS or is_number(v)) and bool(compare(v, operand))
        return lambda m: False  # null, booleans, lists...: never ordered
    if op in ("$eq", "$ne") and isinstance(operand, str):
        # Only an equal string equals a string (and the missing marker equals nothing): one call.
        if op == "$eq":
            return lambda m: m.get(field, _MISSING) == operand
        return lambda m: m.get(field, _MISSING) != operand
    test = _equals(operand) if op in ("$eq", "$ne") else _member(operand)
    if op in ("$eq", "$in"):
        return lambda m: (v := m.get(field, _MISSING)) is not _MISSING and test(v)
    return lambda m: (v := m.get(field, _MISSING)) is _MISSING or not test(v)


def to_predicate(expr: Expr) -> Predicate:
    """A function ``metadata dict -> bool`` evaluating ``expr``."""
    if isinstance(expr, Compare):
        return _compare_predicate(expr)
    if isinstance(expr, Not):
        inner = to_predicate(expr.clause)
        return lambda m: not inner(m)
    parts = [to_predicate(clause) for clause in expr.clauses]
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:  # the common case (a range), without a generator per document
        first, second = parts
        return (lambda m: first(m) and second(m)) if isinstance(expr, And) else (lambda m: first(m) or second(m))
    if isinstance(expr, And):
        return lambda m: all(p(m) for p in parts)
    return lambda m: any(p(m) for p in parts)


def compile_filter(spec: Filter) -> Predicate | None:
    """A predicate over metadata dicts for a dict filter, the callable itself, or None.

    Raises ValidationError for a malformed filter or an unknown operator.
    """
    if callable(spec) and not isinstance(spec, Mapping):
        return spec  # type: ignore[return-value]
    expr = parse_filter(spec)
    return None if expr is None else to_predicate(expr)
