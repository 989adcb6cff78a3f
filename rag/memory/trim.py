"""trim_messages: keep a conversation under a token budget, never splitting a tool exchange.

Unlike LangChain's, an AIMessage that calls tools and the ToolMessages answering it are
kept or dropped together: LangChain's ``strategy="last"`` can keep the ToolMessages and
drop the AIMessage that asked for them (or ``"first"`` the reverse), which chat APIs
refuse ("messages with role 'tool' must be a response to a preceding message with
'tool_calls'"). Everything else follows LangChain 1.x: the same parameters, the same
results when no tool exchange is at the edge.

>>> from rag.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
>>> history = [SystemMessage("Be brief."), HumanMessage("weather?"),
...            AIMessage("", tool_calls=[{"name": "weather", "args": {}, "id": "c1"}]),
...            ToolMessage("sunny", tool_call_id="c1"), AIMessage("Sunny.")]
>>> [m.type for m in trim_messages(history, max_tokens=3, token_counter=len, include_system=True)]
['system', 'ai']
>>> [m.type for m in trim_messages(history, max_tokens=4, token_counter=len, include_system=True)]
['system', 'ai', 'tool', 'ai']
"""

from __future__ import annotations

import copy
import functools
import inspect
from typing import Any, Callable, Iterable, Literal, Optional, Sequence, Union

from rag.errors import ValidationError
from rag.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage, convert_to_messages

__all__ = ["trim_messages"]

TypeSpec = Union[str, type, Sequence[Union[str, type]]]


def _is_type(message: BaseMessage, spec: TypeSpec) -> bool:
    specs = [spec] if isinstance(spec, (str, type)) else list(spec)
    return any(message.type == s if isinstance(s, str) else isinstance(message, s) for s in specs)


def _groups(messages: list[BaseMessage]) -> list[list[BaseMessage]]:
    """Runs of messages that must stay together: an AIMessage with tool calls and the
    ToolMessages that follow it; every other message alone."""
    groups: list[list[BaseMessage]] = []
    for message in messages:
        if isinstance(message, ToolMessage) and groups and (
                isinstance(groups[-1][0], AIMessage) and groups[-1][0].tool_calls):
            groups[-1].append(message)
        else:
            groups.append([message])
    return groups


def _list_counter(token_counter: Any) -> Callable[[list[BaseMessage]], int]:
    if hasattr(token_counter, "get_num_tokens_from_messages"):
        return token_counter.get_num_tokens_from_messages
    if not callable(token_counter):
        raise ValidationError(f"token_counter must be a function of a list of messages (e.g. len), a function of one "
                              f"message, or a model with get_num_tokens_from_messages; got {token_counter!r:.60}")
    try:
        first = next(iter(inspect.signature(token_counter).parameters.values()), None)
    except (TypeError, ValueError):  # builtins such as len have no signature to read
        first = None
    if first is not None and first.annotation in (BaseMessage, "BaseMessage"):
        return lambda messages: sum(token_counter(message) for message in messages)
    return token_counter


def _flat(groups: Sequence[list[BaseMessage]]) -> list[BaseMessage]:
    return [message for group in groups for message in group]


def _fitting(groups: list[list[BaseMessage]], budget: int, count: Callable[[list[BaseMessage]], int]) -> int:
    """How many leading groups fit in ``budget`` (binary search; counts grow with length)."""
    low, high = 0, len(groups)
    while low < high:
        middle = (low + high + 1) // 2
        if count(_flat(groups[:middle])) <= budget:
            low = middle
        else:
            high = middle - 1
    return low


def _default_splitter(text: str) -> list[str]:
    pieces = text.split("\n")
    return [piece + "\n" for piece in pieces[:-1]] + pieces[-1:]


def _partial(kept: list[BaseMessage], message: BaseMessage, budget: int, count: Callable[[list[BaseMessage]], int],
             splitter: Callable[[str], list[str]], from_end: bool) -> Optional[BaseMessage]:
    """As much of ``message`` as fits after ``kept``: whole content blocks first, else the
    lines of its first text (the blocks or lines nearest the kept side, as LangChain)."""
    excluded = copy.deepcopy(message)
    if isinstance(excluded.content, list):
        blocks = list(reversed(excluded.content)) if from_end else list(excluded.content)
        for size in range(len(blocks) - 1, 0, -1):
            excluded.content = blocks[:size]
            if count([*kept, excluded]) <= budget:
                excluded.content = list(reversed(blocks[:size])) if from_end else blocks[:size]
                return excluded
        # As LangChain: the lines of the one block nearest the kept side.
        excluded.content = blocks[:1]
    content = excluded.content
    text = content if isinstance(content, str) else next(
        (b if isinstance(b, str) else b.get("text") for b in content
         if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")), None)
    if not text:
        return None
    pieces = splitter(text)
    pieces = list(reversed(pieces)) if from_end else pieces
    base = count(kept)
    low, high = 0, len(pieces)
    while low < high:
        middle = (low + high + 1) // 2
        excluded.content = "".join(pieces[:middle])
        if base + count([excluded]) <= budget:
            low = middle
        else:
            high = middle - 1
    if low == 0:
        return None
    chosen = pieces[:low]
    excluded.content = "".join(reversed(chosen) if from_end else chosen)
    return excluded


def trim_messages(messages: Optional[Iterable[Any]] = None, *, max_tokens: int, token_counter: Any,
                  strategy: Literal["first", "last"] = "last", allow_partial: bool = False,
                  end_on: Optional[TypeSpec] = None, start_on: Optional[TypeSpec] = None,
                  include_system: bool = False, text_splitter: Optional[Callable[[str], list[str]]] = None) -> Any:
    """The messages (or message-likes) that fit in ``max_tokens`` (int >= 0) as counted by
    ``token_counter``: a function of a list of messages (``len`` counts messages), of one
    message (its first parameter annotated ``BaseMessage``), or a model with
    ``get_num_tokens_from_messages``.

    ``strategy``: ``"last"`` (default) keeps the newest messages, ``"first"`` the oldest.
    ``start_on``/``end_on``: message types (``"human"``, ``"ai"``, classes, or a list) the
    result must start/end with (``start_on`` with ``"last"`` only); ``include_system``
    keeps a leading SystemMessage (``"last"`` only). ``allow_partial``: keep part of the
    message at the edge (its content blocks, else lines of its text; ``text_splitter``
    splits differently). An AIMessage with tool calls and its ToolMessages are kept or
    dropped together. Without ``messages``, returns a Runnable doing this trim.
    """
    if messages is None:
        from rag.runnables import RunnableLambda

        return RunnableLambda(functools.partial(
            trim_messages, max_tokens=max_tokens, token_counter=token_counter, strategy=strategy,
            allow_partial=allow_partial, end_on=end_on, start_on=start_on, include_system=include_system,
            text_splitter=text_splitter), name="trim_messages")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0:
        raise ValidationError(f"max_tokens must be an int >= 0, got {max_tokens!r}")
    if strategy not in ("first", "last"):
        raise ValidationError(f"strategy must be 'first' or 'last', got {strategy!r}")
    if start_on and strategy == "first":
        raise ValidationError("start_on parameter is only valid with strategy='last'")
    if include_system and strategy == "first":
        raise ValidationError("include_system parameter is only valid with strategy='last'")
    count = _list_counter(token_counter)
    splitter = text_splitter or _default_splitter
    kept = convert_to_messages(messages)
    if strategy == "first":
        return _trim_first(kept, max_tokens, count, splitter if allow_partial else None, end_on)
    if end_on:
        while kept and not _is_type(kept[-1], end_on):
            kept.pop()
    system = kept.pop(0) if include_system and kept and isinstance(kept[0], SystemMessage) else None
    budget = max(0, max_tokens - count([system])) if system is not None else max_tokens
    # The newest messages first, as a "first" trim of the reversed conversation.
    groups = [list(reversed(group)) for group in reversed(_groups(kept))]
    taken = _fitting(groups, budget, count)
    chosen = groups[:taken]
    if allow_partial and taken < len(groups) and len(groups[taken]) == 1:
        part = _partial(_flat(chosen), groups[taken][0], budget, count, splitter, from_end=True)
        if part is not None:
            chosen.append([part])
    if start_on:
        while chosen and not _is_type(chosen[-1][-1], start_on):
            chosen.pop()
    result = list(reversed(_flat(chosen)))
    return [system, *result] if system is not None else result


def _trim_first(messages: list[BaseMessage], budget: int, count: Callable[[list[BaseMessage]], int],
                splitter: Optional[Callable[[str], list[str]]], end_on: Optional[TypeSpec]) -> list[BaseMessage]:
    groups = _groups(messages)
    taken = _fitting(groups, budget, count)
    chosen = groups[:taken]
    if splitter is not None and taken < len(groups) and len(groups[taken]) == 1:
        part = _partial(_flat(chosen), groups[taken][0], budget, count, splitter, from_end=False)
        if part is not None:
            chosen.append([part])
    if end_on:
        while chosen and not _is_type(chosen[-1][-1], end_on):
            chosen.pop()
    return _flat(chosen)
