"""Tools in the OpenAI function-calling format, for ``bind_tools``."""

from __future__ import annotations

import inspect
import typing
from typing import Any, Callable, Optional, Sequence, Union

from rag.errors import ValidationError

__all__ = ["convert_to_openai_tool", "normalize_tool_choice"]

_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean",
                               list: "array", tuple: "array", dict: "object"}


def _json_type(annotation: Any) -> dict[str, Any]:
    origin = typing.get_origin(annotation)
    if origin is Union:
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _json_type(options[0]) if len(options) == 1 else {}
    if origin is typing.Literal:
        return {"enum": list(typing.get_args(annotation))}
    base = origin or annotation
    schema: dict[str, Any] = {"type": _JSON_TYPES[base]} if base in _JSON_TYPES else {}
    if base in (list, tuple) and typing.get_args(annotation):
        schema["items"] = _json_type(typing.get_args(annotation)[0])
    return schema


def _function_schema(func: Callable[..., Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(func)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, parameter in inspect.signature(func).parameters.items():
        if name in ("self", "cls", "config", "callbacks") or parameter.kind in (
            parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD
        ):
            continue
        properties[name] = _json_type(hints.get(name, Any))
        if parameter.default is parameter.empty:
            required.append(name)
    description = inspect.getdoc(func) or ""
    return {
        "name": func.__name__,
        "description": description.split("\n\n")[0].strip(),
        "parameters": {"type": "object", "properties": properties, "required": required},
    }


def _schema_of(args_schema: Any) -> dict[str, Any]:
    if isinstance(args_schema, dict):
        return args_schema
    if hasattr(args_schema, "model_json_schema"):  # a pydantic model class
        return args_schema.model_json_schema()
    raise ValidationError(f"args_schema must be a JSON schema dict or a pydantic model, got {args_schema!r:.60}")


def _parameters(schema: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k not in ("title", "description")}


def convert_to_openai_tool(tool: Any) -> dict[str, Any]:
    """``{"type": "function", "function": {"name", "description", "parameters"}}`` from an
    OpenAI tool dict, a function dict, a JSON schema with a ``title``, a tool object (``name``,
    ``description``, ``args_schema``), a pydantic model class, or a typed Python function.

    >>> def search(query: str, k: int = 4):
    ...     '''Search the docs.'''
    >>> convert_to_openai_tool(search)["function"]["parameters"]["required"]
    ['query']
    """
    if isinstance(tool, dict):
        if tool.get("type") == "function" and isinstance(tool.get("function"), dict):
            return tool
        if "name" in tool and ("parameters" in tool or "description" in tool):
            return {"type": "function", "function": {"parameters": {"type": "object", "properties": {}}, **tool}}
        if "title" in tool:
            return {"type": "function", "function": {"name": tool["title"], "description": tool.get("description", ""),
                                                     "parameters": _parameters(tool)}}
    elif hasattr(tool, "name") and hasattr(tool, "description") and not inspect.isclass(tool):
        schema = getattr(tool, "tool_call_schema", None) or getattr(tool, "args_schema", None)
        parameters = _parameters(_schema_of(schema)) if schema is not None else {"type": "object", "properties": {}}
        return {"type": "function", "function": {"name": tool.name, "description": tool.description or "",
                                                 "parameters": parameters}}
    elif inspect.isclass(tool) and hasattr(tool, "model_json_schema"):
        schema = tool.model_json_schema()
        return {"type": "function", "function": {"name": tool.__name__, "description": inspect.getdoc(tool) or "",
                                                 "parameters": _parameters(schema)}}
    elif inspect.isfunction(tool) or inspect.ismethod(tool):
        return {"type": "function", "function": _function_schema(tool)}
    raise ValidationError(
        f"cannot use {type(tool).__name__} {tool!r:.60} as a tool; pass a function with type hints, a tool object, "
        "a pydantic model or an OpenAI tool dict"
    )


def normalize_tool_choice(tool_choice: Any, tools: Sequence[dict[str, Any]]) -> Optional[Any]:
    """OpenAI's ``tool_choice`` from LangChain's forms: None (server default), "auto",
    "none", "required"/"any", True (the only tool), a tool name, or a dict as is."""
    names = [t["function"]["name"] for t in tools]
    if tool_choice is None or isinstance(tool_choice, dict):
        return tool_choice
    if tool_choice is True:
        if len(names) != 1:
            raise ValidationError(f"tool_choice=True needs exactly one tool, got {len(names)}: {names}")
        tool_choice = names[0]
    if tool_choice in ("auto", "none", "required"):
        return tool_choice
    if tool_choice == "any":
        return "required"
    if isinstance(tool_choice, str):
        if tool_choice not in names:
            raise ValidationError(
                f"tool_choice {tool_choice!r} is not one of the bound tools {names}, nor 'auto', 'none', 'required'"
            )
        return {"type": "function", "function": {"name": tool_choice}}
    raise ValidationError(f"tool_choice must be None, a str, True or a dict, got {tool_choice!r}")
