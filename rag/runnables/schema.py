"""JSON Schemas (plain dicts, no pydantic) for runnables' inputs, outputs and configs.

Every runnable has ``input_schema`` / ``output_schema`` (properties) and
``config_schema()`` (a method), as LangChain's, but each returns a JSON Schema *dict*
(LangChain returns pydantic model classes; their ``model_json_schema()`` is what we
return). A component states its own schema through ``_input_jsonschema`` /
``_output_jsonschema``; compositions derive theirs (a sequence: first step's input, last
step's output; a parallel map: an object with one property per branch).

>>> from rag.runnables import RunnableLambda
>>> def double(x: int) -> int:
...     return 2 * x
>>> RunnableLambda(double).input_schema
{'title': 'doubleInput', 'type': 'integer'}
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Iterable, Literal, Optional, Sequence, Union

from rag.errors import ValidationError

__all__ = [
    "hint_schema",
    "object_schema",
    "titled",
    "config_jsonschema",
    "parallel_input_schema",
    "DOCUMENT_SCHEMA",
    "MESSAGE_SCHEMA",
    "AI_MESSAGE_SCHEMA",
    "MESSAGES_SCHEMA",
    "PROMPT_VALUE_SCHEMA",
    "CHAT_MODEL_INPUT_SCHEMA",
    "PARSER_INPUT_SCHEMA",
    "CONFIG_KEY_SCHEMAS",
]

_NULLABLE_STRING = {"anyOf": [{"type": "string"}, {"type": "null"}]}

DOCUMENT_SCHEMA: dict[str, Any] = {
    "title": "Document",
    "type": "object",
    "properties": {
        "id": {**_NULLABLE_STRING, "default": None, "title": "Id"},
        "metadata": {"type": "object", "title": "Metadata"},
        "page_content": {"type": "string", "title": "Page Content"},
        "type": {"const": "Document", "default": "Document", "title": "Type"},
    },
    "required": ["page_content"],
}

_CONTENT = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "object"}]}}],
            "title": "Content"}


def _message_schema(title: str, type_: str, extra: Optional[dict[str, Any]] = None,
                    required: Sequence[str] = ("content",)) -> dict[str, Any]:
    return {
        "title": title,
        "type": "object",
        "properties": {
            "content": _CONTENT,
            "additional_kwargs": {"type": "object", "title": "Additional Kwargs"},
            "response_metadata": {"type": "object", "title": "Response Metadata"},
            "type": {"const": type_, "default": type_, "title": "Type"},
            "name": {**_NULLABLE_STRING, "default": None, "title": "Name"},
            "id": {**_NULLABLE_STRING, "default": None, "title": "Id"},
            **(extra or {}),
        },
        "required": list(required),
    }


_AI_EXTRA = {
    "tool_calls": {"type": "array", "items": {"type": "object"}, "title": "Tool Calls"},
    "invalid_tool_calls": {"type": "array", "items": {"type": "object"}, "title": "Invalid Tool Calls"},
    "usage_metadata": {"anyOf": [{"type": "object"}, {"type": "null"}], "default": None, "title": "Usage Metadata"},
}
AI_MESSAGE_SCHEMA = _message_schema("AIMessage", "ai", _AI_EXTRA)
AI_MESSAGE_CHUNK_SCHEMA = _message_schema(
    "AIMessageChunk", "AIMessageChunk",
    {**_AI_EXTRA, "tool_call_chunks": {"type": "array", "items": {"type": "object"}, "title": "Tool Call Chunks"}})
HUMAN_MESSAGE_SCHEMA = _message_schema("HumanMessage", "human")
SYSTEM_MESSAGE_SCHEMA = _message_schema("SystemMessage", "system")
TOOL_MESSAGE_SCHEMA = _message_schema(
    "ToolMessage", "tool", {"tool_call_id": {"type": "string", "title": "Tool Call Id"},
                            "status": {"enum": ["success", "error"], "default": "success", "title": "Status"}},
    required=("content", "tool_call_id"))
MESSAGE_SCHEMA: dict[str, Any] = {"oneOf": [AI_MESSAGE_SCHEMA, HUMAN_MESSAGE_SCHEMA, SYSTEM_MESSAGE_SCHEMA,
                                            TOOL_MESSAGE_SCHEMA, AI_MESSAGE_CHUNK_SCHEMA]}
MESSAGES_SCHEMA: dict[str, Any] = {"type": "array", "items": MESSAGE_SCHEMA}
PROMPT_VALUE_SCHEMA: dict[str, Any] = {"anyOf": [
    {"title": "StringPromptValue", "type": "object", "required": ["text"],
     "properties": {"text": {"type": "string", "title": "Text"},
                    "type": {"const": "StringPromptValue", "default": "StringPromptValue", "title": "Type"}}},
    {"title": "ChatPromptValueConcrete", "type": "object", "required": ["messages"],
     "properties": {"messages": {**MESSAGES_SCHEMA, "title": "Messages"},
                    "type": {"const": "ChatPromptValueConcrete", "default": "ChatPromptValueConcrete", "title": "Type"}}},
]}
# A string, a prompt value or a list of messages (or message-likes: strings, pairs, dicts).
CHAT_MODEL_INPUT_SCHEMA: dict[str, Any] = {"anyOf": [
    {"type": "string"},
    *PROMPT_VALUE_SCHEMA["anyOf"],
    {"type": "array", "items": {"anyOf": [*MESSAGE_SCHEMA["oneOf"], {"type": "string"},
                                          {"type": "array", "minItems": 2, "maxItems": 2}, {"type": "object"}]}},
]}
PARSER_INPUT_SCHEMA: dict[str, Any] = {"anyOf": [{"type": "string"}, *MESSAGE_SCHEMA["oneOf"]]}

# The RunnableConfig keys a client may send (LangServe's client sends them on every call).
CONFIG_KEY_SCHEMAS: dict[str, dict[str, Any]] = {
    "tags": {"type": "array", "items": {"type": "string"}, "title": "Tags"},
    "metadata": {"type": "object", "title": "Metadata"},
    "run_name": {"type": "string", "title": "Run Name"},
    "run_id": {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "null"}], "title": "Run Id"},
    "max_concurrency": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}], "title": "Max Concurrency"},
    "recursion_limit": {"type": "integer", "minimum": 1, "title": "Recursion Limit"},
    "configurable": {"type": "object", "title": "Configurable"},
}

_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"}, int: {"type": "integer"}, float: {"type": "number"}, bool: {"type": "boolean"},
    type(None): {"type": "null"}, bytes: {"type": "string", "format": "binary"},
}


def titled(schema: dict[str, Any], title: str) -> dict[str, Any]:
    """``schema`` with ``title`` first (the title LangChain gives: ``<Name>Input`` etc.)."""
    return {"title": title, **{k: v for k, v in schema.items() if k != "title"}}


def object_schema(properties: dict[str, dict[str, Any]], *, required: Union[bool, Sequence[str]] = True) -> dict[str, Any]:
    """An object schema; ``required``: True (every property), False (none) or the names."""
    names = list(properties) if required is True else list(required or [])
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if names:
        schema["required"] = names
    return schema


def _class_schema(hint: type) -> Optional[dict[str, Any]]:
    from rag.documents import Document
    from rag.messages import AIMessage, AIMessageChunk, BaseMessage

    for cls, schema in ((Document, DOCUMENT_SCHEMA), (AIMessageChunk, AI_MESSAGE_CHUNK_SCHEMA),
                        (AIMessage, AI_MESSAGE_SCHEMA), (BaseMessage, MESSAGE_SCHEMA)):
        if issubclass(hint, cls):
            return schema
    # typing_extensions' TypedDict (what LangGraph's users import) is not one to typing.is_typeddict
    if typing.is_typeddict(hint) or (issubclass(hint, dict) and hasattr(hint, "__required_keys__")):
        hints = typing.get_type_hints(hint)
        return {"title": hint.__name__, **object_schema({k: hint_schema(v) for k, v in hints.items()},
                                                        required=sorted(hint.__required_keys__))}
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        fields = [f for f in dataclasses.fields(hint) if f.init]
        required = [f.name for f in fields
                    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        return {"title": hint.__name__, **object_schema({f.name: hint_schema(hints.get(f.name, Any)) for f in fields},
                                                        required=required)}
    return None


def hint_schema(hint: Any) -> dict[str, Any]:
    """The JSON Schema of a Python type hint: scalars, ``list[...]``, ``dict[str, ...]``,
    ``Optional``/``Union``, ``Literal``, TypedDicts, dataclasses, Documents and messages.
    ``Any`` and unknown types give ``{}`` (anything)."""
    if hint is Any:
        return {}
    if hint is None:
        return {"type": "null"}
    if hint in _SCALARS:
        return dict(_SCALARS[hint])
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Union or origin is types.UnionType:
        return {"anyOf": [hint_schema(arg) for arg in args]}
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (list, Sequence, Iterable, set, frozenset) or hint in (list, set):
        return {"type": "array", **({"items": hint_schema(args[0])} if args else {})}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": hint_schema(args[0])}
        return {"type": "array", "prefixItems": [hint_schema(a) for a in args], "minItems": len(args),
                "maxItems": len(args)}
    if origin in (dict, typing.Mapping) or hint is dict:
        return {"type": "object", **({"additionalProperties": hint_schema(args[1])} if len(args) == 2 else {})}
    if isinstance(hint, type):
        return _class_schema(hint) or {}
    return {}


def _untitled(schema: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != "title"}


def parallel_input_schema(steps: Iterable[Any]) -> dict[str, Any]:
    """A parallel map's input: the branches' object schemas merged, or their common
    schema when they agree (branches that take anything do not count), else anything."""
    concrete = [s for s in (_untitled(step.get_input_jsonschema()) for step in steps) if s]
    if not concrete:
        return {}
    if all(s.get("type") == "object" and "properties" in s for s in concrete):
        properties: dict[str, Any] = {}
        required: list[str] = []
        for s in concrete:
            properties.update(s["properties"])
            required.extend(r for r in s.get("required", []) if r not in required)
        return object_schema(properties, required=required)
    if all(s == concrete[0] for s in concrete):
        return concrete[0]
    return {}


def config_jsonschema(runnable: Any, *, include: Optional[Sequence[str]] = None) -> dict[str, Any]:
    """The config schema: ``configurable`` with the fields ``runnable`` declares (title,
    description, default, type; ``required`` lists those without a default), plus the
    RunnableConfig keys named in ``include``."""
    unknown = [key for key in include or [] if key not in CONFIG_KEY_SCHEMAS]
    if unknown:
        raise ValidationError(f"config_schema(include=...) got unknown keys {unknown}; "
                              f"expected some of {sorted(CONFIG_KEY_SCHEMAS)}")
    schema: dict[str, Any] = {"title": f"{runnable.get_name()}Config", "type": "object", "properties": {}}
    specs = runnable.config_specs
    if specs:
        fields = {}
        for spec in specs:
            field = {"title": spec.name or spec.id, **hint_schema(spec.annotation)}
            if spec.description:
                field["description"] = spec.description
            if not spec.required:
                field["default"] = spec.default
            fields[spec.id] = field
        configurable = {"title": "Configurable", **object_schema(fields, required=[s.id for s in specs if s.required])}
        schema["$defs"] = {"Configurable": configurable}
        schema["properties"]["configurable"] = {"$ref": "#/$defs/Configurable"}
    for key in include or []:
        if key != "configurable" or not specs:
            schema["properties"][key] = CONFIG_KEY_SCHEMAS[key]
    return schema
