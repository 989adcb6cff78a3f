"""Citation marks ``[n]`` in an answer's text: finding the quoted units they end, and
removing marks that name no source."""

from __future__ import annotations

import re
from typing import Collection

__all__ = ["CITATION", "cited_units", "cited_numbers", "strip_marks", "drop_invalid_citations"]

#: One citation mark ``[n]``; marks may stand together (``[1][3]``) or list numbers (``[1, 3]``).
CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
# Citation marks end a quote: they follow the end of a sentence or line, or they are
# followed by the end, a line break, punctuation or a new sentence. Brackets inside a
# quoted text ("in an integer range type [4,8] and (3,9)") are neither.
_CANDIDATES = re.compile(r"(?:\s*\[\d+(?:\s*,\s*\d+)*\])+")
_FOLLOWED = re.compile(r"$|\s*\n|[ \t]*[.,;:!?)]|[ \t]+[^a-z\s]")
_AFTER = ".!?:;)\"'\n"


def _marks(answer: str) -> list[re.Match]:
    found = []
    for match in _CANDIDATES.finditer(answer):
        before = answer[:match.start()].rstrip(" \t")
        if not before or before[-1] in _AFTER or _FOLLOWED.match(answer, match.end()):
            found.append(match)
    return found


def _numbers(marks: str) -> tuple[int, ...]:
    return tuple(int(n) for group in CITATION.findall(marks) for n in group.split(","))


def cited_units(answer: str) -> list[tuple[str, tuple[int, ...]]]:
    """The quoted units of an answer: each stretch of text that ends in citation marks, with
    the numbers it cites, in order. Text after the last mark cites nothing and is left out.

    >>> cited_units("Paris is big. [1] Rome too [2][3]. Bye")
    [('Paris is big.', (1,)), ('Rome too', (2, 3))]
    >>> cited_units("A range [4,8] and (3,9) is the same. [1]")
    [('A range [4,8] and (3,9) is the same.', (1,))]
    """
    units: list[tuple[str, tuple[int, ...]]] = []
    position = 0
    for marks in _marks(answer):
        text = answer[position:marks.start()].strip()
        # A unit's own closing punctuation may follow its mark ("Rome too [2]."): drop it.
        text = text.lstrip(".,;:").strip()
        if text:
            units.append((text, _numbers(marks.group())))
        position = marks.end()
    return units


def cited_numbers(answer: str) -> list[int]:
    """Every number the answer cites, once each, in order of first citation."""
    seen: dict[int, None] = {}
    for marks in _marks(answer):
        for number in _numbers(marks.group()):
            seen.setdefault(number, None)
    return list(seen)


def strip_marks(answer: str) -> str:
    """The answer without its citation marks."""
    return _replace_marks(answer, lambda marks: "")


def drop_invalid_citations(answer: str, valid: Collection[int]) -> tuple[str, list[int]]:
    """``answer`` with every cited number not in ``valid`` removed (a mark left empty goes
    entirely), and the removed numbers in order of first citation.

    >>> drop_invalid_citations("Yes [1][7]. No [2, 9].", {1, 2})
    ('Yes [1]. No [2].', [7, 9])
    """
    invalid: dict[int, None] = {}

    def keep(marks: re.Match) -> str:
        kept = []
        for mark in CITATION.finditer(marks.group()):
            numbers = [int(n) for n in mark.group(1).split(",")]
            for number in numbers:
                if number not in valid:
                    invalid.setdefault(number, None)
            good = [str(n) for n in numbers if n in valid]
            if good:
                kept.append(f"[{', '.join(good)}]")
        lead = marks.group()[: len(marks.group()) - len(marks.group().lstrip())]
        return lead + "".join(kept) if kept else ""

    return _replace_marks(answer, keep), list(invalid)


def _replace_marks(answer: str, replace) -> str:
    pieces, position = [], 0
    for marks in _marks(answer):
        pieces += [answer[position:marks.start()], replace(marks)]
        position = marks.end()
    return "".join(pieces) + answer[position:]
