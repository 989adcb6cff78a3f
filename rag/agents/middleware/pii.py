"""Personal data in the conversation: :class:`PIIMiddleware` finds emails, credit card
numbers, IP and MAC addresses, URLs or a custom pattern, and redacts, masks, hashes or
blocks them (langchain 1.x's parameters, defaults and replacement formats).

>>> redact("mail ann@example.org", "email", "redact")
'mail [REDACTED_EMAIL]'
>>> redact("card 4111-1111-1111-1111", "credit_card", "mask")
'card ****-****-****-1111'
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from dataclasses import replace
from typing import Any, Callable, Literal, Optional, TypedDict, Union
from urllib.parse import urlsplit

from rag.agents.middleware.types import AgentMiddleware, hook_config
from rag.errors import RagError, ValidationError
from rag.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = ["PIIMiddleware", "PIIMatch", "PIIDetectionError", "DETECTORS", "redact"]

Strategy = Literal["block", "redact", "mask", "hash"]
STRATEGIES = ("block", "redact", "mask", "hash")


class PIIMatch(TypedDict):
    """One finding: its ``type``, the matched ``value`` and its ``start``/``end`` offsets."""

    type: str
    value: str
    start: int
    end: int


class PIIDetectionError(RagError, ValueError):
    """``strategy="block"`` found personal data; ``matches`` lists it."""

    def __init__(self, pii_type: str, matches: list[PIIMatch]) -> None:
        self.pii_type, self.matches = pii_type, list(matches)
        super().__init__(f"Detected {len(matches)} instance(s) of {pii_type} in text content")


def _finder(kind: str, pattern: str, keep: Callable[[str], bool] = lambda value: True) -> Callable[[str], list[PIIMatch]]:
    compiled = re.compile(pattern)

    def find(text: str) -> list[PIIMatch]:
        return [PIIMatch(type=kind, value=m.group(), start=m.start(), end=m.end())
                for m in compiled.finditer(text) if keep(m.group())]
    return find


def _luhn(number: str) -> bool:
    """The card-number checksum (it weeds out most 16-digit strings that are not cards)."""
    digits = [int(d) for d in number if d.isdigit()][::-1]
    if not 13 <= len(digits) <= 19:
        return False
    return sum(d if i % 2 == 0 else (2 * d - 9 if d > 4 else 2 * d) for i, d in enumerate(digits)) % 10 == 0


def _is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def _find_urls(text: str) -> list[PIIMatch]:
    """``http(s)://`` URLs with a host, then bare ``www.host`` or ``host.tld/path`` forms
    that do not overlap them (a plain ``word.word`` is not taken for a URL)."""
    found = [m for m in _finder("url", r"https?://[^\s<>\"{}|\\^`\[\]]+")(text) if urlsplit(m["value"]).netloc]
    label = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    for m in re.finditer(rf"\b(?:www\.)?{label}(?:\.{label})+(?:/\S*)?", text):
        if any(f["start"] <= m.start() < f["end"] or f["start"] < m.end() <= f["end"] for f in found):
            continue
        value = m.group()
        if ("/" in value or value.startswith("www.")) and "." in urlsplit(f"http://{value}").netloc:
            found.append(PIIMatch(type="url", value=value, start=m.start(), end=m.end()))
    return found


#: The built-in detectors by type.
DETECTORS: dict[str, Callable[[str], list[PIIMatch]]] = {
    "email": _finder("email", r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b"),
    "credit_card": _finder("credit_card", r"\b\d{4}[\s-]?\d{4}[\s-]?\d{4}[\s-]?\d{4}\b", _luhn),
    "ip": _finder("ip", r"\b(?:\d{1,3}\.){3}\d{1,3}\b", _is_ip),
    "mac_address": _finder("mac_address", r"\b(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}\b"),
    "url": _find_urls,
}


def _mask(match: PIIMatch) -> str:
    value, kind = match["value"], match["type"]
    if kind == "email":
        user, _, domain = value.partition("@")
        return f"{user}@****.{domain.rsplit('.', 1)[-1]}" if "." in domain else f"{user}@****"
    if kind == "credit_card":
        sep = "-" if "-" in value else " " if " " in value else ""
        last = "".join(c for c in value if c.isdigit())[-4:]
        return f"****{sep}****{sep}****{sep}{last}" if sep else f"{'*' * 12}{last}"
    if kind == "ip":
        parts = value.split(".")
        return f"*.*.*.{parts[-1]}" if len(parts) == 4 else "****"
    if kind == "mac_address":
        sep = ":" if ":" in value else "-"
        return sep.join(["**"] * 5) + sep + value[-2:]
    if kind == "url":
        return "[MASKED_URL]"
    return f"****{value[-4:]}" if len(value) > 4 else "****"


def _replacement(match: PIIMatch, strategy: str) -> str:
    if strategy == "redact":
        return f"[REDACTED_{match['type'].upper()}]"
    if strategy == "mask":
        return _mask(match)
    return f"<{match['type']}_hash:{hashlib.sha256(match['value'].encode()).hexdigest()[:8]}>"


def apply(text: str, matches: list[PIIMatch], strategy: str) -> str:
    """``text`` with each match replaced by ``strategy``'s form (``"block"`` raises)."""
    if not matches:
        return text
    if strategy == "block":
        raise PIIDetectionError(matches[0]["type"], matches)
    for match in sorted(matches, key=lambda m: m["start"], reverse=True):  # right to left: offsets stay valid
        text = text[:match["start"]] + _replacement(match, strategy) + text[match["end"]:]
    return text


def redact(text: str, pii_type: str, strategy: Strategy = "redact") -> str:
    """``text`` with the built-in ``pii_type`` treated by ``strategy``."""
    return apply(text, DETECTORS[pii_type](text), strategy)


class PIIMiddleware(AgentMiddleware):
    """Treat ``pii_type`` in the conversation. ``pii_type``: ``"email"``,
    ``"credit_card"``, ``"ip"``, ``"mac_address"``, ``"url"`` or your own name with a
    ``detector`` (a regex string, or a function of the text returning matches).
    ``strategy``: ``"redact"`` (default, ``[REDACTED_EMAIL]``), ``"mask"`` (keeps the
    last characters), ``"hash"`` (``<email_hash:1a2b3c4d>``) or ``"block"`` (raises
    :class:`PIIDetectionError`). Where: ``apply_to_input`` (default True: the latest
    human message, before the model sees it), ``apply_to_output`` (default False: the
    model's reply) and ``apply_to_tool_results`` (default False: the latest tool
    answers). The name is ``PIIMiddleware[<type>]``, so one instance per type may be used.
    """

    def __init__(self, pii_type: str, *, strategy: Strategy = "redact",
                 detector: Union[Callable[[str], list[Any]], str, None] = None, apply_to_input: bool = True,
                 apply_to_output: bool = False, apply_to_tool_results: bool = False) -> None:
        if strategy not in STRATEGIES:
            raise ValidationError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
        if detector is None:
            if pii_type not in DETECTORS:
                raise ValidationError(f"Unknown PII type: {pii_type}. Must be one of {list(DETECTORS)} or provide a "
                                      "custom detector.")
            self.detector = DETECTORS[pii_type]
        elif isinstance(detector, str):
            self.detector = _finder(pii_type, detector)
        else:
            def normalized(text: str, find: Callable[[str], list[Any]] = detector) -> list[PIIMatch]:
                return [PIIMatch(type=m.get("type", pii_type), value=m.get("value", m.get("text", "")),
                                 start=m["start"], end=m["end"]) for m in find(text)]
            self.detector = normalized
        self.pii_type, self.strategy = pii_type, strategy
        self.apply_to_input, self.apply_to_output, self.apply_to_tool_results = \
            apply_to_input, apply_to_output, apply_to_tool_results

    @property
    def name(self) -> str:
        return f"{type(self).__name__}[{self.pii_type}]"

    def _treated(self, message: BaseMessage) -> Optional[BaseMessage]:
        """The message with its text treated, or None when nothing was found."""
        content = message.content
        if isinstance(content, str):
            matches = self.detector(content)
            return replace(message, content=apply(content, matches, self.strategy)) if matches else None
        changed, blocks = False, []
        for block in content or []:
            text = block if isinstance(block, str) else block.get("text")
            if isinstance(text, str) and (matches := self.detector(text)):
                new = apply(text, matches, self.strategy)
                block, changed = (new if isinstance(block, str) else {**block, "text": new}), True
            blocks.append(block)
        return replace(message, content=blocks) if changed else None

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: dict[str, Any], runtime: Any) -> Optional[dict[str, Any]]:
        messages = state.get("messages") or []
        targets: list[BaseMessage] = []
        if self.apply_to_input:
            human = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
            targets += [human] if human is not None else []
        if self.apply_to_tool_results:
            last_ai = max((i for i, m in enumerate(messages) if isinstance(m, AIMessage)), default=None)
            if last_ai is not None:
                targets += [m for m in messages[last_ai + 1:] if isinstance(m, ToolMessage)]
        changed = {id(m): new for m in targets if m.content and (new := self._treated(m)) is not None}
        if not changed:
            return None
        # The whole list, as LangChain's hook returns it; add_messages replaces by id.
        return {"messages": [changed.get(id(m), m) for m in messages]}

    def after_model(self, state: dict[str, Any], runtime: Any) -> Optional[dict[str, Any]]:
        if not self.apply_to_output:
            return None
        last = next((m for m in reversed(state.get("messages") or []) if isinstance(m, AIMessage)), None)
        new = self._treated(last) if last is not None and last.content else None
        return {"messages": [new if m is last else m for m in state["messages"]]} if new is not None else None
