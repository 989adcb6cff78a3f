"""Summarize old messages when the conversation grows: :class:`SummarizationMiddleware`
(langchain 1.x's parameters and defaults; our own summary prompt).

Before each model call, when a ``trigger`` is met, the messages before the kept tail are
summarized by ``model`` and the history becomes ``[summary, *kept]`` through
``RemoveMessage(id=REMOVE_ALL_MESSAGES)``. A tool call and its answers are never split.

Where we differ: when the summary model fails, the history is kept as it was and a
warning is logged (LangChain raises and the run fails); the next model call retries.

>>> from rag.models import FakeListChatModel
>>> SummarizationMiddleware(FakeListChatModel(responses=["s"]), trigger=("messages", 50)).keep
('messages', 20)
"""

from __future__ import annotations

import copy
import inspect
import logging
import math
import warnings
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from rag.agents.middleware.types import AgentMiddleware
from rag.errors import ValidationError
from rag.graph.message import REMOVE_ALL_MESSAGES, RemoveMessage
from rag.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = ["SummarizationMiddleware", "count_tokens_approximately", "DEFAULT_SUMMARY_PROMPT"]

logger = logging.getLogger(__name__)

DEFAULT_SUMMARY_PROMPT = """You are condensing a conversation between a user and an assistant that uses tools, because it \
no longer fits in the assistant's context. Your text will replace the messages below, so keep what is needed to go on:

- the user's goal and any constraints or preferences they stated;
- facts found so far (with the sources or tools they came from) and decisions taken, with their reasons;
- files, records or other artifacts created or changed;
- what remains to be done next.

Write it as short sections with headings; write "None" for an empty section. Reply with the summary only.

<conversation>
{messages}
</conversation>"""

SUMMARY_PREFIX = "Here is a summary of the conversation to date:\n\n"
TOO_LONG = "Previous conversation was too long to summarize."
_KINDS = ("messages", "tokens", "fraction")


def count_tokens_approximately(messages: Iterable[BaseMessage], *, chars_per_token: float = 4.0,
                               extra_tokens_per_message: float = 3.0) -> int:
    """About how many tokens ``messages`` take: characters / 4 plus 3 per message (the
    rule of thumb LangChain's approximate counter uses)."""
    total = 0.0
    for message in messages:
        text = message.content if isinstance(message.content, str) else str(message.content)
        chars = len(text) + sum(len(str(c.get("name", ""))) + len(str(c.get("args", "")))
                                for c in getattr(message, "tool_calls", []) or [])
        total += math.ceil(chars / chars_per_token) + extra_tokens_per_message
    return math.ceil(total)


def _size(value: Any, parameter: str) -> tuple[str, Union[int, float]]:
    if not (isinstance(value, tuple) and len(value) == 2 and value[0] in _KINDS):
        raise ValidationError(f"{parameter} must be ('messages', n), ('tokens', n) or ('fraction', f), got {value!r}")
    kind, amount = value
    if isinstance(amount, bool) or not isinstance(amount, (int, float)):
        raise ValidationError(f"{parameter} value must be a number, got {amount!r}")
    if kind == "fraction" and not 0 < amount <= 1:
        raise ValidationError(f"Fractional {parameter} values must be between 0 and 1, got {amount}.")
    if kind != "fraction" and amount <= 0:
        raise ValidationError(f"{parameter} thresholds must be greater than 0, got {amount}.")
    return kind, amount


def _clauses(trigger: Any) -> list[dict[str, Union[int, float]]]:
    """The trigger as a list of clauses; a clause holds when all its conditions hold, the
    trigger when any clause does."""
    if trigger is None:
        return []
    items = trigger if isinstance(trigger, list) else [trigger]
    clauses = []
    for item in items:
        if isinstance(item, Mapping):
            if not item or any(k not in _KINDS for k in item):
                raise ValidationError(f"a trigger clause needs keys among {_KINDS}, got {dict(item)!r}")
            clauses.append(dict(_size((k, v), "trigger") for k, v in item.items()))
        else:
            kind, amount = _size(item, "trigger")
            clauses.append({kind: amount})
    return clauses


class SummarizationMiddleware(AgentMiddleware):
    """Replace old messages by a summary before a model call.

    ``model``: the chat model that writes summaries. ``trigger`` (default None: never):
    ``("messages", n)``, ``("tokens", n)`` or ``("fraction", f)`` of the model profile's
    ``max_input_tokens``, a dict of several (all must hold) or a list (any may hold).
    ``keep`` (default ``("messages", 20)``): what stays verbatim after the summary.
    ``token_counter`` (default :func:`count_tokens_approximately`), ``summary_prompt``
    (with ``{messages}``), ``trim_tokens_to_summarize`` (default 4000; None: no trim):
    the newest part of the old messages that the summary model sees. ``summarizer``: a
    function of the messages to the summary text, used instead of ``model`` (an async one
    on the async path; called synchronously it raises TypeError).
    The deprecated ``max_tokens_before_summary=n`` and ``messages_to_keep=n`` still work.
    """

    def __init__(self, model: Any, *, trigger: Any = None, keep: tuple[str, Union[int, float]] = ("messages", 20),
                 token_counter: Callable[[Sequence[BaseMessage]], int] = count_tokens_approximately,
                 summary_prompt: str = DEFAULT_SUMMARY_PROMPT, trim_tokens_to_summarize: Optional[int] = 4000,
                 summarizer: Optional[Callable[[list[BaseMessage]], str]] = None, **deprecated: Any) -> None:
        unknown = set(deprecated) - {"max_tokens_before_summary", "messages_to_keep"}
        if unknown:
            raise ValidationError(f"SummarizationMiddleware got unexpected arguments {sorted(unknown)}")
        if deprecated.get("max_tokens_before_summary") is not None:
            warnings.warn("max_tokens_before_summary is deprecated. Use trigger=('tokens', value) instead.",
                          DeprecationWarning, stacklevel=2)
            trigger = trigger if trigger is not None else ("tokens", deprecated["max_tokens_before_summary"])
        if deprecated.get("messages_to_keep") is not None:
            warnings.warn("messages_to_keep is deprecated. Use keep=('messages', value) instead.",
                          DeprecationWarning, stacklevel=2)
            keep = ("messages", deprecated["messages_to_keep"]) if keep == ("messages", 20) else keep
        if isinstance(model, str):
            raise ValidationError(f"SummarizationMiddleware needs a chat model object, got the name {model!r}")
        if "{messages}" not in summary_prompt:
            raise ValidationError("summary_prompt must contain {messages}, where the conversation goes")
        # a copy, as LangChain keeps: changing the caller's list or dicts later changes nothing here
        self.model, self.trigger, self.keep = model, copy.deepcopy(trigger), _size(keep, "keep")
        self._clauses = _clauses(trigger)
        self.token_counter, self.summary_prompt = token_counter, summary_prompt
        self.trim_tokens_to_summarize, self.summarizer = trim_tokens_to_summarize, summarizer
        if (any("fraction" in c for c in self._clauses) or self.keep[0] == "fraction") and self._max_input() is None:
            raise ValidationError("a 'fraction' trigger or keep needs the model's profile {'max_input_tokens': n}; "
                                  "use ('tokens', n) instead, or give the model a profile")

    def _max_input(self) -> Optional[int]:
        profile = getattr(self.model, "profile", None)
        limit = profile.get("max_input_tokens") if isinstance(profile, Mapping) else None
        return limit if isinstance(limit, int) else None

    def _tokens(self, kind: str, amount: Union[int, float]) -> int:
        return max(1, int((self._max_input() or 0) * amount)) if kind == "fraction" else int(amount)

    def _due(self, messages: list[BaseMessage]) -> bool:
        total = self.token_counter(messages) if any(k != "messages" for c in self._clauses for k in c) else 0
        return any(all(len(messages) >= v if k == "messages" else total >= self._tokens(k, v) for k, v in c.items())
                   for c in self._clauses)

    def _cutoff(self, messages: list[BaseMessage]) -> int:
        kind, amount = self.keep
        if kind == "messages":
            return 0 if len(messages) <= amount else _safe_cutoff(messages, len(messages) - int(amount))
        budget = self._tokens(kind, amount)
        if self.token_counter(messages) <= budget:
            return 0
        cut = next((i for i in range(1, len(messages)) if self.token_counter(messages[i:]) <= budget),
                   len(messages) - 1)
        return _safe_cutoff(messages, cut)

    def _prompt(self, old: list[BaseMessage]) -> Optional[str]:
        if self.trim_tokens_to_summarize is not None:
            from rag.memory import trim_messages

            old = trim_messages(old, max_tokens=self.trim_tokens_to_summarize, token_counter=self.token_counter,
                                start_on="human", strategy="last", allow_partial=True, include_system=True)
            if not old:
                return None
        lines = "\n".join(f"<{m.type}>{m.text}</{m.type}>" for m in old)
        return self.summary_prompt.format(messages=lines)

    def _plan(self, state: dict[str, Any]) -> Optional[tuple[list[BaseMessage], list[BaseMessage]]]:
        messages = list(state["messages"])
        if not self._due(messages):
            return None
        cut = self._cutoff(messages)
        return (messages[:cut], messages[cut:]) if cut > 0 else None

    def _update(self, summary: str, kept: list[BaseMessage]) -> dict[str, Any]:
        head = HumanMessage(SUMMARY_PREFIX + summary.strip(), additional_kwargs={"lc_source": "summarization"})
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), head, *kept]}

    def _failed(self, exc: Exception) -> None:
        """The documented fallback: keep the history (None: no update), say why in the log."""
        logger.warning("SummarizationMiddleware: the summary model failed (%s: %s); the history is kept as it was",
                       type(exc).__name__, exc)
        return None

    def _summary(self, old: list[BaseMessage]) -> str:
        if self.summarizer is not None:
            return self.summarizer(old)
        prompt = self._prompt(old)
        return TOO_LONG if prompt is None else self.model.invoke(prompt).text

    async def _asummary(self, old: list[BaseMessage]) -> str:
        if self.summarizer is not None:
            summary = self.summarizer(old)
            return await summary if inspect.isawaitable(summary) else summary  # async or plain function
        prompt = self._prompt(old)
        return TOO_LONG if prompt is None else (await self.model.ainvoke(prompt)).text

    def before_model(self, state: dict[str, Any], runtime: Any) -> Optional[dict[str, Any]]:
        if (plan := self._plan(state)) is None:
            return None
        if inspect.iscoroutinefunction(self.summarizer):  # a setup error, not a failing summary model
            raise TypeError(f"SummarizationMiddleware cannot call a coroutine function synchronously: the summarizer "
                            f"{getattr(self.summarizer, '__name__', self.summarizer)!r} is async; run the agent with "
                            "ainvoke/astream, or pass a plain function")
        try:
            return self._update(self._summary(plan[0]), plan[1])
        except Exception as exc:  # a failing summary model must not end the run
            return self._failed(exc)

    async def abefore_model(self, state: dict[str, Any], runtime: Any) -> Optional[dict[str, Any]]:
        if (plan := self._plan(state)) is None:
            return None
        try:
            return self._update(await self._asummary(plan[0]), plan[1])
        except Exception as exc:
            return self._failed(exc)


def _safe_cutoff(messages: list[BaseMessage], cut: int) -> int:
    """``cut`` moved so no ToolMessage is kept without the AIMessage that called it: back
    to that AIMessage when there is one, else past the orphan answers."""
    if cut >= len(messages) or not isinstance(messages[cut], ToolMessage):
        return cut
    ids, end = set(), cut
    while end < len(messages) and isinstance(messages[end], ToolMessage):
        ids.add(messages[end].tool_call_id)
        end += 1
    for i in range(cut - 1, -1, -1):
        message = messages[i]
        if isinstance(message, AIMessage) and {c.get("id") for c in message.tool_calls} & ids:
            return i
    return end
