"""``add_messages``: the reducer for a list of chat messages, and ``MessagesState``.

New messages are appended; a message whose ``id`` is already in the list replaces it (so
a node can edit a message); a :class:`RemoveMessage` deletes the message with its id.
Messages without an id get a new uuid4 string. Inputs may be anything
:func:`rag.messages.convert_to_messages` accepts (``("human", "hi")``, ``"hi"``, role dicts).
``add_messages(format="langchain-openai")`` (no lists) is the same reducer keeping the
messages' content in OpenAI's format (:mod:`rag.graph._openai_format`).
:func:`push_message` sends a message to the ``"messages"`` stream from inside a node, and
writes it to the state.

>>> from rag.messages import AIMessage, HumanMessage
>>> history = add_messages([HumanMessage("hi", id="1")], [AIMessage("hello", id="2")])
>>> [m.content for m in history]
['hi', 'hello']
>>> [m.content for m in add_messages(history, [AIMessage("hello!", id="2")])]
['hi', 'hello!']
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from functools import partial
# Optional: the dataclass __init__ of RemoveMessage reads the annotations of the fields it
# inherits from BaseMessage ("Optional[str]") in this module, for typing.get_type_hints.
from typing import Annotated, Any, ClassVar, Optional, TypedDict  # noqa: F401

from rag.errors import ValidationError
from rag.graph import _stream_messages as stream_messages
from rag.graph._openai_format import openai_format
from rag.graph.config import get_config
from rag.graph.errors import InvalidUpdateError
from rag.messages import BaseMessage, convert_to_messages, message_chunk_to_message

__all__ = ["add_messages", "push_message", "RemoveMessage", "REMOVE_ALL_MESSAGES", "MessagesState"]

#: The values of ``add_messages(format=...)``: None (messages as given) or this one.
FORMATS = (None, "langchain-openai")

#: ``RemoveMessage(id=REMOVE_ALL_MESSAGES)`` clears the list (then later messages are kept).
REMOVE_ALL_MESSAGES = "__remove_all__"


@dataclass(kw_only=True)
class RemoveMessage(BaseMessage):
    """Deletes the message with ``id`` from a list reduced by :func:`add_messages`."""

    content: Any = ""
    type: ClassVar[str] = "remove"

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise InvalidUpdateError(f"RemoveMessage needs the id of the message to remove, got {self.id!r}")


def _as_messages(value: Any) -> list[BaseMessage]:
    pair = isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str)
    if isinstance(value, (BaseMessage, str, dict)) or pair:
        value = [value]
    messages = [message_chunk_to_message(m) for m in convert_to_messages(value)]
    for message in messages:
        if message.id is None:
            message.id = str(uuid.uuid4())
    return messages


def add_messages(left: Any = None, right: Any = None, *, format: Optional[str] = None) -> Any:
    """``left`` with ``right`` merged in by id (see the module docstring); returns a new list.
    Called with neither list (``add_messages(format="langchain-openai")``), returns that
    reducer; ``format`` is None or ``"langchain-openai"`` (OpenAI-shaped content)."""
    if format not in FORMATS:
        raise ValidationError(f"Unrecognized format={format!r}. Expected one of 'langchain-openai', None.")
    if left is None and right is None:
        return partial(add_messages, format=format)
    if left is None or right is None:
        raise ValidationError(
            f"add_messages needs both lists (left and right) or neither (to configure it); got only "
            f"{'left' if right is None else 'right'}"
        )
    merged = _merge(left, right)
    return openai_format(merged) if format == "langchain-openai" else merged


def _merge(left: Any, right: Any) -> list[BaseMessage]:
    current = _as_messages(left)
    incoming = _as_messages(right)
    cut = max((i for i, m in enumerate(incoming) if isinstance(m, RemoveMessage) and m.id == REMOVE_ALL_MESSAGES),
              default=None)
    if cut is not None:
        return incoming[cut + 1:]
    merged = list(current)
    position = {m.id: i for i, m in enumerate(merged)}
    removed: set[str] = set()
    for message in incoming:
        at = position.get(message.id)
        if isinstance(message, RemoveMessage):
            if at is None:
                raise InvalidUpdateError(
                    f"Attempting to delete a message with an ID that doesn't exist ({message.id!r}): "
                    f"RemoveMessage(id={message.id!r}) names no message in the list (ids: {list(position)[:10]})"
                )
            removed.add(message.id)  # type: ignore[arg-type]
        elif at is not None:
            # A message re-added after its RemoveMessage in the same update stays (as LangGraph's),
            # in the place the removed one held.
            removed.discard(message.id)
            merged[at] = message
        else:
            position[message.id] = len(merged)
            merged.append(message)
    return [m for m in merged if m.id not in removed] if removed else merged


def push_message(message: Any, *, state_key: Optional[str] = "messages") -> BaseMessage:
    """Send ``message`` (a message, chunk, or anything :func:`rag.messages.convert_to_messages`
    takes; it needs an ``id``) to the run's ``"messages"`` stream now, with the running
    node's metadata, and write it to the state key ``state_key`` with the node's update
    (None: only streamed). Call it inside a node; returns the message."""
    config = get_config()
    pushed = message_chunk_to_message(convert_to_messages([message])[0])
    if pushed.id is None:
        raise ValidationError(f"Message ID is required: push_message got {message!r:.80} without an id")
    stream_messages.push(config, pushed, state_key)
    return pushed


class MessagesState(TypedDict):
    """A state with one key, ``messages``, reduced by :func:`add_messages`."""

    messages: Annotated[list, add_messages]
