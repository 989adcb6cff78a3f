"""A state schema (a TypedDict) read as channels, and updates applied through reducers.

A key annotated ``Annotated[T, reducer]`` combines each update with the current value as
``reducer(current, update)`` and starts from ``T()`` when that works (``[]`` for a list,
``0`` for an int); any other key is overwritten, and may be written once per step.
"""

from __future__ import annotations

import collections.abc
import inspect
import typing
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

from rag.errors import ValidationError
from rag.graph.errors import InvalidUpdateError
from rag.graph.types import OVERWRITE, Overwrite

__all__ = ["Channel", "channels_of", "apply_updates", "initial_values", "check_keys", "ordered"]

_MISSING: Any = object()


@dataclass(frozen=True)
class Channel:
    """One state key: its ``reducer`` (None: last write wins) and ``default`` factory."""

    name: str
    reducer: Optional[Callable[[Any, Any], Any]] = None
    default: Optional[Callable[[], Any]] = None


def _reducer_of(annotation: Any) -> Optional[Callable[[Any, Any], Any]]:
    if typing.get_origin(annotation) is not typing.Annotated:
        return None
    for extra in reversed(annotation.__metadata__):
        if callable(extra):
            return extra
    return None


# Abstract collection types a reducer key may be declared with, and the concrete empty
# value it starts from (as LangGraph's BinaryOperatorAggregate): without one, the first
# write would bypass the reducer and store the raw value.
_CONCRETE = {
    collections.abc.Sequence: list, collections.abc.MutableSequence: list,
    collections.abc.Set: set, collections.abc.MutableSet: set,
    collections.abc.Mapping: dict, collections.abc.MutableMapping: dict,
}


def _default_of(annotation: Any) -> Optional[Callable[[], Any]]:
    base = typing.get_args(annotation)[0]
    kind = typing.get_origin(base) or base
    kind = _CONCRETE.get(kind, kind)
    if not isinstance(kind, type):
        return None
    try:
        kind()
    except Exception:  # a type without a no-argument value: the key starts absent
        return None
    return kind


def read_hints(schema: Any) -> dict[str, Any]:
    """``schema``'s annotations with their ``Annotated`` extras, or a clear error."""
    try:
        return typing.get_type_hints(schema, include_extras=True)
    except NameError:
        pass
    try:  # postponed annotations (PEP 563) naming the caller's locals, resolved as pydantic does
        return typing.get_type_hints(schema, localns=caller_locals(), include_extras=True)
    except NameError as exc:  # string annotations naming something out of reach
        raise ValidationError(
            f"cannot read the annotations of state schema {getattr(schema, '__name__', schema)}: {exc}; define it "
            "at module level with the names it uses imported there"
        ) from exc


def caller_locals() -> dict[str, Any]:
    """The local names of the innermost frame outside this package (the function that built
    the graph), so a schema or node defined inside a function under ``from __future__
    import annotations`` can name that function's other locals (pydantic resolves its
    models' forward references from the same frame)."""
    import sys
    import types

    frame: Optional[types.FrameType] = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("rag.graph"):
        frame = frame.f_back
    return dict(frame.f_locals) if frame is not None else {}


def channel_for(key: str, annotation: Any) -> Channel:
    """The channel of one key annotated ``annotation`` (a reducer from ``Annotated``); a
    reducer that cannot be called as ``reducer(current, update)`` is refused naming the key."""
    reducer = _reducer_of(annotation)
    if reducer is not None:
        _check_reducer(key, reducer)
    return Channel(key, reducer, _default_of(annotation) if reducer else None)


def _check_reducer(key: str, reducer: Callable[..., Any]) -> None:
    try:
        signature = inspect.signature(reducer)
    except (TypeError, ValueError):  # a builtin without a signature (operator.add): trusted
        return
    try:
        signature.bind(None, None)
    except TypeError:
        name = getattr(reducer, "__name__", type(reducer).__name__)
        raise ValidationError(
            f"Invalid reducer signature for state key {key!r}: {name}{signature} cannot be called as "
            "reducer(current, update); a reducer takes the current value and the update and returns the new value"
        ) from None


def channels_of(schema: Any) -> dict[str, Channel]:
    """The channels of a state schema (keys in declaration order): a TypedDict, a pydantic
    model, a dataclass or an annotated class (one channel per field), or any other type
    (one root channel, see :mod:`rag.graph._schemas`)."""
    from rag.graph._schemas import shape_of

    shape = shape_of(schema)
    if not shape.hints:
        raise ValidationError(f"state schema {getattr(schema, '__name__', schema)} has no keys; declare at least one")
    return {key: channel_for(key, annotation) for key, annotation in shape.hints.items()}


def initial_values(channels: Mapping[str, Channel]) -> dict[str, Any]:
    """The state before any write: reducer keys at their empty value, other keys absent."""
    return {name: ch.default() for name, ch in channels.items() if ch.default is not None}


def ordered(values: Mapping[str, Any], channels: Mapping[str, Channel]) -> dict[str, Any]:
    """A copy of ``values`` with keys in the schema's order (as LangGraph returns them)."""
    return {key: values[key] for key in channels if key in values}


def check_keys(node: str, update: Mapping[str, Any], channels: Mapping[str, Channel]) -> None:
    unknown = [key for key in update if key not in channels]
    if unknown:
        who = "the graph's input (or a Command's update) has" if node == "__start__" else f"node {node!r} returned"
        raise InvalidUpdateError(
            f"{who} key {unknown[0]!r}, which is not in the state; the state's keys are {list(channels)}"
        )


def apply_updates(values: dict[str, Any], updates: list[tuple[str, Mapping[str, Any]]],
                  channels: Mapping[str, Channel]) -> None:
    """Apply ``(node, update)`` pairs to ``values`` in place, in order.

    Raises :class:`InvalidUpdateError` naming the node, key and value for an unknown key,
    a reducer that refuses the value, or two writes in one step to a key without reducer.
    """
    written_by: dict[str, str] = {}
    overwritten = _overwrites(updates)
    for node, update in updates:
        check_keys(node, update, channels)
        for key, value in update.items():
            if key in overwritten:  # an Overwrite replaces the key; its other updates this step are dropped
                if _is_overwrite(value):
                    values[key] = overwritten[key]
                continue
            reducer = channels[key].reducer
            if reducer is None:
                if key in written_by:
                    raise InvalidUpdateError(
                        f"At key {key!r}: nodes {written_by[key]!r} and {node!r} both wrote key {key!r} in one step; "
                        f"give it a reducer (Annotated[..., operator.add]) to combine the values"
                    )
                written_by[key] = node
                values[key] = value
            elif key not in values:
                values[key] = value
            else:
                try:
                    values[key] = reducer(values[key], value)
                except InvalidUpdateError:
                    raise
                except Exception as exc:
                    name = getattr(reducer, "__name__", repr(reducer))
                    raise InvalidUpdateError(
                        f"node {node!r} wrote {type(value).__name__} {value!r:.80} to key {key!r}, which its "
                        f"reducer {name} refused: {type(exc).__name__}: {exc}"
                    ) from exc


def _is_overwrite(value: Any) -> bool:
    return isinstance(value, Overwrite) or (isinstance(value, dict) and len(value) == 1 and OVERWRITE in value)


def _overwrites(updates: list[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """The keys an :class:`~rag.graph.types.Overwrite` writes in these updates, with its
    value; raises naming the key when two overwrite it (as LangGraph's)."""
    found: dict[str, Any] = {}
    for node, update in updates:
        for key, value in (update or {}).items():
            if not _is_overwrite(value):
                continue
            if key in found:
                raise InvalidUpdateError(
                    f"Can receive only one Overwrite value per super-step: key {key!r} was overwritten twice "
                    f"(the second by node {node!r})"
                )
            found[key] = value[OVERWRITE] if isinstance(value, dict) else value.value
    return found
