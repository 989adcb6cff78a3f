"""One tool call on its way through a :class:`~rag.agents.ToolNode`: the request a
``wrap_tool_call`` interceptor (or an agent middleware's) sees, and the checks on what the
tool gave back (LangGraph 1.2's ``langgraph.prebuilt.tool_node`` semantics).

A tool may answer with a ToolMessage (its content made text as LangGraph makes it: JSON for
anything but a str or a list of content blocks), a ``Command`` updating the graph state
(whose update must answer the call with a ToolMessage of its id), or a list of both (with
exactly one such answer).
"""

from __future__ import annotations

import copy
import json
import warnings
from dataclasses import dataclass, replace
from typing import Any, Awaitable, Callable, Literal, Optional, Union

from rag.errors import InvalidTypeError
from rag.graph.message import REMOVE_ALL_MESSAGES, RemoveMessage
from rag.graph.types import Command
from rag.messages import ToolMessage, convert_to_messages

__all__ = ["ToolCallRequest", "ToolCallWrapper", "AsyncToolCallWrapper", "InputType", "msg_content_output",
           "normalize_tool_response"]

InputType = Literal["list", "dict", "tool_calls"]

_CONTENT_BLOCK_TYPES = frozenset({"text", "image_url", "image", "json", "search_result", "custom_tool_call_output",
                                  "document", "file"})


@dataclass
class ToolCallRequest:
    """One tool call about to run: ``tool_call`` (name, args, id), ``tool`` (None for a name
    no tool has: an interceptor may answer it itself), ``state`` (the graph state, or the
    list of messages the ToolNode was given) and ``runtime`` (a
    :class:`~rag.agents.ToolRuntime` in a ToolNode). Change it with :meth:`override`;
    setting an attribute works but warns (``DeprecationWarning``), as in LangGraph."""

    tool_call: dict[str, Any]
    tool: Any
    state: Any
    runtime: Any = None

    def __setattr__(self, name: str, value: Any) -> None:
        if hasattr(self, "__dataclass_fields__") and name in self.__dict__:
            warnings.warn(f"Setting attribute '{name}' on ToolCallRequest is deprecated. Use the override() method "
                          "instead to create a new instance with modified values.", DeprecationWarning, stacklevel=2)
        object.__setattr__(self, name, value)

    def override(self, **overrides: Any) -> "ToolCallRequest":
        """A copy with ``tool_call``, ``tool``, ``state`` or ``runtime`` replaced (a new
        ``state`` reaches the runtime's ``state`` too)."""
        request = replace(self, **overrides)
        if "state" in overrides and hasattr(request.runtime, "tool_call_id") and hasattr(request.runtime, "state"):
            object.__setattr__(request, "runtime", replace(request.runtime, state=request.state))
        return request


#: ``wrap_tool_call(request, execute)``: ``execute(request)`` runs the tool (any number of
#: times: retries, changed arguments); the wrapper returns a ToolMessage or a Command.
ToolCallWrapper = Callable[[ToolCallRequest, Callable[[ToolCallRequest], Any]], Any]
AsyncToolCallWrapper = Callable[[ToolCallRequest, Callable[[ToolCallRequest], Awaitable[Any]]], Awaitable[Any]]


def msg_content_output(output: Any) -> Union[str, list]:
    """A tool's output as ToolMessage content: a str or a list of content blocks as it is,
    anything else as JSON text (``str()`` when it is not JSON-able)."""
    if isinstance(output, str) or (isinstance(output, list) and all(
            isinstance(block, dict) and block.get("type") in _CONTENT_BLOCK_TYPES for block in output)):
        return output
    try:
        return json.dumps(output, ensure_ascii=False)
    except Exception:  # not JSON-able: its text, as LangGraph
        return str(output)


def normalize_tool_response(response: Any, call: dict[str, Any], input_type: InputType, messages_key: str) -> Any:
    """``response`` checked: a ToolMessage (content made text), a Command (its update must
    answer ``call``), or a list of both answering it exactly once."""
    if isinstance(response, Command):
        return _checked_command(response, call, input_type, messages_key)
    if isinstance(response, ToolMessage):
        response.content = msg_content_output(response.content)
        return response
    if isinstance(response, list):
        if not all(isinstance(item, (Command, ToolMessage)) for item in response):
            raise TypeError(f"Tool {call['name']} returned a list with invalid element types: expected all Command "
                            "or ToolMessage")
        answers = sum(1 for item in response if isinstance(item, ToolMessage) and item.tool_call_id == call["id"])
        answers += sum(1 for item in response if isinstance(item, Command) and isinstance(item.update, dict)
                       for m in item.update.get(messages_key, [])
                       if isinstance(m, ToolMessage) and m.tool_call_id == call["id"])
        if answers != 1:
            raise ValueError(f"Tool {call['name']} returned a list with {answers} messages bound to tool_call_id "
                             f"{call['id']!r}; expected exactly one terminating ToolMessage.")
        return [_checked_command(item, call, input_type, messages_key, require_answer=False)
                if isinstance(item, Command) else normalize_tool_response(item, call, input_type, messages_key)
                for item in response]
    raise TypeError(f"Tool {call['name']} returned unexpected type: {type(response)}")


def _checked_command(command: Command, call: dict[str, Any], input_type: InputType, messages_key: str, *,
                     require_answer: bool = True) -> Command:
    if isinstance(command.update, dict):
        if input_type not in ("dict", "tool_calls"):
            raise ValueError(f"Tools can provide a dict in Command.update only when using dict with '{messages_key}' "
                             f"key as ToolNode input, got: {command.update} for tool '{call['name']}'")
        command = replace(command, update=copy.deepcopy(command.update))  # not deepcopy(command): the resume sentinel
        messages = command.update.get(messages_key, [])  # type: ignore[union-attr]
    elif isinstance(command.update, list):
        if input_type != "list":
            raise ValueError("Tools can provide a list of messages in Command.update only when using list of "
                             f"messages as ToolNode input, got: {command.update} for tool '{call['name']}'")
        command = replace(command, update=copy.deepcopy(command.update))  # not deepcopy(command): the resume sentinel
        messages = command.update
    else:
        return command
    messages = convert_to_messages(messages if isinstance(messages, list) else [messages])
    if len(messages) == 1 and isinstance(messages[0], RemoveMessage) and messages[0].id == REMOVE_ALL_MESSAGES:
        return command
    answered = False
    for message in messages:
        if isinstance(message, ToolMessage) and message.tool_call_id == call["id"]:
            message.name = call["name"]
            answered = True
    if isinstance(command.update, dict):
        if messages_key in command.update:
            command.update[messages_key] = messages
    else:
        command = replace(command, update=messages)  # type: ignore[arg-type]
    if require_answer and command.graph is None and not answered:
        example = ('`Command(update={"messages": [ToolMessage("Success", tool_call_id=tool_call_id), ...]}, ...)`'
                   if input_type == "dict" else
                   '`Command(update=[ToolMessage("Success", tool_call_id=tool_call_id), ...], ...)`')
        raise ValueError(f"Expected to have a matching ToolMessage in Command.update for tool '{call['name']}', got: "
                         f"{messages}. Every tool call (LLM requesting to call a tool) in the message history MUST "
                         f"have a corresponding ToolMessage. You can fix it by modifying the tool to return {example}.")
    return command


def combine_tool_outputs(outputs: list[Any], input_type: InputType, messages_key: str) -> Any:
    """The ToolNode's return value: ``{messages_key: [ToolMessage...]}`` (a list for a list
    input) when no tool returned a Command; otherwise a list with each Command and each
    ToolMessage wrapped as an update, in call order (the graph applies them in turn)."""
    flat: list[Any] = []
    for output in outputs:
        flat.extend(output if isinstance(output, list) else [output])
    if not any(isinstance(output, Command) for output in flat):
        return flat if input_type == "list" else {messages_key: flat}
    return [output if isinstance(output, Command) else ([output] if input_type == "list" else {messages_key: [output]})
            for output in flat]


def check_wrapper(value: Any, name: str) -> Optional[Callable[..., Any]]:
    if value is not None and not callable(value):
        raise InvalidTypeError(f"{name} must be a function (request, execute) -> ToolMessage | Command, got "
                               f"{type(value).__name__}: {value!r:.60}")
    return value


def state_of(input: Any) -> Any:
    """The state a tool call's request carries for a ToolNode input (see ToolNode)."""
    if isinstance(input, dict) and input.get("__type") == "tool_call_with_context":
        return input["state"]
    if isinstance(input, list) and input and isinstance(input[-1], dict) and input[-1].get("type") == "tool_call":
        return {}
    return input


def input_type_of(input: Any) -> InputType:
    if isinstance(input, list):
        return "tool_calls" if input and isinstance(input[-1], dict) and input[-1].get("type") == "tool_call" \
            else "list"
    if isinstance(input, dict) and input.get("__type") == "tool_call_with_context":
        return "tool_calls"
    return "dict"
