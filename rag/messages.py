"""Chat messages: System, Human, AI (and its streamed chunk) and Tool messages.

Plain dataclasses with LangChain's field names. ``content`` is a string or a list of content
blocks (``{"type": "text", "text": ...}``); :attr:`BaseMessage.text` gives the text either way.
:func:`convert_to_messages` turns ``("human", "hi")``, ``"hi"`` and ``{"role": ..., "content": ...}``
into messages.

>>> chunks = [AIMessageChunk("Hel"), AIMessageChunk("lo")]
>>> (chunks[0] + chunks[1]).content
'Hello'
>>> convert_to_messages([("system", "Be brief."), "hi"])[1]
HumanMessage(content='hi')
"""

from __future__ import annotations

import json
from dataclasses import KW_ONLY, dataclass, field, fields, replace
from typing import Any, ClassVar, Iterable, Literal, Optional, TypedDict, Union

from rag.errors import ValidationError

__all__ = [
    "BaseMessage",
    "SystemMessage",
    "HumanMessage",
    "AIMessage",
    "AIMessageChunk",
    "ToolMessage",
    "ToolCall",
    "InvalidToolCall",
    "ToolCallChunk",
    "UsageMetadata",
    "MessageLike",
    "convert_to_messages",
    "get_buffer_string",
    "message_chunk_to_message",
    "trim_messages",
    "message_to_dict",
    "messages_to_dict",
    "messages_from_dict",
]

Content = Union[str, list[Union[str, dict[str, Any]]]]


class ToolCall(TypedDict):
    """A parsed request to call a tool: ``args`` is a dict."""

    name: str
    args: dict[str, Any]
    id: Optional[str]
    type: Literal["tool_call"]


class InvalidToolCall(TypedDict):
    """A tool call whose arguments could not be parsed: ``args`` is the raw string."""

    name: Optional[str]
    args: Optional[str]
    id: Optional[str]
    error: Optional[str]
    type: Literal["invalid_tool_call"]


class ToolCallChunk(TypedDict):
    """A streamed piece of a tool call; pieces with the same ``index`` add up."""

    name: Optional[str]
    args: Optional[str]
    id: Optional[str]
    index: Optional[int]
    type: Literal["tool_call_chunk"]


class UsageMetadata(TypedDict, total=False):
    """Token counts of one model call."""

    input_tokens: int
    output_tokens: int
    total_tokens: int


def _text_of(content: Content) -> str:
    if isinstance(content, str):
        return content
    return "".join(
        block if isinstance(block, str) else str(block.get("text", ""))
        for block in content
        if isinstance(block, str) or block.get("type") == "text"
    )


@dataclass
class BaseMessage:
    """A message: ``content`` (positional), then keyword-only ``additional_kwargs``,
    ``response_metadata``, ``name`` and ``id``."""

    content: Content
    _: KW_ONLY
    additional_kwargs: dict[str, Any] = field(default_factory=dict, repr=False)
    response_metadata: dict[str, Any] = field(default_factory=dict, repr=False)
    name: Optional[str] = field(default=None, repr=False)
    id: Optional[str] = field(default=None, repr=False)

    type: ClassVar[str] = "base"

    def __post_init__(self) -> None:
        if not isinstance(self.content, (str, list)):
            raise ValidationError(
                f"{type(self).__name__}.content must be a str or a list of content blocks, "
                f"got {type(self.content).__name__}: {self.content!r:.60}"
            )

    @property
    def text(self) -> str:
        """The text of ``content`` (text blocks joined when it is a list)."""
        return _text_of(self.content)


@dataclass(kw_only=True)
class SystemMessage(BaseMessage):
    """Instructions for the model. ``SystemMessage("Answer in French.")``"""

    type: ClassVar[str] = "system"


@dataclass(kw_only=True)
class HumanMessage(BaseMessage):
    """What the user says. ``HumanMessage("What is RAG?")``"""

    type: ClassVar[str] = "human"


def _tool_call(value: Any) -> ToolCall:
    if not isinstance(value, dict) or "name" not in value or not isinstance(value.get("args", {}), dict):
        raise ValidationError(f"a tool call needs a name and a dict of args, got {value!r:.80}")
    return {"name": value["name"], "args": value.get("args", {}), "id": value.get("id"), "type": "tool_call"}


@dataclass(kw_only=True)
class AIMessage(BaseMessage):
    """The model's reply: ``content``, ``tool_calls`` (parsed), ``invalid_tool_calls``
    (arguments that were not valid JSON, kept raw with the error) and ``usage_metadata``.

    >>> AIMessage("", tool_calls=[{"name": "search", "args": {"q": "rag"}, "id": "c1"}]).tool_calls[0]["type"]
    'tool_call'
    """

    tool_calls: list[ToolCall] = field(default_factory=list)
    invalid_tool_calls: list[InvalidToolCall] = field(default_factory=list)
    usage_metadata: Optional[UsageMetadata] = None

    type: ClassVar[str] = "ai"

    def __post_init__(self) -> None:
        super().__post_init__()
        self.tool_calls = [_tool_call(call) for call in self.tool_calls]
        self.invalid_tool_calls = [{**call, "type": "invalid_tool_call"} for call in self.invalid_tool_calls]  # type: ignore[misc]


def _merge_values(key: str, left: Any, right: Any) -> Any:
    if left is None or left == "" or left == {} or left == []:
        return right
    if right is None or right == "" or right == {} or right == []:
        return left
    if isinstance(left, str) and isinstance(right, str):
        # Identifiers and labels repeat across chunks; text pieces concatenate.
        return right if key in _KEEP_LATEST else left + right
    if isinstance(left, dict) and isinstance(right, dict):
        return merge_dicts(left, right)
    if isinstance(left, list) and isinstance(right, list):
        return left + right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)) and key not in _KEEP_LATEST:
        return left + right
    return right


_KEEP_LATEST = frozenset({"id", "type", "index", "model", "model_name", "finish_reason", "system_fingerprint",
                          "service_tier", "created"})


def merge_dicts(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """Merge two chunk dicts: text concatenates, numbers add, ids and labels keep the latest."""
    merged = dict(left)
    for key, value in right.items():
        merged[key] = _merge_values(key, merged[key], value) if key in merged else value
    return merged


def _merge_content(left: Content, right: Content) -> Content:
    if isinstance(left, str) and isinstance(right, str):
        return left + right
    as_list = lambda c: [{"type": "text", "text": c}] if isinstance(c, str) else list(c)  # noqa: E731
    return [block for block in as_list(left) + as_list(right) if block != {"type": "text", "text": ""}]


def _merge_tool_call_chunks(chunks: list[ToolCallChunk]) -> list[ToolCallChunk]:
    merged: list[ToolCallChunk] = []
    by_index: dict[int, int] = {}
    for chunk in chunks:
        index = chunk.get("index")
        if index is not None and index in by_index:
            target = merged[by_index[index]]
            target["name"] = (target.get("name") or "") + (chunk.get("name") or "") or None
            target["args"] = (target.get("args") or "") + (chunk.get("args") or "")
            target["id"] = target.get("id") or chunk.get("id")
            continue
        if index is not None:
            by_index[index] = len(merged)
        merged.append({"name": chunk.get("name"), "args": chunk.get("args"), "id": chunk.get("id"),
                       "index": index, "type": "tool_call_chunk"})
    return merged


def _parse_tool_call_chunks(chunks: list[ToolCallChunk]) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    valid: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for chunk in chunks:
        raw = chunk.get("args") or ""
        try:
            args = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            args, error = None, f"arguments are not valid JSON: {exc}"
        else:
            error = None if isinstance(args, dict) else f"arguments must be a JSON object, got {type(args).__name__}"
        if error is None and chunk.get("name"):
            valid.append({"name": chunk["name"], "args": args, "id": chunk.get("id"), "type": "tool_call"})  # type: ignore[typeddict-item]
        else:
            invalid.append({"name": chunk.get("name"), "args": chunk.get("args"), "id": chunk.get("id"),
                            "error": error or "the tool call has no name", "type": "invalid_tool_call"})
    return valid, invalid


@dataclass(kw_only=True)
class AIMessageChunk(AIMessage):
    """A streamed piece of an :class:`AIMessage`; chunks add up with ``+``: content
    concatenates, ``tool_call_chunks`` with the same index join, usage counts add.
    ``tool_calls``/``invalid_tool_calls`` are parsed from ``tool_call_chunks`` (strict JSON:
    a call whose arguments are still incomplete counts as invalid until its last piece)."""

    tool_call_chunks: list[ToolCallChunk] = field(default_factory=list)

    type: ClassVar[str] = "AIMessageChunk"

    def __post_init__(self) -> None:
        super().__post_init__()
        self.tool_call_chunks = _merge_tool_call_chunks(self.tool_call_chunks)
        if self.tool_call_chunks and not self.tool_calls and not self.invalid_tool_calls:
            self.tool_calls, self.invalid_tool_calls = _parse_tool_call_chunks(self.tool_call_chunks)

    def __add__(self, other: Any) -> "AIMessageChunk":
        if isinstance(other, (list, tuple)):
            total = self
            for chunk in other:
                total = total + chunk
            return total
        if not isinstance(other, AIMessageChunk):
            return NotImplemented
        usage = None
        if self.usage_metadata or other.usage_metadata:
            left, right = self.usage_metadata or {}, other.usage_metadata or {}
            usage = {key: left.get(key, 0) + right.get(key, 0) for key in {**left, **right}}  # type: ignore[attr-defined]
        tool_chunks = self.tool_call_chunks + other.tool_call_chunks
        return AIMessageChunk(
            _merge_content(self.content, other.content),
            additional_kwargs=merge_dicts(self.additional_kwargs, other.additional_kwargs),
            response_metadata=merge_dicts(self.response_metadata, other.response_metadata),
            name=self.name or other.name,
            id=self.id or other.id,
            tool_call_chunks=tool_chunks,
            # Chunks without tool_call_chunks may carry whole tool calls: keep those.
            tool_calls=[] if tool_chunks else self.tool_calls + other.tool_calls,
            invalid_tool_calls=[] if tool_chunks else self.invalid_tool_calls + other.invalid_tool_calls,
            usage_metadata=usage,  # type: ignore[arg-type]
        )


@dataclass(kw_only=True)
class ToolMessage(BaseMessage):
    """A tool's result, answering the tool call with id ``tool_call_id``.

    >>> ToolMessage("42", tool_call_id="call_1").tool_call_id
    'call_1'
    """

    tool_call_id: str = ""
    status: Literal["success", "error"] = "success"
    artifact: Any = field(default=None, repr=False)

    type: ClassVar[str] = "tool"

    def __post_init__(self) -> None:
        if not isinstance(self.content, (str, list)):
            self.content = json.dumps(self.content) if isinstance(self.content, dict) else str(self.content)
        super().__post_init__()
        if not isinstance(self.tool_call_id, str) or not self.tool_call_id:
            raise ValidationError(
                f"ToolMessage needs the id of the tool call it answers: tool_call_id=..., got {self.tool_call_id!r}"
            )
        if self.status not in ("success", "error"):
            raise ValidationError(f"ToolMessage.status must be 'success' or 'error', got {self.status!r}")


def message_chunk_to_message(chunk: BaseMessage) -> BaseMessage:
    """An :class:`AIMessageChunk` as a plain :class:`AIMessage`; other messages unchanged."""
    if not isinstance(chunk, AIMessageChunk):
        return chunk
    values = {f.name: getattr(chunk, f.name) for f in fields(AIMessage) if f.init and f.name != "_"}
    return AIMessage(**values)


MessageLike = Union[BaseMessage, str, tuple[str, Any], list, dict[str, Any]]


def _from_role(role: Any, content: Any, extra: dict[str, Any], original: Any) -> BaseMessage:
    # The role table imports the classes above: imported here, not at the top.
    from rag.message_roles import role_named, role_names

    kind = role_named(role)
    if kind is None:
        raise ValidationError(
            f"unknown message role {role!r} in {original!r:.80}; use one of {role_names()}"
        )
    cls = kind.message_class
    if cls is ToolMessage and not extra.get("tool_call_id"):
        raise ValidationError(f"a tool message needs a tool_call_id, got {original!r:.80}")
    return cls(content if content is not None else "", **extra)


def _coerce_message(value: Any) -> BaseMessage:
    if isinstance(value, BaseMessage):
        return value
    if isinstance(value, str):
        return HumanMessage(value)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return _from_role(value[0], value[1], {}, value)
    if isinstance(value, dict) and "role" in value:
        extra = {k: value[k] for k in ("name", "id", "tool_call_id") if value.get(k) is not None}
        if value.get("tool_calls"):
            extra["tool_calls"] = value["tool_calls"]
        return _from_role(value["role"], value.get("content"), extra, value)
    raise ValidationError(
        f"cannot make a message of {type(value).__name__} {value!r:.80}; pass a message, a string, "
        "a (role, content) pair such as ('human', 'hi'), or {'role': ..., 'content': ...}"
    )


def convert_to_messages(values: Union[Iterable[MessageLike], "Any"]) -> list[BaseMessage]:
    """Messages from a list of messages, strings, ``(role, content)`` pairs or role dicts;
    an object with ``to_messages()`` (a prompt value) gives its messages."""
    if hasattr(values, "to_messages"):
        return list(values.to_messages())
    if isinstance(values, (str, BaseMessage, dict)):
        raise ValidationError(f"convert_to_messages needs a list of messages, got {type(values).__name__}; wrap it in a list")
    return [_coerce_message(value) for value in values]


def get_buffer_string(messages: Iterable[BaseMessage], human_prefix: str = "Human", ai_prefix: str = "AI") -> str:
    """Messages as a transcript, one per line: ``"Human: hi\\nAI: hello"`` (the prefixes
    of :data:`rag.message_roles.ROLES`; a message of no kind there is prefixed with its type)."""
    from rag.message_roles import role_of

    chosen = {HumanMessage: human_prefix, AIMessage: ai_prefix}

    def prefix(message: BaseMessage) -> str:
        role = role_of(message)
        return message.type if role is None else chosen.get(role.message_class, role.prefix)

    return "\n".join(f"{prefix(m)}: {m.text}" for m in messages)


def with_content(message: BaseMessage, content: Content) -> BaseMessage:
    """A copy of ``message`` with new ``content``."""
    return replace(message, content=content)


# LangChain users import these from langchain_core.messages; they live in rag.memory (which
# imports this module), so they are loaded on first use.
_FROM_MEMORY = {"trim_messages": "rag.memory.trim", "message_to_dict": "rag.memory.base",
                "messages_to_dict": "rag.memory.base", "messages_from_dict": "rag.memory.base"}


def __getattr__(name: str) -> Any:
    if name in _FROM_MEMORY:
        import importlib

        return getattr(importlib.import_module(_FROM_MEMORY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
