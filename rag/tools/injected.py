"""Tool parameters the caller fills in rather than the model (LangChain's ``InjectedToolArg``).

A parameter annotated ``Annotated[T, InjectedToolCallId]`` (or with any other
:class:`InjectedToolArg` marker, class or instance) is left out of the schema the model
sees; the tool fills the call id itself, and a graph's tool node fills state, store and
runtime markers (:mod:`rag.agents.injection`). A parameter whose type is a
:class:`DirectlyInjectedToolArg` subclass (``runtime: ToolRuntime``) is injected as well.

>>> from typing import Annotated
>>> def reply(text: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
...     return text
>>> list(injected_parameters(reply))
['call_id']
"""

from __future__ import annotations

import inspect
import typing
from typing import Any, Callable

__all__ = ["InjectedToolArg", "InjectedToolCallId", "DirectlyInjectedToolArg", "injected_parameters", "model_schema"]


class InjectedToolArg:
    """Marks a tool parameter that is not the model's to give (hidden from the tool schema)."""


class InjectedToolCallId(InjectedToolArg):
    """Marks the parameter that receives the id of the tool call being answered."""


class DirectlyInjectedToolArg:
    """Base of types injected by being a parameter's type, not an ``Annotated`` marker."""


def _marker(annotation: Any) -> Any:
    """The injection marker of one annotation (a class or an instance), or None."""
    if isinstance(annotation, str):
        return None
    if isinstance(annotation, type) and issubclass(annotation, DirectlyInjectedToolArg):
        return annotation
    origin = typing.get_origin(annotation)
    if isinstance(origin, type) and issubclass(origin, DirectlyInjectedToolArg):  # ToolRuntime[Context, State]
        return origin
    if origin is typing.Annotated:
        for extra in annotation.__metadata__:
            if isinstance(extra, InjectedToolArg) or (isinstance(extra, type) and issubclass(extra, InjectedToolArg)):
                return extra
        return _marker(typing.get_args(annotation)[0])
    return None


def injected_parameters(func: Callable[..., Any]) -> dict[str, Any]:
    """``{parameter name: marker}`` for each of ``func``'s injected parameters, in order.

    Unresolvable string annotations are read as not injected (the schema builder then
    treats them as any value)."""
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception:  # a forward reference to a name only a type checker sees
        hints = {}
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return {}
    found: dict[str, Any] = {}
    for parameter in parameters:
        marker = _marker(hints.get(parameter.name, parameter.annotation))
        if marker is not None:
            found[parameter.name] = marker
    return found


def model_schema(model: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON schema the model sees for a pydantic ``args_schema`` and its injected fields
    (``Annotated[str, InjectedToolCallId]`` in a field): those are left out of the schema
    (a field typed as a store has no JSON schema at all) and filled by the caller."""
    fields = getattr(model, "model_fields", None)
    if not isinstance(fields, dict):  # pydantic v1 models: their schema as they give it
        return model.model_json_schema(), {}
    injected: dict[str, Any] = {}
    for name, field in fields.items():
        # pydantic keeps Annotated's extras in field.metadata; read each as Annotated[Any, extra]
        found = [_marker(typing.Annotated[Any, extra]) for extra in field.metadata] + [_marker(field.annotation)]
        marker = next((m for m in found if m is not None), None)
        if marker is not None:
            injected[name] = marker
    if not injected:
        return model.model_json_schema(), {}
    from pydantic import create_model

    visible = create_model(model.__name__, **{name: (field.annotation, field) for name, field in fields.items()
                                             if name not in injected})  # type: ignore[call-overload]
    return visible.model_json_schema(), injected
