"""The names each kind of chat message goes by: one table, :data:`ROLES`.

A kind of message has several names: LangChain's type tag (``message.type``, the ``"type"``
of a LangServe or ``message_to_dict`` record, ``"human"``), the tag of its streamed chunk
(``"HumanMessageChunk"``), the roles a ``(role, content)`` pair or a role dict may give
(``"human"`` or ``"user"``), OpenAI's chat roles (``"user"``) and the prefix of a transcript
line (``"Human: hi"``). Every place that turns one of these names into a message class, or a
message into one of them, reads this table: :func:`rag.messages.convert_to_messages` and
:func:`~rag.messages.get_buffer_string`, prompt templates (:mod:`rag.prompts.chat`), the
wire codec (:mod:`rag.codec`), the graph's checkpoints (:mod:`rag.graph.checkpoint.serde`)
and the OpenAI formats (:mod:`rag.models._openai_format`, :mod:`rag.serve.openai_api`).

LangChain's ``FunctionMessage`` (type ``"function"``) and ``ChatMessage`` (type ``"chat"``,
any role) have no class here: their records decode as plain dicts, as LangServe does with
a type it does not know. OpenAI's legacy ``"function"`` role is read as a tool result.

>>> role_named("user").message_class.__name__
'HumanMessage'
>>> message_class_for_type("HumanMessageChunk").__name__, message_class_for_type("AIMessageChunk").__name__
('HumanMessage', 'AIMessageChunk')
>>> role_of(AIMessageChunk("hi")).openai_role
'assistant'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Type

from rag.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage, ToolMessage

__all__ = [
    "MessageRole",
    "ROLES",
    "OPENAI_ROLES",
    "role_named",
    "role_of",
    "openai_role_named",
    "message_class_for_type",
    "role_names",
]


@dataclass(frozen=True)
class MessageRole:
    """One kind of message under all its names.

    ``message_class``: the class (its ``type`` is LangChain's type tag); ``names``: the
    roles a ``(role, content)`` pair or a role dict may give, the type tag first;
    ``openai_roles``: OpenAI's chat roles read as this kind, the one sent first;
    ``prefix``: the transcript prefix; ``chunk_class``: the class a streamed chunk of this
    kind decodes to (default the whole message: only AI chunks are kept as chunks here);
    ``templated``: whether a prompt template builds it from a ``(role, template)`` pair (a
    tool message answers a tool call by id, which a template cannot give).
    """

    # typing.Type: in this class's namespace, ``type`` is the property below.
    message_class: Type[BaseMessage]
    names: tuple[str, ...]
    openai_roles: tuple[str, ...]
    prefix: str
    chunk_class: Optional[Type[BaseMessage]] = None
    templated: bool = True

    @property
    def type(self) -> str:
        """LangChain's type tag: ``"human"``, ``"ai"``, ``"system"`` or ``"tool"``."""
        return self.message_class.type

    @property
    def chunk_type(self) -> str:
        """LangChain's type tag of a streamed chunk: ``"HumanMessageChunk"``..."""
        return f"{self.message_class.__name__}Chunk"

    @property
    def openai_role(self) -> str:
        """The OpenAI role a message of this kind is sent with."""
        return self.openai_roles[0]


ROLES: tuple[MessageRole, ...] = (
    MessageRole(HumanMessage, ("human", "user"), ("user",), "Human"),
    MessageRole(AIMessage, ("ai", "assistant"), ("assistant",), "AI", chunk_class=AIMessageChunk),
    # "developer" is OpenAI's newer name for the system role (o1 and later models).
    MessageRole(SystemMessage, ("system", "developer"), ("system", "developer"), "System"),
    # "function" is OpenAI's legacy tool-result role: older clients still send it in a history.
    MessageRole(ToolMessage, ("tool",), ("tool", "function"), "Tool", templated=False),
)

_BY_NAME = {name: role for role in ROLES for name in role.names}
_BY_OPENAI_ROLE = {name: role for role in ROLES for name in role.openai_roles}
_CLASS_BY_TYPE: dict[str, type[BaseMessage]] = {
    **{role.type: role.message_class for role in ROLES},
    **{role.chunk_type: role.chunk_class or role.message_class for role in ROLES},
}

#: Every OpenAI chat role read, in table order.
OPENAI_ROLES: tuple[str, ...] = tuple(_BY_OPENAI_ROLE)


def role_named(name: object) -> Optional[MessageRole]:
    """The kind of message a ``(role, content)`` pair or role dict names (``"human"``,
    ``"user"``, ``"ai"``, ``"assistant"``, ``"system"``, ``"developer"``, ``"tool"``), or None."""
    return _BY_NAME.get(name) if isinstance(name, str) else None


def openai_role_named(name: object) -> Optional[MessageRole]:
    """The kind of message an OpenAI chat role names, or None."""
    return _BY_OPENAI_ROLE.get(name) if isinstance(name, str) else None


def role_of(message: BaseMessage) -> Optional[MessageRole]:
    """The kind ``message`` is (a chunk is of its message's kind), or None for a message
    of no kind here (the graph's ``RemoveMessage``)."""
    for role in ROLES:
        if isinstance(message, role.message_class):
            return role
    return None


def message_class_for_type(type_tag: object) -> Optional[type[BaseMessage]]:
    """The class a record with LangChain's type tag ``type_tag`` loads as (``"human"``,
    ``"AIMessageChunk"``, ``"HumanMessageChunk"``...), or None for a tag of no kind here."""
    return _CLASS_BY_TYPE.get(type_tag) if isinstance(type_tag, str) else None


def role_names(*, templated: bool = False) -> list[str]:
    """Every role name a pair may give, sorted (``templated``: only those a prompt
    template builds), for messages that list the choices."""
    return sorted(name for role in ROLES if role.templated or not templated for name in role.names)
