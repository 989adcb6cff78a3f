"""``with_structured_output``: a chat model that answers with data of a given schema.

A schema is a pydantic model class, a dataclass, a TypedDict or a JSON schema dict (with a
``title``); :func:`output_schema` reads any of them into one :class:`OutputSchema`, which
``create_agent(response_format=...)`` uses too. Methods: ``"function_calling"`` (default:
the schema is offered as the one tool the model must call), ``"json_schema"`` (OpenAI's
``response_format={"type": "json_schema", ...}``, strict) and ``"json_mode"``
(``{"type": "json_object"}``; say the fields in the prompt).

>>> from typing import TypedDict
>>> class Weather(TypedDict):
...     city: str
...     degrees: int
>>> output_schema(Weather).json_schema["required"]
['city', 'degrees']
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import typing
from dataclasses import dataclass
from typing import Any, Callable, Literal, Optional

from rag.errors import InvalidTypeError, ValidationError
from rag.messages import AIMessage

__all__ = ["OutputSchema", "output_schema", "with_structured_output", "StructuredOutputError"]

Method = Literal["function_calling", "json_schema", "json_mode"]
METHODS = ("function_calling", "json_schema", "json_mode")


class StructuredOutputError(ValidationError):
    """The model's answer could not be read as the schema; ``raw`` is the reply."""

    def __init__(self, message: str, raw: Any = None) -> None:
        super().__init__(message)
        self.raw = raw


@dataclass(frozen=True)
class OutputSchema:
    """A schema read once: its ``name`` and ``description`` (for the tool the model calls),
    its ``json_schema`` and ``parse`` (JSON data -> the caller's type, raising on a misfit)."""

    name: str
    description: str
    json_schema: dict[str, Any]
    parse: Callable[[Any], Any]
    source: Any = None


def _typed_dict_like(schema: type) -> bool:
    """A TypedDict from typing_extensions (which typing.is_typeddict does not know on 3.11)."""
    return issubclass(schema, dict) and hasattr(schema, "__required_keys__") and hasattr(schema, "__annotations__")


def _typed_dict_schema(schema: type) -> dict[str, Any]:
    from rag.tools._schema import _property

    hints = typing.get_type_hints(schema)
    required = sorted(getattr(schema, "__required_keys__", hints))
    return {"type": "object", "properties": {k: _property(v) for k, v in hints.items()},
            "required": [k for k in hints if k in required]}


def _check_object(data: Any, schema: dict[str, Any], name: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValidationError(f"{name} must be a JSON object, got {type(data).__name__}: {data!r:.80}")
    missing = [k for k in schema.get("required", []) if k not in data]
    if missing:
        raise ValidationError(f"{name} is missing required field(s) {missing}")
    from rag.tools._schema import check_arguments

    return check_arguments(name, schema, data)


def output_schema(schema: Any) -> OutputSchema:
    """``schema`` (pydantic model class, dataclass, TypedDict or JSON schema dict) read;
    anything else raises naming the value."""
    if isinstance(schema, OutputSchema):
        return schema
    doc = (inspect.getdoc(schema) or "") if isinstance(schema, type) else ""
    if isinstance(schema, type) and hasattr(schema, "model_json_schema") and hasattr(schema, "model_validate"):
        js = schema.model_json_schema()
        return OutputSchema(schema.__name__, js.get("description", doc), js, schema.model_validate, schema)
    if isinstance(schema, type) and dataclasses.is_dataclass(schema):
        from rag.tools._schema import function_schema

        js = {k: v for k, v in function_schema(schema, schema.__name__).items() if k != "title"}
        return OutputSchema(schema.__name__, "" if doc.startswith(f"{schema.__name__}(") else doc, js,
                            lambda data: schema(**_check_object(data, js, schema.__name__)), schema)
    if isinstance(schema, type) and (typing.is_typeddict(schema) or _typed_dict_like(schema)):
        js = _typed_dict_schema(schema)
        return OutputSchema(schema.__name__, doc, js, lambda data: _check_object(data, js, schema.__name__), schema)
    if isinstance(schema, dict):
        if schema.get("type") == "function" and isinstance(schema.get("function"), dict):  # an OpenAI tool dict
            function = schema["function"]
            schema = {"title": function["name"], "description": function.get("description", ""),
                      **function.get("parameters", {})}
        if not isinstance(schema.get("title"), str) or schema.get("type", "object") != "object":
            raise InvalidTypeError(f"a JSON schema for structured output needs a 'title' and type 'object', got "
                                   f"{schema!r:.80}")
        js = {k: v for k, v in schema.items() if k not in ("title", "description")}
        js.setdefault("type", "object")
        return OutputSchema(schema["title"], schema.get("description", ""), js,
                            lambda data: _check_object(data, js, schema["title"]), schema)
    raise InvalidTypeError(f"a structured output schema must be a pydantic model class, a dataclass, a TypedDict or a "
                           f"JSON schema dict with a 'title', got {type(schema).__name__}: {schema!r:.60}")


def as_tool(spec: OutputSchema) -> dict[str, Any]:
    """The OpenAI tool dict a model calls to answer with ``spec``."""
    return {"type": "function", "function": {"name": spec.name, "description": spec.description,
                                             "parameters": spec.json_schema}}


def read_json(text: str) -> Any:
    """JSON from a reply's text (a ```json fence around it is allowed)."""
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    return json.loads(body)


def with_structured_output(model: Any, schema: Any, *, method: Method = "function_calling",
                           include_raw: bool = False, strict: Optional[bool] = None) -> Any:
    """``model`` as a Runnable returning ``schema``'s type (see the module docstring). With
    ``include_raw=True`` it returns ``{"raw": AIMessage, "parsed": value or None,
    "parsing_error": exception or None}`` instead of raising on a misfit."""
    from rag.runnables import RunnableLambda

    if method not in METHODS:
        raise ValidationError(f"method must be one of {METHODS}, got {method!r}")
    spec = output_schema(schema)
    if method == "function_calling":
        bound = model.bind_tools([as_tool(spec)], tool_choice=spec.name)
    elif method == "json_schema":
        bound = model.bind(response_format={"type": "json_schema", "json_schema": {
            "name": spec.name, "schema": spec.json_schema, "strict": True if strict is None else strict}})
    else:
        bound = model.bind(response_format={"type": "json_object"})

    def parse(reply: AIMessage) -> Any:
        if method == "function_calling":
            call = next((c for c in reply.tool_calls if c["name"] == spec.name), None)
            if call is None:
                raise StructuredOutputError(f"the model did not call {spec.name!r} to answer (reply: {reply.text!r:.80})",
                                            reply)
            return spec.parse(call["args"])
        try:
            data = read_json(reply.text)
        except json.JSONDecodeError as exc:
            raise StructuredOutputError(f"the model's reply is not JSON ({exc}): {reply.text!r:.80}", reply) from exc
        return spec.parse(data)

    def finish(reply: AIMessage) -> Any:
        if not include_raw:
            return parse(reply)
        try:
            return {"raw": reply, "parsed": parse(reply), "parsing_error": None}
        except Exception as exc:  # reported in the result, as asked
            return {"raw": reply, "parsed": None, "parsing_error": exc}

    return bound | RunnableLambda(finish, name="StructuredOutputParser")
