"""Milvus boolean expressions for filter trees, and the checks on what Milvus can store.

Each collection keeps a document's metadata twice: as given, in the JSON field
``metadata`` (what searches return and most comparisons read), and in the JSON field
``shadow``, where every value Milvus 2.3 cannot compare in an expression (``None``, lists,
dicts) is kept as its canonical JSON text. A filter then translates to an expression that
reproduces :mod:`stores.filters` exactly, as checked on Milvus 2.3.5:

- ``metadata["f"] == 2020`` matches 2020 and 2020.0 but not ``"2020"`` or ``true``; a
  comparison on a missing field is false, so ``not (...)`` is the complement, as in the
  reference (``$ne`` and ``$nin`` match a missing field).
- Orderings compare numbers with numbers and strings with strings (byte order of UTF-8,
  which is code-point order); a bool is not a number there.
- ``None``, lists and dicts compare through ``shadow["f"] == "<canonical JSON>"`` (Milvus
  has no null literal and no object literal); an ``$in`` list is split by kind, because a
  list mixing ints with floats or strings makes the 2.3 query node fail an assertion.
- Strings are written with ``\\\\``, ``\\"``, ``\\n``, ``\\r`` and ``\\t`` escapes only (the
  parser does not decode ``\\uXXXX``); other control characters are refused, naming the value.
- ±infinity has no literal: ``$lt inf`` becomes "is a number" (``>= -1.79e308``).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Mapping, Optional

from rag.errors import ValidationError
from stores.filters import And, Compare, Expr, Not, Or, is_number

__all__ = ["expression", "row_fields", "canonical", "check_text", "string_literal", "id_list", "RawExpr",
           "one_filter", "MAX_VARCHAR_BYTES", "MAX_JSON_BYTES", "ALWAYS", "NEVER"]

#: Milvus's VARCHAR limit (ids and texts), in UTF-8 bytes.
MAX_VARCHAR_BYTES = 65535
#: Milvus's default limit for one JSON value (``proxy.maxJSONLength`` is not set lower here).
MAX_JSON_BYTES = 65536
_INT64 = 2**63
_LARGEST = "1.7976931348623157e308"  # the largest float: "is a number" is ">= -_LARGEST"
ALWAYS = 'not (id in [])'
NEVER = 'id in []'
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNSAFE = re.compile(r"[\\\"\n\r\t]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ORDER = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}


def string_literal(text: str, what: str) -> str:
    """``text`` as a Milvus string literal (see the module docstring for the escapes)."""
    if _CONTROL.search(text):
        raise ValidationError(f"{what} {text!r:.60} contains a control character that Milvus expressions cannot hold")
    return '"' + _UNSAFE.sub(lambda match: _ESCAPES[match.group()], text) + '"'


def _plain(value: Any) -> Any:
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        return value.item()
    raise TypeError(f"{type(value).__name__} {value!r:.60} is not a JSON value")


def _normalised(value: Any) -> Any:
    """``value`` with integral floats as ints (``1.0`` and ``1`` are one JSON value)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, (list, tuple)):
        return [_normalised(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _normalised(item) for key, item in value.items()}
    return value


def canonical(value: Any) -> str:
    """The JSON text under which two values are equal exactly when they are equal JSON
    values (sorted keys, integral floats as ints)."""
    return json.dumps(_normalised(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False, default=_plain)


def _number(value: Any) -> str:
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float) and value.is_integer() and abs(value) < _INT64:
        value = int(value)  # "2022" matches 2022.0 too; an int list must not hold floats
    return repr(_within_64_bits(value))


def _within_64_bits(value: Any) -> Any:
    """``value``, or as a float (±inf past the floats) when it is an int beyond 64 bits:
    Milvus cannot parse such an integer, and no stored int is one."""
    if isinstance(value, int) and not isinstance(value, bool) and not -_INT64 <= value < _INT64:
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    return value


def _path(field: str, column: str = "metadata") -> str:
    return f"{column}[{string_literal(field, 'the filter field')}]"


def _equal_any(field: str, values: tuple[Any, ...]) -> str:
    """``field`` equals one of ``values``, each kind in its own ``in`` list."""
    ints, floats, strings, bools, others = [], [], [], [], []
    for value in values:
        if isinstance(value, str):
            strings.append(string_literal(value, f"the filter value on {field!r}"))
        elif isinstance(value, bool) or (type(value).__module__ == "numpy" and type(value).__name__ == "bool_"):
            bools.append("true" if value else "false")
        elif is_number(value):
            wide = _within_64_bits(value)
            if wide != value or (isinstance(value, float) and not math.isfinite(value)):
                continue  # no stored value is infinite (NaN equals nothing) or an int no float equals
            text = _number(value)
            (floats if "." in text or "e" in text else ints).append(text)
        else:
            others.append(_shadow_literal(value, field))
    parts = [f"{_path(field)} in [{', '.join(group)}]" for group in (ints, floats, strings, bools) if group]
    if others:
        parts.append(f"{_path(field, 'shadow')} in [{', '.join(others)}]")
    return " or ".join(f"({part})" for part in parts) if parts else NEVER


def _shadow_literal(value: Any, field: str) -> str:
    try:
        return string_literal(canonical(value), f"the filter value on {field!r}")
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"the filter value {value!r:.60} on {field!r} is not a JSON value: {exc}") from None


def _compare(node: Compare) -> str:
    field, op, operand = node.field, node.op, node.value
    if op == "$exists":
        test = f"exists {_path(field)}"
        return test if operand else f"not ({test})"
    if op in ("$eq", "$ne"):
        test = _equal_any(field, (operand,))
        return test if op == "$eq" else f"not ({test})"
    if op in ("$in", "$nin"):
        test = _equal_any(field, operand)
        return test if op == "$in" else f"not ({test})"
    symbol = _ORDER[op]
    if isinstance(operand, str):
        return f"{_path(field)} {symbol} {string_literal(operand, f'the filter value on {field!r}')}"
    if is_number(operand):
        operand = _within_64_bits(operand)
        if isinstance(operand, float) and math.isinf(operand):
            below = (operand > 0) == (op in ("$lt", "$lte"))  # every number is below +inf, above -inf
            return f"{_path(field)} >= -{_LARGEST}" if below else NEVER
        return f"{_path(field)} {symbol} {_number(operand)}"
    return NEVER  # an ordering against null, a bool, a list...: never matches


def expression(expr: Expr) -> str:
    """The Milvus boolean expression equivalent to ``expr`` (see the module docstring)."""
    if isinstance(expr, Compare):
        return _compare(expr)
    if isinstance(expr, Not):
        return f"not ({expression(expr.clause)})"
    if not expr.clauses:
        return ALWAYS if isinstance(expr, And) else NEVER
    joiner = " and " if isinstance(expr, And) else " or "
    return joiner.join(f"({expression(clause)})" for clause in expr.clauses)


def id_list(ids: list[str]) -> str:
    """The expression matching the rows whose id is one of ``ids``."""
    return f"id in [{', '.join(string_literal(i, 'the id') for i in ids)}]"


class RawExpr:
    """A raw Milvus boolean expression given as a filter (the escape hatch)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def one_filter(filter: Any, expr: Optional[str]) -> Any:
    """The one of ``filter`` and langchain-milvus's ``expr=`` that was given (ValidationError for both)."""
    if expr is None:
        return filter
    if filter is not None:
        raise ValidationError("pass a filter or expr=, not both")
    if not isinstance(expr, str):
        raise ValidationError(f"expr must be a Milvus boolean expression (a str), got {type(expr).__name__}")
    return expr


def check_text(text: str, what: str) -> None:
    """Refuse a text or id longer than Milvus's VARCHAR limit, before anything is written."""
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise ValidationError(f"{what} {text[max(0, exc.start - 20):exc.end + 20]!r} holds {text[exc.start]!r}, a lone "
                              "surrogate, which is not Unicode text; Milvus stores UTF-8") from None
    if size > MAX_VARCHAR_BYTES:
        raise ValidationError(f"{what} is {size} bytes of UTF-8; Milvus stores at most {MAX_VARCHAR_BYTES}; "
                              "split it into smaller chunks")


def _check_value(value: Any, position: int, path: str) -> Any:
    """``value`` as plain JSON data; a ValidationError names what Milvus cannot store."""
    value = _plain(value) if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0 else value
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        if not -_INT64 <= value < _INT64:
            raise ValidationError(f"metadatas[{position}]{path} is {value}, outside Milvus's 64-bit integers")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValidationError(f"metadatas[{position}]{path} is {value}; Milvus's JSON has no NaN or infinity")
        return value
    if isinstance(value, (list, tuple)):
        return [_check_value(item, position, f"{path}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, Mapping):
        result = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValidationError(f"metadatas[{position}]{path} has the key {key!r:.60} ({type(key).__name__}); "
                                      "Milvus stores metadata as JSON, whose keys are strings")
            result[key] = _check_value(item, position, f"{path}[{key!r}]")
        return result
    raise ValidationError(f"metadatas[{position}]{path} is {type(value).__name__} {value!r:.60}, which Milvus cannot "
                          "store; use strings, finite numbers, booleans, None, lists and dicts")


def row_fields(metadata: Mapping[str, Any], position: int) -> tuple[dict[str, Any], dict[str, str]]:
    """``(metadata, shadow)`` for one row: the metadata as plain JSON data and the
    canonical JSON of its None, list and dict values (see the module docstring).

    Raises ValidationError naming the row and value Milvus cannot store."""
    plain = _check_value(metadata, position, "")
    shadow = {key: canonical(value) for key, value in plain.items() if value is None or isinstance(value, (list, dict))}
    try:
        size = max(len(json.dumps(value, ensure_ascii=False).encode()) for value in (plain, shadow))
    except UnicodeEncodeError as exc:
        raise ValidationError(f"metadatas[{position}] holds a lone surrogate ({exc.object[exc.start]!r}), which is not "
                              "Unicode text; Milvus stores UTF-8") from None
    if size > MAX_JSON_BYTES:
        raise ValidationError(f"metadatas[{position}] is {size} bytes as JSON; Milvus stores at most {MAX_JSON_BYTES}")
    return plain, shadow
