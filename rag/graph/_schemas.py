"""Every state type LangGraph accepts, read as one shape: its channels, what a node reads,
how a node's return value becomes an update, and what the graph returns.

- a ``TypedDict`` (or ``dict`` subclass with annotations): nodes read a dict;
- a pydantic model, a dataclass, or a plain class with annotations: one channel per
  annotated field; a node reads an instance built from the state (pydantic validates it,
  so a bad input fails at the first node, as LangGraph's) and may return an instance,
  whose set fields become the update;
- anything else (``Annotated[list, operator.add]``, ``list[str]``, ``dict``, ``int``): one
  *root* channel; a node reads the value itself and returns the new value (combined by the
  ``Annotated`` reducer when there is one).

``input_schema`` / ``output_schema`` add their keys to the channels; the graph's input keeps
only the input schema's keys (when one is given) and the graph returns only the output
schema's keys (default: the state schema's, so private keys stay inside). A node whose first
parameter is annotated with another schema (its *private* input) adds that schema's keys
and reads only them.

Checkpoints keep the channel values (plain data): an instance is rebuilt from them when a
node reads it, so nothing needs pickle.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

from rag.errors import ValidationError

__all__ = ["ROOT", "StateShape", "shape_of", "merge_channels", "node_input_schema", "node_output_schema", "wrap_node",
           "to_update", "json_schema"]

#: The one channel of a non-dict state (LangGraph's name for it).
ROOT = "__root__"

_MISSING: Any = object()


def _is_pydantic(schema: Any) -> bool:
    return isinstance(schema, type) and hasattr(schema, "model_fields") and hasattr(schema, "model_validate")


def _has_fields(schema: Any) -> bool:
    """Whether ``schema`` declares keys (a class with annotations, not a builtin like ``dict``)."""
    if not isinstance(schema, type):
        return False
    # Declared annotations in the class or a base (builtins such as dict declare none).
    return any(vars(cls).get("__annotations__") for cls in schema.__mro__ if cls is not object)


def _kind(schema: Any) -> str:
    if _is_pydantic(schema):
        return "pydantic"
    if dataclasses.is_dataclass(schema) and isinstance(schema, type):
        return "dataclass"
    if isinstance(schema, type) and issubclass(schema, dict) and _has_fields(schema):
        return "dict"
    if _has_fields(schema):
        return "class"
    return "root"


def _field_hints(schema: type) -> dict[str, Any]:
    from rag.graph.state import read_hints

    hints = read_hints(schema)
    if _is_pydantic(schema):  # its private attributes and class variables are not fields
        return {k: v for k, v in hints.items() if k in getattr(schema, "model_fields")}
    return {k: v for k, v in hints.items()
            if typing.get_origin(v) is not typing.ClassVar and v is not typing.ClassVar and k != "__slots__"}


@dataclass(frozen=True)
class StateShape:
    """How one schema reads and writes the channels (see the module docstring).

    ``kind``: "dict", "pydantic", "dataclass", "class" or "root"; ``keys``: the channels
    it covers, in declaration order (``(ROOT,)`` for a root state)."""

    schema: Any
    kind: str
    keys: tuple[str, ...]
    hints: dict[str, Any] = field(default_factory=dict)

    @property
    def plain(self) -> bool:
        """Nodes read the state dict as it is (a TypedDict): nothing to convert."""
        return self.kind == "dict"

    def read(self, values: Mapping[str, Any]) -> Any:
        """What a node reading this schema receives from the channel ``values``."""
        if self.kind == "root":
            return values.get(ROOT)
        picked = {k: values[k] for k in self.keys if k in values}
        if self.kind == "dict":
            return picked
        if self.kind == "pydantic":
            return self.schema.model_validate(picked)  # pydantic's ValidationError names the field
        if self.kind == "dataclass":
            return self.schema(**{k: v for k, v in picked.items()
                                  if k in {f.name for f in dataclasses.fields(self.schema) if f.init}})
        instance = self.schema.__new__(self.schema)  # a plain class: its fields set as attributes
        for key, value in picked.items():
            setattr(instance, key, value)
        return instance

    def update_of(self, value: Any) -> Any:
        """A node's (or the graph input's) value as a dict update; a dict is kept as it is."""
        if self.kind == "root":
            return {ROOT: value}
        if isinstance(value, (dict, list, tuple)) or value is None:  # a list: of updates or (key, value) writes
            return value
        # isinstance() of a TypedDict raises: only a class schema has instances.
        if (self.kind != "dict" and isinstance(value, self.schema)) or _is_pydantic(type(value)) \
                or dataclasses.is_dataclass(value):
            return instance_update(value, self.keys)
        return value  # not an update: settle() names the node and the value

    def output(self, values: Mapping[str, Any]) -> Any:
        """What the graph returns (and streams as "values") for the channel ``values``."""
        if self.kind == "root":
            return values.get(ROOT)
        return {k: values[k] for k in self.keys if k in values}


def instance_update(value: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    """The update a model or dataclass instance writes (LangGraph's rule): each field whose
    value is not None, or whose default is not None, or (pydantic) that was set explicitly,
    so returning ``State(x=None)`` clears ``x`` while unset optional fields change nothing."""
    if _is_pydantic(type(value)):
        defaults = {k: f.default for k, f in type(value).model_fields.items()}
        explicit = value.model_fields_set
    elif dataclasses.is_dataclass(value):
        defaults = {f.name: f.default for f in dataclasses.fields(value)}
        explicit = set()
    else:
        defaults, explicit = {}, set()
    update = {}
    for key in keys:
        item = getattr(value, key, _MISSING)
        if item is _MISSING:
            continue
        if item is not None or defaults.get(key, _MISSING) not in (None, _MISSING) or key in explicit:
            update[key] = item
    return update


def shape_of(schema: Any) -> StateShape:
    """The shape of a state (or input/output) schema; raises naming a schema LangGraph also
    refuses (None, an instance rather than a type)."""
    if schema is None:
        raise ValidationError("StateGraph needs a state schema, got None; e.g. class State(TypedDict): ...")
    kind = _kind(schema)
    if kind == "root":
        origin = typing.get_origin(schema)
        if not (isinstance(schema, type) or origin is not None):
            raise ValidationError(
                f"a state schema must be a type (a TypedDict, a pydantic model, a dataclass, a class with "
                f"annotations, or a type such as list[str] or Annotated[list, operator.add]), got {schema!r:.80}"
            )
        return StateShape(schema, kind, (ROOT,), {ROOT: schema})
    hints = _field_hints(schema)
    return StateShape(schema, kind, tuple(hints), hints)


def merge_channels(channels: dict[str, Any], shape: StateShape) -> None:
    """Add the channels ``shape`` declares and ``channels`` lacks (the first schema to
    declare a key decides its reducer, as LangGraph's)."""
    from rag.graph.state import channel_for

    for key, hint in shape.hints.items():
        if key not in channels:
            channels[key] = channel_for(key, hint)


def node_input_schema(action: Any) -> Any:
    """The type hint of ``action``'s first parameter when it is a state schema (a class with
    fields), else None: a node so annotated reads only those keys (private state)."""
    target = action
    if not (inspect.isfunction(target) or inspect.ismethod(target)):
        target = getattr(action, "__call__", None)
        if target is None or not (inspect.isfunction(target) or inspect.ismethod(target)):
            return None
    try:
        params = [p for p in inspect.signature(target).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        hints = _hints_of(target)
    except Exception:  # annotations that do not resolve: the node reads the whole state
        return None
    if not params:
        return None
    hint = hints.get(params[0].name)
    return hint if hint is not None and _kind(hint) != "root" else None


def node_output_schema(action: Any) -> Any:
    """The return annotation of ``action`` when it is a state schema, else None: its keys
    join the graph's channels (as LangGraph's), so a node may write keys declared there."""
    target = action if inspect.isroutine(action) else getattr(action, "__call__", None)
    if target is None:
        return None
    try:
        hint = _hints_of(target).get("return")
    except Exception:  # annotations that do not resolve: nothing declared
        return None
    return hint if hint is not None and isinstance(hint, type) and _kind(hint) != "root" else None


def _hints_of(target: Any) -> dict[str, Any]:
    from rag.graph.state import caller_locals

    try:
        return typing.get_type_hints(target)
    except NameError:  # postponed annotations naming the builder's locals (see caller_locals)
        return typing.get_type_hints(target, localns=caller_locals())


def to_update(shape: StateShape, output: Any) -> Any:
    """A node's return value with its state parts as dict updates: an instance, a root
    value, or a ``Command`` whose ``update`` is either (a list of them: each)."""
    from rag.graph.types import Command

    if isinstance(output, Command):
        if output.update is None or (isinstance(output.update, dict) and shape.kind != "root"):
            return output
        return dataclasses.replace(output, update=shape.update_of(output.update))
    if isinstance(output, list) and any(isinstance(item, Command) for item in output):
        # Commands mixed with plain updates (a root state's values): each item in turn.
        return [to_update(shape, item) for item in output]
    if output is None and shape.kind == "root":
        return None
    return shape.update_of(output)


def wrap_node(func: Callable[..., Any], reads: StateShape, writes: StateShape) -> Callable[..., Any]:
    """``func`` reading ``reads`` (an instance, a root value, or the keys of a private
    schema) and returning updates in ``writes``' shape, as a node taking the state dict and
    returning a dict update; keeps ``func``'s kind (sync or async) and its ``config``."""
    takes_config = "config" in inspect.signature(func).parameters

    def call(state: Any, config: Any) -> Any:
        # A Send's arg reaches the node as it was sent (LangGraph's push tasks read no channels).
        pushed = ((config or {}).get("metadata") or {}).get("langgraph_triggers") == ("__pregel_push",)
        value = state if pushed or not isinstance(state, Mapping) else reads.read(state)
        return func(value, config=config) if takes_config else func(value)

    if inspect.iscoroutinefunction(func):
        async def node(state: Any, config: Any = None) -> Any:
            return to_update(writes, await call(state, config))
    else:
        def node(state: Any, config: Any = None) -> Any:  # type: ignore[misc]
            return to_update(writes, call(state, config))
    for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
        try:
            setattr(node, attribute, getattr(func, attribute))
        except (AttributeError, TypeError):
            pass
    return node


def json_schema(shape: StateShape, title: str) -> dict[str, Any]:
    """The JSON Schema of a graph's input or output schema, as LangGraph gives it: a pydantic
    model's own; a TypedDict's fields with its required keys, titled with its name; a
    dataclass's or annotated class's fields (required: those without a default) and a root
    state's type, titled ``title`` (``LangGraphInput`` / ``LangGraphOutput``)."""
    from rag.runnables.schema import hint_schema, object_schema, titled

    schema = shape.schema
    if shape.kind == "pydantic":
        return schema.model_json_schema()
    if shape.kind == "root":
        base = typing.get_args(schema)[0] if typing.get_origin(schema) is typing.Annotated else schema
        return _pydantic_layout(titled(hint_schema(base), title))
    if shape.kind == "class":
        plain = {k: typing.get_args(v)[0] if typing.get_origin(v) is typing.Annotated else v
                 for k, v in shape.hints.items()}
        required = [k for k in plain if not hasattr(schema, k)]
        return _pydantic_layout(titled(object_schema({k: hint_schema(v) for k, v in plain.items()},
                                                     required=required), title))
    return _pydantic_layout(_typed_schema(shape, title))


def _typed_schema(shape: StateShape, title: str) -> dict[str, Any]:
    from rag.runnables.schema import hint_schema, titled

    schema = shape.schema
    found = hint_schema(schema)
    if shape.kind == "dataclass":  # LangGraph's rule: a field is optional when it has a default or may be None
        found["required"] = [f.name for f in dataclasses.fields(schema) if f.init and (f.default is Ellipsis or (
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            and not _may_be_none(shape.hints.get(f.name))))]
        if not found["required"]:
            del found["required"]
    return found if shape.kind == "dict" else titled(found, title)


def _pydantic_layout(schema: Any) -> Any:
    """``schema`` laid out as pydantic writes it (LangGraph's schemas are pydantic's, and
    tools compare them as text): keys sorted at every level but a model's properties, kept
    in declaration order and each titled from its name (``tool_input`` -> ``Tool Input``);
    ``required`` in declaration order; ``additionalProperties: {}`` written ``true``."""
    if isinstance(schema, list):
        return [_pydantic_layout(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    properties = schema.get("properties")
    for key in sorted(schema):
        value = schema[key]
        if key == "properties" and isinstance(value, dict):
            value = {name: _pydantic_layout(sub if "$ref" in sub or "title" in sub
                                            else {**sub, "title": name.title().replace("_", " ")})
                     for name, sub in value.items()}
        elif key == "required" and isinstance(properties, dict) and isinstance(value, list):
            value = [name for name in properties if name in value] + [name for name in value if name not in properties]
        elif key == "additionalProperties" and value == {}:
            value = True
        else:
            value = _pydantic_layout(value)
        out[key] = value
    return out


def _may_be_none(hint: Any) -> bool:
    if typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    return hint is None or type(None) in typing.get_args(hint)
