"""Request checks: bodies, inputs against the runnable's JSON Schema, and configs.

Stricter than LangServe, which drops unknown config keys silently and answers 500 when a
required configurable value is missing: here a bad body or input is a
:class:`RequestError` with status 422 naming the field, and a bad config one with status
400. The JSON Schema check covers the keywords our schemas use (``type``, ``properties``,
``required``, ``items``, ``prefixItems``, ``anyOf``/``oneOf``, ``enum``, ``const``,
``additionalProperties``, ``minItems``/``maxItems``, ``minimum``, local ``$ref``).
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Sequence

from rag.errors import ValidationError

if TYPE_CHECKING:
    from rag.runnables import ConfigurableFieldSpec

__all__ = ["loads_json", "MAX_JSON_DEPTH", "check_text_lengths", "RequestError", "check_schema", "check_body", "check_config", "CONFIG_KEYS"]

# The RunnableConfig keys a request may carry (LangServe's client sends some on every call).
CONFIG_KEYS = ("tags", "metadata", "run_name", "run_id", "max_concurrency", "recursion_limit", "configurable")

# "\ud800".."\udfff" escapes: the only way a lone surrogate gets into parsed JSON.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")

#: How deep arrays and objects may nest in a request body (default 64 levels: a chat
#: history or a metadata filter needs a handful). Deeper JSON is refused before anything
#: walks it: Python's parser fails near 1,000 levels, and code that walks a parsed value
#: (schemas, codecs, replies) recurses too.
MAX_JSON_DEPTH = 64
_MAX_DIGITS = 1000


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:20]}{'...' if len(text) > 20 else ''} is out of range for a float")
    return value


def _int(text: str) -> int:
    # Python refuses past 4,300 digits anyway, with advice for the server's operator.
    if len(text.lstrip("-")) > _MAX_DIGITS:
        raise ValueError(f"a number has {len(text.lstrip('-'))} digits; at most {_MAX_DIGITS} are accepted")
    return int(text)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _depth_over(value: Any, limit: int) -> bool:
    """Whether arrays/objects in ``value`` nest more than ``limit`` deep (iterative: a walk
    that recursed would fail on the very input it checks)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def loads_json(raw: bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``raw`` parsed as JSON, or ValueError naming what is wrong.

    Stricter than :func:`json.loads` where its leniency lets bad text through: the bytes
    must be UTF-8 (``json.loads`` of bytes decodes with ``surrogatepass``, so the raw
    surrogate ``\xed\xa0\x80`` became a string no reply could encode); arrays and objects
    nest at most ``max_depth`` levels (default :data:`MAX_JSON_DEPTH`); numbers are finite
    (``1e999`` is not infinity, ``NaN`` is not JSON) and integers have at most 1,000 digits. JSON may also escape a lone UTF-16
    surrogate (``"\ud800"``), which no UTF-8 text holds: refused, as the reply that echoes
    it (or a store that saves it) could not encode it later. Escaped surrogate pairs are fine."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at offset {exc.start} ({exc.reason})") from None
    try:
        value = json.loads(text, parse_float=_finite, parse_int=_int, parse_constant=_refuse_constant)
    except RecursionError:
        raise ValueError(f"arrays or objects nest more than {max_depth} levels deep") from None
    if _depth_over(value, max_depth):
        raise ValueError(f"arrays or objects nest more than {max_depth} levels deep")
    if _SURROGATE_ESCAPE.search(raw):  # rare: only then pay for the re-encoding check
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"a string holds a lone UTF-16 surrogate {exc.object[exc.start]!r}, "
                             "which is not Unicode text") from None
    return value


def check_text_lengths(value: Any, limit: int, loc: Sequence[Any] = ("input",)) -> Optional[tuple[list[Any], int]]:
    """The path and length of the first string in ``value`` (parsed JSON: dict keys are not
    counted) longer than ``limit`` characters, or None when every one fits."""
    stack: list[tuple[Any, list[Any]]] = [(value, list(loc))]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if len(item) > limit:
                return where, len(item)
        elif isinstance(item, dict):
            stack.extend((child, [*where, key]) for key, child in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((child, [*where, i]) for i, child in reversed(list(enumerate(item))))
    return None


class RequestError(ValidationError):
    """A request the server refuses: ``status`` (400 or 422), the JSON path ``loc`` of the
    bad field and a message."""

    def __init__(self, status: int, loc: Sequence[Any], message: str, kind: str = "value_error") -> None:
        super().__init__(f"{'.'.join(map(str, loc)) or 'body'}: {message}")
        self.status = status
        self.loc = list(loc)
        self.msg = message
        self.kind = kind

    def to_json(self) -> dict[str, Any]:
        """FastAPI's error shape: ``{"detail": [{"type", "loc", "msg"}]}``."""
        return {"detail": [{"type": self.kind, "loc": self.loc, "msg": self.msg}]}


_TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


@dataclass
class _Failure:
    loc: list[Any]
    message: str
    kind: str


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        return target
    return schema


def _first_failure(value: Any, schema: dict[str, Any], root: dict[str, Any], loc: list[Any]) -> Optional[_Failure]:
    schema = _resolve(schema, root)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            failures = [_first_failure(value, option, root, loc) for option in schema[key]]
            found = [failure for failure in failures if failure is not None]
            if len(found) == len(failures):  # every form refuses the value
                # The deepest failure names the field best (e.g. a message's missing content).
                deepest = max(found, key=lambda f: len(f.loc))
                if len(deepest.loc) > len(loc):
                    return deepest
                return _Failure(loc, f"{_short(value)} matches none of the allowed forms", "type_error")
    expected = schema.get("type")
    if isinstance(expected, str) and expected in _TYPES and not _TYPES[expected](value):
        return _Failure(loc, f"expected {expected}, got {type(value).__name__} {_short(value)}", f"{expected}_type")
    if "enum" in schema and value not in schema["enum"]:
        return _Failure(loc, f"expected one of {schema['enum']}, got {_short(value)}", "enum")
    if "const" in schema and value != schema["const"]:
        return _Failure(loc, f"expected {schema['const']!r}, got {_short(value)}", "literal_error")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and "minimum" in schema \
            and value < schema["minimum"]:
        return _Failure(loc, f"must be >= {schema['minimum']}, got {value}", "greater_than_equal")
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                return _Failure([*loc, name], "field required", "missing")
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                failure = _first_failure(item, properties[name], root, [*loc, name])
            elif extra is False:
                failure = _Failure([*loc, name], "unexpected field", "extra_forbidden")
            elif isinstance(extra, dict):
                failure = _first_failure(item, extra, root, [*loc, name])
            else:
                failure = None
            if failure:
                return failure
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            return _Failure(loc, f"expected at least {schema['minItems']} items, got {len(value)}", "too_short")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return _Failure(loc, f"expected at most {schema['maxItems']} items, got {len(value)}", "too_long")
        prefix = schema.get("prefixItems", [])
        for index, item in enumerate(value):
            item_schema = prefix[index] if index < len(prefix) else schema.get("items")
            if isinstance(item_schema, dict):
                failure = _first_failure(item, item_schema, root, [*loc, index])
                if failure:
                    return failure
    return None


def check_schema(value: Any, schema: dict[str, Any], loc: Sequence[Any] = ("input",), *, status: int = 422) -> None:
    """Raise :class:`RequestError` (``status``) at the first part of ``value`` that does not
    fit ``schema``; the error names its path, e.g. ``input.topic: field required``."""
    failure = _first_failure(value, schema, schema, list(loc))
    if failure:
        raise RequestError(status, failure.loc, failure.message, failure.kind)


def check_body(body: Any, required: str, optional: Sequence[str]) -> dict[str, Any]:
    """The request body as a dict with key ``required`` and only keys in ``optional``."""
    if not isinstance(body, dict):
        raise RequestError(422, [], f"the body must be a JSON object, got {type(body).__name__}", "dict_type")
    if required not in body:
        raise RequestError(422, [required], "field required", "missing")
    unknown = [key for key in body if key != required and key not in optional]
    if unknown:
        raise RequestError(422, [unknown[0]], f"unexpected field; expected {[required, *optional]}", "extra_forbidden")
    kwargs = body.get("kwargs")
    if kwargs not in (None, {}):
        # Call keyword arguments reach model and store calls: not something a client may set.
        raise RequestError(422, ["kwargs"], "call keyword arguments are not accepted; send {} or leave it out")
    return body


_CONFIG_SCHEMA: dict[str, dict[str, Any]] = {
    "tags": {"type": "array", "items": {"type": "string"}},
    "metadata": {"type": "object"},
    "run_name": {"type": "string"},
    "max_concurrency": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
    "recursion_limit": {"type": "integer", "minimum": 1},
    "configurable": {"type": "object"},
}


def check_config(config: Any, specs: Sequence[ConfigurableFieldSpec], loc: Sequence[Any] = ("config",)
                 ) -> dict[str, Any]:
    """A request's config, checked (400): only RunnableConfig keys, values of the right
    type, ``configurable`` keys the runnable declares (``specs``) and every required one.
    ``run_id`` becomes a :class:`uuid.UUID`. None is an empty config."""
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise RequestError(400, list(loc), f"config must be an object, got {type(config).__name__}", "dict_type")
    for key, value in config.items():
        if key not in CONFIG_KEYS:
            raise RequestError(400, [*loc, key], f"unknown config key; allowed keys are {list(CONFIG_KEYS)}",
                               "extra_forbidden")
        if key in _CONFIG_SCHEMA and value is not None:
            check_schema(value, _CONFIG_SCHEMA[key], [*loc, key], status=400)
    checked = {key: value for key, value in config.items() if value is not None}
    if "run_id" in checked:
        try:
            checked["run_id"] = uuid.UUID(str(checked["run_id"]))
        except ValueError:
            raise RequestError(400, [*loc, "run_id"], f"expected a UUID, got {_short(checked['run_id'])}",
                               "uuid_parsing") from None
    declared = {spec.id: spec for spec in specs}
    configurable = checked.get("configurable") or {}
    for key in configurable:
        if key not in declared:
            raise RequestError(400, [*loc, "configurable", key],
                               f"this runnable has no configurable field {key!r}; it declares {sorted(declared)}",
                               "extra_forbidden")
    for spec in specs:
        if getattr(spec, "required", False) and spec.id not in configurable:
            raise RequestError(400, [*loc, "configurable", spec.id], "required configurable field missing", "missing")
    return checked
