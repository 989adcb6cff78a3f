"""ChatPromptTemplate: a list of message templates, fixed messages and placeholders."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence, Union

from rag.errors import ValidationError
from rag.message_roles import role_named, role_names
from rag.messages import BaseMessage, HumanMessage, convert_to_messages
from rag.prompts.base import BasePromptTemplate, PartialValue
from rag.prompts.formatting import check_template_format, format_template, template_variables
from rag.prompts.values import ChatPromptValue

__all__ = ["ChatPromptTemplate", "MessagesPlaceholder", "MessageTemplate"]


@dataclass
class MessagesPlaceholder:
    """Where a list of messages (chat history, retrieved turns) goes in a chat prompt.

    ``variable_name``: the input key holding the messages (a list of messages, strings or
    ``(role, content)`` pairs); ``optional``: a missing key gives no messages instead of an
    error (default False); ``n_messages``: keep only the last n (default all).

    >>> MessagesPlaceholder("history", n_messages=1).format_messages(history=[("human", "a"), ("ai", "b")])
    [AIMessage(content='b', tool_calls=[], invalid_tool_calls=[], usage_metadata=None)]
    """

    variable_name: str
    optional: bool = False
    n_messages: Optional[int] = None

    def __post_init__(self) -> None:
        if not isinstance(self.variable_name, str) or not self.variable_name.isidentifier():
            raise ValidationError(f"MessagesPlaceholder needs a variable name, got {self.variable_name!r}")
        if self.n_messages is not None and (isinstance(self.n_messages, bool) or not isinstance(self.n_messages, int)
                                            or self.n_messages < 1):
            raise ValidationError(f"n_messages must be a positive int or None, got {self.n_messages!r}")

    @property
    def input_variables(self) -> list[str]:
        return [self.variable_name]

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        value = kwargs.get(self.variable_name, [] if self.optional else None)
        if value is None:
            value = []
        if not isinstance(value, (list, tuple)):
            raise ValidationError(
                f"variable {self.variable_name!r} must be a list of messages, got {type(value).__name__}: {value!r:.60}"
            )
        messages = convert_to_messages(value)
        return messages[-self.n_messages:] if self.n_messages else messages


@dataclass
class MessageTemplate:
    """One message whose text is an f-string template: ``MessageTemplate(HumanMessage, "{q}")``."""

    message_class: type[BaseMessage]
    template: str

    def __post_init__(self) -> None:
        self.variables = template_variables(self.template)

    @property
    def input_variables(self) -> list[str]:
        return list(self.variables)

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        return [self.message_class(format_template(self.template, kwargs))]


Part = Union[MessageTemplate, MessagesPlaceholder, BaseMessage]
MessageLikeRepresentation = Union[BaseMessage, MessagesPlaceholder, MessageTemplate, str, tuple[str, Any]]


def _part(item: Any, template_format: str) -> Part:
    if isinstance(item, (BaseMessage, MessagesPlaceholder, MessageTemplate)):
        return item
    if isinstance(item, str):
        return MessageTemplate(HumanMessage, item)
    if isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str):
        role, text = item
        if role == "placeholder":
            names = template_variables(text) if isinstance(text, str) else []
            if len(names) != 1:
                raise ValidationError(f"a placeholder is written ('placeholder', '{{name}}'), got {item!r:.80}")
            return MessagesPlaceholder(names[0], optional=True)
        kind = role_named(role)
        if kind is None:
            raise ValidationError(
                f"unknown role {role!r} in {item!r:.80}; use one of {role_names(templated=True)} or 'placeholder'"
            )
        if not kind.templated:
            raise ValidationError(
                f"a {role!r} message cannot be a template, got {item!r:.80}: a {kind.message_class.__name__} "
                "answers a tool call by its id; put the message itself in the list"
            )
        if not isinstance(text, str):
            raise ValidationError(f"the template of {role!r} must be a str, got {type(text).__name__}")
        return MessageTemplate(kind.message_class, text)
    raise ValidationError(
        f"cannot use {type(item).__name__} {item!r:.80} in a chat prompt; pass (role, template) pairs, "
        "strings, messages or MessagesPlaceholder"
    )


class ChatPromptTemplate(BasePromptTemplate):
    """Message templates, fixed messages and placeholders formatted into a
    :class:`ChatPromptValue`. Pairs like ``("system", "You answer from {context}")`` and plain
    strings (human) are templates; message objects are used as they are;
    ``("placeholder", "{history}")`` is an optional :class:`MessagesPlaceholder`.

    >>> prompt = ChatPromptTemplate.from_messages([("system", "Be {style}."), ("human", "{question}")])
    >>> prompt.input_variables
    ['question', 'style']
    >>> prompt.invoke({"style": "brief", "question": "What is RAG?"}).to_string()
    'System: Be brief.\\nHuman: What is RAG?'
    """

    def __init__(
        self,
        messages: Sequence[MessageLikeRepresentation],
        *,
        template_format: str = "f-string",
        partial_variables: Optional[dict[str, PartialValue]] = None,
    ) -> None:
        check_template_format(template_format)
        if isinstance(messages, (str, tuple)) or not isinstance(messages, Sequence):
            raise ValidationError(f"ChatPromptTemplate needs a list of messages, got {type(messages).__name__}")
        self.messages: list[Part] = [_part(item, template_format) for item in messages]
        self.template_format = template_format
        self.partial_variables = dict(partial_variables or {})
        required: set[str] = set()
        optional: set[str] = set()
        for part in self.messages:
            if isinstance(part, MessagesPlaceholder) and part.optional:
                optional.add(part.variable_name)
            elif not isinstance(part, BaseMessage):
                required.update(part.input_variables)
        self.input_variables = sorted(required - set(self.partial_variables))
        self.optional_variables = sorted(optional - required - set(self.partial_variables))
        self.name = None

    @classmethod
    def from_messages(cls, messages: Sequence[MessageLikeRepresentation], template_format: str = "f-string") -> "ChatPromptTemplate":
        return cls(messages, template_format=template_format)

    @classmethod
    def from_template(cls, template: str, **kwargs: Any) -> "ChatPromptTemplate":
        """One human message template."""
        return cls([("human", template)], **kwargs)

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        values = self._merged(self._check_input(kwargs))
        formatted: list[BaseMessage] = []
        for part in self.messages:
            formatted.extend([part] if isinstance(part, BaseMessage) else part.format_messages(**values))
        return formatted

    def format_prompt(self, **kwargs: Any) -> ChatPromptValue:
        return ChatPromptValue(self.format_messages(**kwargs))

    def format(self, **kwargs: Any) -> str:
        """The messages as a transcript string."""
        return self.format_prompt(**kwargs).to_string()

    def partial(self, **kwargs: PartialValue) -> "ChatPromptTemplate":
        return ChatPromptTemplate(self.messages, template_format=self.template_format,
                                  partial_variables={**self.partial_variables, **kwargs})

    def __add__(self, other: Any) -> "ChatPromptTemplate":
        """Appends messages: another chat prompt, a message-like item or a list of them."""
        if isinstance(other, ChatPromptTemplate):
            extra: list[Any] = other.messages
        elif isinstance(other, list):
            extra = other
        else:
            extra = [other]
        return ChatPromptTemplate([*self.messages, *extra], template_format=self.template_format,
                                  partial_variables=self.partial_variables)

    def _variable_schema(self, name: str) -> dict[str, Any]:
        if any(isinstance(part, MessagesPlaceholder) and part.variable_name == name for part in self.messages):
            from rag.runnables.schema import MESSAGES_SCHEMA

            return {"title": name.replace("_", " ").title(), **MESSAGES_SCHEMA}
        return super()._variable_schema(name)

    def __len__(self) -> int:
        return len(self.messages)

    def __repr__(self) -> str:
        return f"ChatPromptTemplate(input_variables={self.input_variables!r}, messages={len(self.messages)})"
