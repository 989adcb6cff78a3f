"""JSON serialisation of checkpoints: state values, messages, Documents; never pickle.

Plain JSON values pass through the C encoder untouched; a pydantic model or dataclass
instance is saved as its field values (a plain object: its class is never named, so loading
imports nothing); messages, Documents, Commands and
:class:`~rag.graph.types.Interrupt` become tagged objects (``{"__rag_type__": "message",
...}``) that load back as the same classes. Tuples load back as lists (set members as
tuples) and dict keys must be strings (JSON has neither tuples nor other keys; a dict with
another key is refused rather than saved with its keys turned into strings). Anything else raises
:class:`SerializationError` naming the state key, the path inside it and the type, before
anything is written.

>>> from rag.messages import HumanMessage
>>> loads(dumps({"messages": [HumanMessage("hi", id="1")]}))["messages"][0]
HumanMessage(content='hi')
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from rag.documents import Document
from rag.errors import ValidationError
from rag.message_roles import message_class_for_type
from rag.messages import BaseMessage

__all__ = ["dumps", "loads", "SerializationError", "TAG"]

TAG = "__rag_type__"


class SerializationError(ValidationError):
    """A state value cannot be written as JSON; ``key`` and ``path`` say where it is."""

    def __init__(self, message: str, *, key: str = "", path: str = "") -> None:
        super().__init__(message)
        self.key = key
        self.path = path


_DEFAULTS: dict[type, dict[str, Any]] = {}


def _defaults(cls: type) -> dict[str, Any]:
    """Each init field's default value (left out of the JSON when a message holds it)."""
    if cls not in _DEFAULTS:
        found = {}
        for f in dataclasses.fields(cls):
            if f.default is not dataclasses.MISSING:
                found[f.name] = f.default
            elif f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
                found[f.name] = f.default_factory()  # type: ignore[misc]
        _DEFAULTS[cls] = found
    return _DEFAULTS[cls]


def _message_fields(message: BaseMessage) -> dict[str, Any]:
    # Fields at their default are left out (they load back as it): checkpoints stay small.
    defaults = _defaults(type(message))
    fields = {}
    for f in dataclasses.fields(message):
        if f.init and f.name != "_":
            value = getattr(message, f.name)
            if f.name not in defaults or type(value) is not type(defaults[f.name]) or value != defaults[f.name]:
                fields[f.name] = value
    return fields


def _encode(value: Any) -> Any:
    """The JSON encoder's hook for values it does not know."""
    # A message is saved under its type tag, and loads back as the class the role table
    # gives that tag (a message of no kind there, such as RemoveMessage, is refused).
    if isinstance(value, BaseMessage) and message_class_for_type(value.type) is not None:
        return {TAG: "message", "type": value.type, **_message_fields(value)}
    if isinstance(value, Document):
        return {TAG: "document", "page_content": value.page_content, "metadata": value.metadata, "id": value.id}
    from rag.graph.types import Interrupt, Send

    if isinstance(value, Interrupt):
        saved = {TAG: "interrupt", "value": value.value, "id": value.id}
        if value.response_schema is not None:  # absent otherwise: older readers load the same shape
            saved["response_schema"] = value.response_schema
        return saved
    if isinstance(value, Send):
        return {TAG: "send", "node": value.node, "arg": value.arg}
    if isinstance(value, (set, frozenset)):
        return {TAG: "set", "items": sorted(value, key=repr)}
    from rag.graph.types import OVERWRITE, Command, Overwrite

    if isinstance(value, Overwrite):  # LangGraph's JSON form, which a node may also return
        return {OVERWRITE: value.value}
    if isinstance(value, Command):  # a Send's arg may be one (LangGraph sends Commands to nodes)
        saved = {TAG: "command", "update": value.update, "goto": value.goto, "graph": value.graph}
        if value.has_resume:
            saved["resume"] = value.resume
        return saved
    # A pydantic model or dataclass instance is saved as its plain field values (no class
    # name, so loading imports nothing, unlike pickle); a node reading a state schema that
    # declares the type gets an instance again (rag.graph._schemas).
    if hasattr(type(value), "model_fields") and hasattr(value, "model_dump"):
        return {name: getattr(value, name) for name in type(value).model_fields}
    if dataclasses.is_dataclass(value) and not isinstance(value, (type, BaseMessage)):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    raise TypeError(type(value).__name__)


def _decode(obj: dict[str, Any]) -> Any:
    kind = obj.get(TAG)
    if kind is None:
        return obj
    body = {k: v for k, v in obj.items() if k != TAG}
    if kind == "message":
        cls = message_class_for_type(body.pop("type", None))
        if cls is None:
            raise ValidationError(f"checkpoint holds a message of unknown type {obj.get('type')!r}")
        content = body.pop("content")
        return cls(content, **body)
    if kind == "document":
        return Document(body["page_content"], body.get("metadata") or {}, id=body.get("id"))
    if kind == "interrupt":
        from rag.graph.types import Interrupt

        return Interrupt(body["value"], body.get("id", ""), body.get("response_schema"))
    if kind == "set":
        # Set members are hashable: a list in one was a tuple (JSON has no tuples).
        return {_frozen(item) for item in body["items"]}
    if kind == "send":
        from rag.graph.types import Send

        return Send(body["node"], body.get("arg"))
    if kind == "command":
        from rag.graph.types import Command

        goto = body.get("goto") or ()
        return Command(update=body.get("update"), goto=tuple(goto) if isinstance(goto, list) else goto,
                       graph=body.get("graph"), **({"resume": body["resume"]} if "resume" in body else {}))
    raise ValidationError(f"checkpoint holds an object tagged {kind!r}, which this version cannot read")


def _frozen(value: Any) -> Any:
    return tuple(_frozen(item) for item in value) if isinstance(value, list) else value


def _non_str_key(value: Any) -> tuple[str, str]:
    """``(path, what)`` of the first dict key that is not a str, else ``("", "")``. JSON
    turns such keys into strings silently (``{1: "a", "1": "b"}`` would lose a value), so
    they are refused rather than loaded back changed."""
    stack = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    return f"{path}[{key!r}]", f"a dict key of type {type(key).__name__}"
                if isinstance(child, (dict, list, tuple)):
                    stack.append((child, f"{path}[{key!r}]"))
        else:
            for index, child in enumerate(item):
                if isinstance(child, (dict, list, tuple)):
                    stack.append((child, f"{path}[{index}]"))
    return "", ""


def _find_unserialisable(value: Any, path: str) -> tuple[str, str]:
    """``(path, type name)`` of the first value the encoder refuses (walked only on error)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return "", ""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                return f"{path}[{key!r}]", f"a dict key of type {type(key).__name__}"
            found = _find_unserialisable(item, f"{path}[{key!r}]")
            if found[0]:
                return found
        return "", ""
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _find_unserialisable(item, f"{path}[{index}]")
            if found[0]:
                return found
        return "", ""
    try:
        encoded = _encode(value)
    except TypeError:
        return path, type(value).__name__
    return _find_unserialisable({k: v for k, v in encoded.items() if k != TAG}, path)


def dumps(value: Any) -> bytes:
    """``value`` as compact UTF-8 JSON; raises :class:`SerializationError` for values JSON
    cannot hold (naming the top-level key, the path and the type)."""
    try:
        if isinstance(value, (dict, list, tuple)):
            bad_key = _non_str_key(value)
            if bad_key[0]:
                raise TypeError(f"keys must be str, not {bad_key[1].rpartition(' ')[2]}")
        return json.dumps(value, default=_encode, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=True).encode("utf-8")
    except (TypeError, ValueError) as exc:
        path, type_name = _non_str_key(value) if isinstance(value, (dict, list, tuple)) else ("", "")
        if not path:
            path, type_name = _find_unserialisable(value, "")
        if path.startswith("['channel_values']"):  # a checkpoint: name the state key
            path = path[len("['channel_values']"):]
        key = path[2:].split("'")[0] if path.startswith("['") else ""
        raise SerializationError(
            f"state key {key!r} holds {type_name} at {path or '(top)'}, which cannot be saved in a checkpoint "
            "(JSON: str, int, float, bool, None, lists, dicts with str keys, messages, Documents); "
            f"store plain data instead ({exc})",
            key=key, path=path,
        ) from exc


def loads(data: bytes | str) -> Any:
    """The value :func:`dumps` wrote."""
    return json.loads(data, object_hook=_decode)
