"""JSON schemas for tools: built from a typed function, and used to check call arguments.

The schemas have the shape pydantic gives LangChain's tools, minus the per-field titles
(which ``to_openai_tool`` drops anyway): ``Optional[X]`` is ``anyOf [X, null]``, defaults
are listed, docstring ``Args:`` lines become property descriptions.
"""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from typing import Any, Callable, Optional, Union

from rag.errors import ValidationError
from rag.models._tools import _json_type
from rag.tools.injected import injected_parameters

__all__ = ["function_schema", "parse_docstring", "check_arguments", "INJECTED_PARAMETERS"]

# Parameters a tool function may declare to receive run plumbing rather than model input.
INJECTED_PARAMETERS = frozenset({"self", "cls", "config", "callbacks", "run_manager"})

_ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Returns|Return|Raises|Yields|Examples?|Notes?)\s*:\s*$")


def parse_docstring(docstring: str) -> tuple[str, dict[str, str]]:
    """The summary of a Google-style docstring and its ``Args:`` descriptions.

    >>> parse_docstring("Add.\\n\\nArgs:\\n    a: first\\n    b (int): second\\n")
    ('Add.', {'a': 'first', 'b': 'second'})
    """
    lines = inspect.cleandoc(docstring or "").splitlines()
    summary: list[str] = []
    args: dict[str, str] = {}
    section: Optional[str] = None
    current: Optional[str] = None
    for line in lines:
        heading = _SECTION.match(line)
        if heading:
            section, current = heading.group(1), None
            continue
        if section is None:
            summary.append(line)
        elif section in ("Args", "Arguments", "Parameters") and line.strip():
            match = _ARG_LINE.match(line)
            indented_more = current is not None and len(line) - len(line.lstrip()) > 4
            if match and not indented_more:
                current = match.group(1).lstrip("*")
                args[current] = match.group(2).strip()
            elif current is not None:  # a continuation line of the previous argument
                args[current] = f"{args[current]} {line.strip()}".strip()
    return "\n".join(summary).strip(), args


def _property(annotation: Any) -> dict[str, Any]:
    if typing.get_origin(annotation) in (Union, types.UnionType):
        options = typing.get_args(annotation)
        if type(None) in options:
            rest = [option for option in options if option is not type(None)]
            inner = _property(rest[0]) if len(rest) == 1 else {"anyOf": [_property(o) for o in rest]}
            return {"anyOf": [inner, {"type": "null"}]}
        return {"anyOf": [_property(option) for option in options]}
    return _json_type(annotation)


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _parameter_hints(func: Callable[..., Any]) -> dict[str, Any]:
    """``func``'s type hints; when one of them cannot be resolved (a user's function naming
    a class imported only for type checkers), each parameter's on its own, an unresolvable
    one taken as ``Any`` (any JSON value) rather than failing the tool."""
    try:
        return typing.get_type_hints(func)
    except NameError:
        pass
    namespace = getattr(inspect.unwrap(func), "__globals__", None)
    hints: dict[str, Any] = {}
    for name, annotation in getattr(func, "__annotations__", {}).items():
        if name == "return":
            continue
        holder = type("_OneHint", (), {"__annotations__": {name: annotation}})
        try:
            hints[name] = typing.get_type_hints(holder, globalns=namespace)[name]
        except NameError:
            hints[name] = Any
    return hints


def function_schema(func: Callable[..., Any], name: str, descriptions: Optional[dict[str, str]] = None) -> dict[str, Any]:
    """The JSON schema of ``func``'s arguments (from its type hints), titled ``name``.

    Parameters named ``config``, ``callbacks`` or ``run_manager`` are left out: the tool
    passes them itself. An argument without a type hint accepts any JSON value.
    """
    hints = _parameter_hints(func)
    injected = injected_parameters(func)  # state, store, call id...: the caller's to give, not the model's
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter in inspect.signature(func).parameters.values():
        if parameter.name in INJECTED_PARAMETERS or parameter.name in injected \
                or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        prop = dict(_property(hints.get(parameter.name, Any)))
        if descriptions and parameter.name in descriptions:
            prop["description"] = descriptions[parameter.name]
        if parameter.default is parameter.empty:
            required.append(parameter.name)
        elif _jsonable(parameter.default):
            prop["default"] = parameter.default
        properties[parameter.name] = prop
    schema: dict[str, Any] = {"title": name, "type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "array": (list, tuple), "object": (dict,), "null": (type(None),),
}


def _matches(value: Any, prop: dict[str, Any]) -> bool:
    if "anyOf" in prop:
        return any(_matches(value, option) for option in prop["anyOf"])
    if "enum" in prop:
        return value in prop["enum"]
    kind = prop.get("type")
    if kind not in _PYTHON_TYPES:
        return True  # no type stated (or one we do not check): accept
    if isinstance(value, bool) and kind in ("integer", "number"):
        return False
    return isinstance(value, _PYTHON_TYPES[kind])


def check_arguments(tool_name: str, schema: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """``args`` if they fit ``schema`` (required present, no unknown names, simple types right);
    otherwise a :class:`~rag.errors.ValidationError` naming each problem."""
    properties: dict[str, Any] = schema.get("properties", {})
    problems = [f"missing required argument {name!r}" for name in schema.get("required", []) if name not in args]
    problems += [f"unexpected argument {name!r}" for name in args if name not in properties]
    problems += [
        f"argument {name!r} must be {properties[name].get('type') or properties[name]}, got {type(value).__name__} {value!r:.40}"
        for name, value in args.items()
        if name in properties and not _matches(value, properties[name])
    ]
    if problems:
        raise ValidationError(
            f"invalid arguments for tool {tool_name!r}: {'; '.join(problems)}. It takes {sorted(properties)}"
        )
    return args
