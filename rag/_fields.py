"""Keyword construction from class annotations, as LangChain's pydantic models are built.

A LangChain component (a retriever, say) declares its settings as annotated class
attributes and is built with keywords: ``ToyRetriever(documents=docs, k=3)``. This is that
constructor without pydantic: each annotated public name becomes an attribute, from the
keyword or the class default (lists, dicts and sets copied, so instances never share
one); a missing required field or an unknown keyword raises ValidationError naming it.
Unlike pydantic, values are not type-checked or coerced, and unknown keywords are refused
rather than ignored (a misspelt setting should not pass silently).
"""

from __future__ import annotations

import copy
import typing
from typing import Any

from rag.errors import ValidationError

__all__ = ["declared_fields", "assign_fields"]

_MISSING = object()


def _is_class_var(annotation: Any) -> bool:
    if isinstance(annotation, str):  # postponed annotations (from __future__ import annotations)
        return annotation.split("[", 1)[0].strip() in ("ClassVar", "typing.ClassVar")
    return annotation is typing.ClassVar or typing.get_origin(annotation) is typing.ClassVar


def declared_fields(cls: type, base: type) -> dict[str, Any]:
    """Public annotated names of ``cls`` and its bases up to ``base`` (inclusive), in
    declaration order, each with its class default or a missing marker."""
    fields: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if not (isinstance(klass, type) and issubclass(klass, base)):
            continue
        for name, annotation in vars(klass).get("__annotations__", {}).items():
            if name.startswith("_") or _is_class_var(annotation):
                continue
            fields[name] = getattr(cls, name, _MISSING)
    return fields


def assign_fields(instance: Any, values: dict[str, Any], base: type) -> None:
    """Set every declared field of ``instance`` from ``values`` or its default."""
    cls = type(instance)
    fields = declared_fields(cls, base)
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise ValidationError(
            f"{cls.__name__}() got unknown field(s) {unknown}; its fields are {sorted(fields)}"
        )
    missing = [name for name, default in fields.items() if default is _MISSING and name not in values]
    if missing:
        raise ValidationError(f"{cls.__name__}() is missing the required field(s) {missing}")
    for name, default in fields.items():
        value = values[name] if name in values else default
        if name not in values and isinstance(value, (list, dict, set)):
            value = copy.copy(value)
        setattr(instance, name, value)
