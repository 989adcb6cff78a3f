"""A small, dependency-free subset of jq paths, for :class:`JSONLoader`.

Supported: ``.`` (the input), ``.key`` and ``."any key"``, ``["key"]``, ``[]`` (iterate an
array's elements or an object's values), ``[n]`` (array index, negative from the end), in
any chain such as ``.data.items[].text`` or ``.[0].title``. Semantics follow jq: a missing
key or an out-of-range index gives ``null``; indexing ``null`` gives ``null``; iterating
``null`` or a scalar is an error. Anything else (pipes, filters, functions, ``?``, slices)
is rejected when parsed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rag.errors import ValidationError

__all__ = ["Key", "Index", "Iterate", "Step", "parse", "render", "evaluate"]

SUPPORTED = '.  .key  .key.sub  .[]  .key[]  .key[].sub  .key[0]  ."quoted key"'


@dataclass(frozen=True)
class Key:
    """Look up ``name`` in an object."""

    name: str


@dataclass(frozen=True)
class Index:
    """Take element ``position`` of an array (negative counts from the end)."""

    position: int


@dataclass(frozen=True)
class Iterate:
    """Yield every element of an array or every value of an object."""


Step = Key | Index | Iterate

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INTEGER = re.compile(r"-?[0-9]+")
# A JSON string literal: jq's quoted keys use the same escapes.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _unsupported(schema: str, position: int, why: str) -> ValidationError:
    return ValidationError(
        f"Unsupported jq_schema {schema!r}: {why} at character {position}. "
        f"Without the jq package only paths are supported: {SUPPORTED}"
    )


def parse(schema: str) -> tuple[Step, ...]:
    """The steps of ``schema``; ``()`` for ``.``. Raises ValidationError naming the schema.

    >>> parse(".data[].text")
    (Key(name='data'), Iterate(), Key(name='text'))
    """
    if not isinstance(schema, str):
        raise ValidationError(f"jq_schema must be a str, got {type(schema).__name__}: {schema!r}")
    text = schema.strip()
    if not text.startswith("."):
        raise _unsupported(schema, 0, "a path must start with '.'")
    if text == ".":
        return ()
    steps: list[Step] = []
    position = 0
    while position < len(text):
        char = text[position]
        if char == ".":
            position += 1
            if position < len(text) and text[position] == "[":
                continue  # ".[" is the same as "[" after a dot
            match = _IDENTIFIER.match(text, position) or _STRING.match(text, position)
            if match is None:
                raise _unsupported(schema, position, "expected a key after '.'")
            steps.append(Key(_key_text(match.group())))
            position = match.end()
        elif char == "[":
            position, step = _parse_bracket(schema, text, position)
            steps.append(step)
        else:
            raise _unsupported(schema, position, f"unexpected {char!r}")
    return tuple(steps)


def _parse_bracket(schema: str, text: str, position: int) -> tuple[int, Step]:
    inner_start = position + 1
    if text.startswith("]", inner_start):
        return inner_start + 1, Iterate()
    match = _INTEGER.match(text, inner_start) or _STRING.match(text, inner_start)
    if match is None or not text.startswith("]", match.end()):
        raise _unsupported(schema, position, 'expected [], [n] or ["key"]')
    token = match.group()
    step: Step = Key(_key_text(token)) if token.startswith('"') else Index(int(token))
    return match.end() + 1, step


def _key_text(token: str) -> str:
    return json.loads(token) if token.startswith('"') else token


def render(steps: tuple[Step, ...]) -> str:
    """The schema text for ``steps``; ``parse(render(steps)) == steps``."""
    if not steps:
        return "."
    parts = []
    for step in steps:
        if isinstance(step, Key):
            plain = _IDENTIFIER.fullmatch(step.name) is not None
            parts.append("." + (step.name if plain else json.dumps(step.name)))
        elif isinstance(step, Index):
            parts.append(f"[{step.position}]")
        else:
            parts.append("[]")
    text = "".join(parts)
    return text if text.startswith(".") else "." + text


def evaluate(steps: tuple[Step, ...], data: Any, *, schema: str = "") -> Iterator[Any]:
    """Yield every value ``steps`` select from ``data``, in document order.

    Type errors raise ValidationError naming ``schema``, the step and the type found.

    >>> list(evaluate(parse(".a[].b"), {"a": [{"b": 1}, {"b": 2}]}))
    [1, 2]
    """
    values: list[Any] = [data]
    for number, step in enumerate(steps):
        produced: list[Any] = []
        for value in values:
            if isinstance(step, Iterate):
                if isinstance(value, list):
                    produced.extend(value)
                elif isinstance(value, dict):
                    produced.extend(value.values())
                else:
                    raise _type_error(schema, steps, number, "iterate over", value)
            elif value is None:
                produced.append(None)
            elif isinstance(step, Key):
                if not isinstance(value, dict):
                    raise _type_error(schema, steps, number, f"look up key {step.name!r} in", value)
                produced.append(value.get(step.name))
            else:
                if not isinstance(value, list):
                    raise _type_error(schema, steps, number, f"index {step.position} into", value)
                in_range = -len(value) <= step.position < len(value)
                produced.append(value[step.position] if in_range else None)
        values = produced
    yield from values


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def _article(value: Any) -> str:
    name = _json_type(value)
    return f"an {name}" if name in ("object", "array") else f"a {name}"


def _type_error(
    schema: str, steps: tuple[Step, ...], number: int, action: str, value: Any
) -> ValidationError:
    where = render(steps[: number + 1])
    return ValidationError(
        f"jq_schema {schema or render(steps)!r} cannot {action} {_article(value)} "
        f"(at {where!r}): {json.dumps(value)[:80]}"
    )
