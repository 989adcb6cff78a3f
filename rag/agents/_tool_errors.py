"""What a ToolNode does when a tool call fails: LangGraph's error texts, word for word (a model
that learned to read them reads ours), :class:`ToolInvocationError` for arguments that do not
fit, and the reading of ``handle_tool_errors`` (which exceptions a handler takes)."""

from __future__ import annotations

import inspect
import types
import typing
from typing import Any, Callable, Optional, Union

from rag.errors import RagError

__all__ = ["INVALID_TOOL_NAME_ERROR_TEMPLATE", "TOOL_CALL_ERROR_TEMPLATE", "TOOL_INVOCATION_ERROR_TEMPLATE",
           "HandleToolErrors", "ToolInvocationError"]

# LangGraph 1.2's texts (langgraph/prebuilt/tool_node.py), word for word.
INVALID_TOOL_NAME_ERROR_TEMPLATE = "Error: {requested_tool} is not a valid tool, try one of [{available_tools}]."
TOOL_CALL_ERROR_TEMPLATE = "Error: {error}\n Please fix your mistakes."
TOOL_INVOCATION_ERROR_TEMPLATE = (
    "Error invoking tool '{tool_name}' with kwargs {tool_kwargs} with error:\n"
    " {error}\n"
    " Please fix the error and try again."
)

#: True (every exception becomes an error ToolMessage), False (raise), a fixed message, a
#: function from the exception to the message, or exception classes (only those handled).
HandleToolErrors = Union[bool, str, Callable[[Exception], str], type, tuple]


class ToolInvocationError(RagError, ValueError):
    """The model called a tool with arguments that do not fit its schema (raised only when
    ``handle_tool_errors=False``; otherwise the model gets the message)."""

    def __init__(self, tool_name: str, tool_kwargs: dict[str, Any], error: str,
                 source: Optional[Exception] = None) -> None:
        self.tool_name, self.tool_kwargs = tool_name, tool_kwargs
        #: The validation error behind it; ``filtered_errors`` is LangGraph's per-field list
        #: (pydantic's), which our schema check does not produce: always None.
        self.source, self.filtered_errors = source, None
        self.message = TOOL_INVOCATION_ERROR_TEMPLATE.format(tool_name=tool_name, tool_kwargs=tool_kwargs, error=error)
        super().__init__(self.message)


def _valid_handler(handler: Any) -> bool:
    if isinstance(handler, (bool, str)) or (callable(handler) and not isinstance(handler, type)):
        return True
    classes = handler if isinstance(handler, tuple) else (handler,)
    return bool(classes) and all(isinstance(c, type) and issubclass(c, Exception) for c in classes)


def _handled_types(handler: Any) -> tuple[type, ...]:
    """The exceptions ``handle_tool_errors`` handles: every one for True or a str, the
    classes given, or a handler function's (see :func:`_infer_handled_types`)."""
    if not callable(handler) or isinstance(handler, (bool, type)):
        return (Exception,)
    return _infer_handled_types(handler)


def _infer_handled_types(handler: Callable[..., Any]) -> tuple[type, ...]:
    """The exceptions a handler function takes, from its first parameter's annotation
    (``def on_error(e: ValueError)``; a Union lists several); all without one. An
    annotation that is not an exception class (or a Union of them) raises ``ValueError``."""
    try:
        parameters = [p for p in inspect.signature(handler).parameters.values() if p.name not in ("self", "cls")]
        hint = typing.get_type_hints(handler).get(parameters[0].name) if parameters else None
    except (TypeError, ValueError, NameError):
        return (Exception,)
    if hint is None:
        return (Exception,)
    options = typing.get_args(hint) if typing.get_origin(hint) in (Union, types.UnionType) else (hint,)
    if not all(isinstance(o, type) and issubclass(o, Exception) for o in options):
        raise ValueError(f"handle_tool_errors: the handler's first parameter is annotated {hint!r}; annotate it with "
                         "an exception class or a Union of them (e.g. `def handle(e: ValueError) -> str`), or leave "
                         "it unannotated to handle every exception")
    return tuple(options)
