"""Structured answers from an agent: ``create_agent(response_format=...)`` (langchain 1.x's
``langchain.agents.structured_output``).

- :class:`ToolStrategy`: the schema is offered as a tool; the model answers by calling it,
  the arguments are validated, and on an error the model gets the error as the tool's
  answer and tries again (``handle_errors``).
- :class:`ProviderStrategy`: the model's own JSON mode (OpenAI-compatible
  ``response_format={"type": "json_schema", ...}``); a reply that does not fit raises.
- A bare schema (pydantic model, dataclass, TypedDict, JSON schema dict): ProviderStrategy
  when the model's ``profile`` says ``structured_output``, else ToolStrategy.

The answer is in ``state["structured_response"]``.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

from rag.errors import InvalidTypeError, RagError
from rag.messages import AIMessage, ToolMessage
from rag.models.structured import OutputSchema, as_tool, output_schema, read_json

__all__ = ["ToolStrategy", "ProviderStrategy", "StructuredOutputError", "StructuredOutputValidationError",
           "MultipleStructuredOutputsError", "STRUCTURED_OUTPUT_ERROR_TEMPLATE"]

#: The tool answer the model gets when its structured answer did not fit (LangChain's text).
STRUCTURED_OUTPUT_ERROR_TEMPLATE = "Error: {error}\n Please fix your mistakes."

HandleErrors = Union[bool, str, type, tuple, Callable[[Exception], str]]


class StructuredOutputError(RagError, ValueError):
    """The model's structured answer could not be used; ``ai_message`` is the reply."""

    def __init__(self, message: str, ai_message: Optional[AIMessage] = None) -> None:
        super().__init__(message)
        self.ai_message = ai_message


class StructuredOutputValidationError(StructuredOutputError):
    """The answer given through ``tool_name`` does not fit its schema."""

    def __init__(self, tool_name: str, source: Exception, ai_message: Optional[AIMessage] = None) -> None:
        super().__init__(f"Failed to parse structured output for tool '{tool_name}': {source}.", ai_message)
        self.tool_name, self.source = tool_name, source


class MultipleStructuredOutputsError(StructuredOutputError):
    """The model answered through several structured-output tools at once."""

    def __init__(self, tool_names: list[str], ai_message: Optional[AIMessage] = None) -> None:
        super().__init__(f"Model incorrectly returned multiple structured responses ({', '.join(tool_names)}) when "
                         "only one is expected.", ai_message)
        self.tool_names = tool_names


def _variants(schema: Any) -> list[Any]:
    if typing.get_origin(schema) in (Union, types.UnionType):
        return list(typing.get_args(schema))
    return [schema]


@dataclass(init=False)
class ToolStrategy:
    """Answer through a tool call. ``schema``: a schema or a Union of them (one tool each);
    ``tool_message_content``: the tool answer recorded after a good answer (default
    "Returning structured response: ..."); ``handle_errors`` (default True): on a misfit,
    send the error (True), a fixed text (str), a function's text, or only for the given
    exception classes; False raises."""

    schema: Any
    tool_message_content: Optional[str]
    handle_errors: HandleErrors

    def __init__(self, schema: Any, *, tool_message_content: Optional[str] = None,
                 handle_errors: HandleErrors = True) -> None:
        self.schema, self.tool_message_content, self.handle_errors = schema, tool_message_content, handle_errors
        self.specs: dict[str, OutputSchema] = {s.name: s for s in map(output_schema, _variants(schema))}

    def retry_text(self, exc: Exception) -> Optional[str]:
        """The tool answer asking for another try, or None to raise."""
        handle = self.handle_errors
        if handle is False:
            return None
        if handle is True:
            return STRUCTURED_OUTPUT_ERROR_TEMPLATE.format(error=exc)
        if isinstance(handle, str):
            return handle
        if isinstance(handle, (type, tuple)):
            return STRUCTURED_OUTPUT_ERROR_TEMPLATE.format(error=exc) if isinstance(exc, handle) else None
        return handle(exc)

    def tools(self) -> list[dict[str, Any]]:
        return [as_tool(spec) for spec in self.specs.values()]

    def read(self, reply: AIMessage) -> tuple[list[Any], Any]:
        """The messages to add after ``reply`` and the structured answer (None when there is
        none yet)."""
        calls = [c for c in reply.tool_calls if c["name"] in self.specs]
        if not calls:
            return [], None
        try:
            if len(calls) > 1:
                raise MultipleStructuredOutputsError([c["name"] for c in calls], reply)
            call = calls[0]
            try:
                answer = self.specs[call["name"]].parse(call["args"])
            except Exception as exc:
                raise StructuredOutputValidationError(call["name"], exc, reply) from exc
        except StructuredOutputError as exc:
            text = self.retry_text(exc)
            if text is None:
                raise
            return [ToolMessage(text, tool_call_id=c["id"], name=c["name"]) for c in calls], None
        content = self.tool_message_content or f"Returning structured response: {answer}"
        return [ToolMessage(content, tool_call_id=call["id"], name=call["name"])], answer


@dataclass(init=False)
class ProviderStrategy:
    """Answer in the model's JSON mode: ``response_format={"type": "json_schema",
    "json_schema": {"name", "schema", "strict"}}`` (``strict`` default None: not sent)."""

    schema: Any
    strict: Optional[bool]

    def __init__(self, schema: Any, *, strict: Optional[bool] = None) -> None:
        self.schema, self.strict = schema, strict
        self.spec = output_schema(schema)

    def model_kwargs(self) -> dict[str, Any]:
        schema = {"name": self.spec.name, "schema": self.spec.json_schema}
        if self.strict is not None:
            schema["strict"] = self.strict
        return {"response_format": {"type": "json_schema", "json_schema": schema}}

    def read(self, reply: AIMessage) -> tuple[list[Any], Any]:
        if reply.tool_calls:
            return [], None  # the model is still using tools
        try:
            return [], self.spec.parse(read_json(reply.text))
        except Exception as exc:
            raise StructuredOutputValidationError(self.spec.name, exc, reply) from exc


def resolve(response_format: Any, model: Any) -> Union[ToolStrategy, ProviderStrategy, None]:
    """The strategy for ``response_format`` (see the module docstring); a value that is no
    schema raises naming it."""
    if response_format is None or isinstance(response_format, (ToolStrategy, ProviderStrategy)):
        return response_format
    try:
        profile = getattr(model, "profile", None)
        if isinstance(profile, dict) and profile.get("structured_output"):
            return ProviderStrategy(response_format)
        return ToolStrategy(response_format)
    except InvalidTypeError as exc:
        raise InvalidTypeError(f"response_format must be ToolStrategy(...), ProviderStrategy(...) or a schema: "
                               f"{exc}") from exc
