"""Finding separators in a span of text and cutting the span into pieces, with offsets.

Pieces are reported as parallel lists of absolute ``starts`` and ``ends`` into the source
string, so the caller can slice the source instead of re-joining strings, and so every chunk
knows where it came from (true ``start_index``). The cutting rules reproduce
``re.split`` plus LangChain's pairing of separators with their neighbours:

- ``"start"`` (also ``True``): each separator begins the piece that follows it;
- ``"end"``: each separator ends the piece that precedes it;
- ``False``: separators are dropped.

Empty pieces are dropped in every mode, as LangChain does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import accumulate
from operator import add
from typing import Literal

from rag.errors import ValidationError

__all__ = ["KeepSeparator", "Separator", "normalize_keep_separator"]

KeepSeparator = Literal["start", "end", False]

# A pattern free of these characters matches exactly itself, so it can take the str fast path.
_REGEX_METACHARACTERS = frozenset("\\.^$*+?{}[]|()")


def normalize_keep_separator(value: object) -> KeepSeparator:
    """Map LangChain's ``keep_separator`` values (True/False/"start"/"end") to one mode."""
    if value is True or value == "start":
        return "start"
    if value is False or value == "end":
        return value  # type: ignore[return-value]
    raise ValidationError(
        f'keep_separator must be True, False, "start" or "end", got {value!r}'
    )


@dataclass(frozen=True)
class Separator:
    """One separator: a literal string, or a regular expression when ``is_regex``.

    ``pattern`` is the text LangChain would re-insert between pieces when separators are
    dropped (``keep_separator=False``); for a regex that is the pattern's own text.
    """

    pattern: str
    is_regex: bool = False
    literal: str | None = field(init=False)
    compiled: re.Pattern[str] | None = field(init=False)
    # For a non-empty literal: the strings whose presence means two occurrences overlap
    # (separator + its tail past each border, e.g. "\n\n\n" for "\n\n"). Where none
    # occurs, every occurrence str.find reports is a cut str.split makes, so cut points can
    # be searched for instead of enumerated.
    overlap_witnesses: tuple[str, ...] | None = field(init=False)

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, str):
            raise ValidationError(
                f"separators must be strings, got {type(self.pattern).__name__}: "
                f"{self.pattern!r}"
            )
        literal: str | None = self.pattern
        compiled = None
        if self.is_regex and not _REGEX_METACHARACTERS.isdisjoint(self.pattern):
            literal = None
            try:
                compiled = re.compile(self.pattern)
            except re.error as exc:
                raise ValidationError(
                    f"separator {self.pattern!r} is not a valid regular expression: {exc}"
                ) from exc
            if compiled.groups:
                # re.split returns the groups' text as extra pieces, which LangChain then
                # pairs up wrongly (or crashes on); non-capturing groups split cleanly.
                raise ValidationError(
                    f"separator {self.pattern!r} has capturing groups; "
                    f"use non-capturing groups (?:...) instead"
                )
        witnesses = None
        if literal:
            witnesses = tuple(
                literal + literal[k:]
                for k in range(1, len(literal))
                if literal[:k] == literal[-k:]
            )
        object.__setattr__(self, "overlap_witnesses", witnesses)
        object.__setattr__(self, "literal", literal)
        object.__setattr__(self, "compiled", compiled)

    @property
    def is_empty(self) -> bool:
        """True for ``""``: split into single characters."""
        return self.pattern == ""


    @property
    def is_lookaround(self) -> bool:
        """True for a zero-width regex such as ``(?=...)``, which leaves nothing to re-insert."""
        return self.is_regex and self.pattern.startswith(("(?=", "(?<!", "(?<=", "(?!"))

    def can_scan(self, text: str, start: int, end: int) -> bool:
        """Whether occurrences in ``text[start:end]`` are exactly the cuts (none overlap)."""
        witnesses = self.overlap_witnesses
        if witnesses is None:
            return False
        for witness in witnesses:
            if text.find(witness, start, end) != -1:
                return False
        return True

    def occurs_in(self, text: str, start: int, end: int) -> bool:
        """Whether the separator matches somewhere in ``text[start:end]``."""
        if self.literal is not None:
            return text.find(self.literal, start, end) != -1
        assert self.compiled is not None
        # Slice rather than search(text, pos, endpos): anchors and lookbehinds must see the
        # span as the whole string, as they do in LangChain.
        return self.compiled.search(text[start:end]) is not None

    def cut(
        self,
        text: str,
        start: int,
        end: int,
        keep: KeepSeparator,
        parts: list[str] | None = None,
    ) -> tuple[list[int], list[int]]:
        """Cut ``text[start:end]`` into non-empty pieces; return their absolute starts, ends.

        ``parts``, for a non-empty literal, may be ``text[start:end].split(literal)``
        already computed by the caller.
        """
        if start >= end:
            return [], []
        if self.literal == "":
            return list(range(start, end)), list(range(start + 1, end + 1))
        if self.literal is not None:
            if parts is None:
                parts = text[start:end].split(self.literal)
            return _cut_literal(parts, start, end, self.literal, keep)
        return _cut_regex(text, start, end, self.compiled, keep)  # type: ignore[arg-type]


def _cut_literal(
    parts: list[str], start: int, end: int, separator: str, keep: KeepSeparator
) -> tuple[list[int], list[int]]:
    width = len(separator)
    # after[t] is where part t begins: just after the t-th separator (after[0] = start).
    after = list(accumulate(map(width.__add__, map(len, parts)), initial=start))
    del after[-1]
    if keep == "start":
        starts = list(map(width.__rsub__, after))
        starts[0] = start
        ends = starts[1:]
        ends.append(end)
        if not parts[0]:
            del starts[0], ends[0]
        return starts, ends
    if keep == "end":
        starts = after
        ends = after[1:]
        ends.append(end)
        if not parts[-1]:
            del starts[-1], ends[-1]
        return starts, ends
    ends = list(map(add, after, map(len, parts)))
    if "" in parts:
        kept = [t for t, part in enumerate(parts) if part]
        return [after[t] for t in kept], [ends[t] for t in kept]
    return after, ends


def _cut_regex(
    text: str, start: int, end: int, compiled: re.Pattern[str], keep: KeepSeparator
) -> tuple[list[int], list[int]]:
    span = text[start:end]
    # re.split cuts at exactly the matches finditer yields, empty matches included.
    matches = [m.span() for m in compiled.finditer(span)]
    if keep == "start":
        bounds = [0] + [match_start for match_start, _ in matches] + [len(span)]
    elif keep == "end":
        bounds = [0] + [match_end for _, match_end in matches] + [len(span)]
    else:
        piece_starts = [0] + [match_end for _, match_end in matches]
        piece_ends = [match_start for match_start, _ in matches] + [len(span)]
        kept = [(s, e) for s, e in zip(piece_starts, piece_ends) if e > s]
        return [start + s for s, _ in kept], [start + e for _, e in kept]
    kept = [(s, e) for s, e in zip(bounds, bounds[1:]) if e > s]
    return [start + s for s, _ in kept], [start + e for _, e in kept]
