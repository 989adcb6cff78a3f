"""Citation marks ``[n]`` in an answer's text: finding the quoted units they end, removing
marks that name no source, and numbering the sources in the order the answer cites them."""

from __future__ import annotations

import re
from typing import Callable, Collection, NamedTuple, Optional

from rag.errors import InvalidTypeError

__all__ = ["CITATION", "cited_units", "cited_numbers", "strip_marks", "drop_invalid_citations", "QuotedUnit",
           "quoted_units", "CitationNumbering", "renumber_citations"]

#: One citation mark ``[n]``; marks may stand together (``[1][3]``) or list numbers (``[1, 3]``).
CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
# Citation marks end a quote: they follow the end of a sentence or line, or they are
# followed by the end, a line break, punctuation or a new sentence. Brackets inside a
# quoted text ("in an integer range type [4,8] and (3,9)") are neither.
_CANDIDATES = re.compile(r"(?:\s*\[\d+(?:\s*,\s*\d+)*\])+")
_FOLLOWED = re.compile(r"$|\s*\n|[ \t]*[.,;:!?)]|[ \t]+[^a-z\s]")
_AFTER = ".!?:;)\"'\n"
_DIGITS = re.compile(r"\d+")
# A mark still being written at the end of a stream: "[", "[1", "[1, 2".
_OPEN_MARK = re.compile(r"\[[\d,\s]*")


def _marks(answer: str, start: int = 0, end: Optional[int] = None) -> list[re.Match]:
    """The citation mark groups of ``answer[start:end]`` (``end`` taken as the answer's end)."""
    end = len(answer) if end is None else end
    found = []
    for match in _CANDIDATES.finditer(answer, start, end):
        before = match.start()
        while before > 0 and answer[before - 1] in " \t":
            before -= 1
        if before == 0 or answer[before - 1] in _AFTER or _FOLLOWED.match(answer, match.end(), end):
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
    return [(unit.text, unit.numbers) for unit in quoted_units(answer)]


class QuotedUnit(NamedTuple):
    """A stretch of answer text ending in citation marks: its ``text``, the ``numbers`` it
    cites in order, and ``marks``: for each number, the ``(start, end)`` offsets in the
    answer of what a reader clicks for it (the whole ``[n]``, or the digits of ``n`` in a
    list mark such as ``[1, 3]``)."""

    text: str
    numbers: tuple[int, ...]
    marks: tuple[tuple[int, int], ...]


def quoted_units(answer: str) -> list[QuotedUnit]:
    """The quoted units of ``answer`` (see :func:`cited_units`), with where each number's
    mark is.

    >>> quoted_units("Paris. [1, 2]")
    [QuotedUnit(text='Paris.', numbers=(1, 2), marks=((8, 9), (11, 12)))]
    """
    units: list[QuotedUnit] = []
    position = 0
    for marks in _marks(answer):
        text = answer[position:marks.start()].strip()
        # A unit's own closing punctuation may follow its mark ("Rome too [2]."): drop it.
        text = text.lstrip(".,;:").strip()
        if text:
            numbers, spans = [], []
            for mark in CITATION.finditer(answer, marks.start(), marks.end()):
                single = "," not in mark.group(1)
                for digits in _DIGITS.finditer(answer, mark.start(1), mark.end(1)):
                    numbers.append(int(digits.group()))
                    spans.append((mark.start(), mark.end()) if single else digits.span())
            units.append(QuotedUnit(text, tuple(numbers), tuple(spans)))
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
    entirely), and the removed numbers in order of first citation. The numbers kept are
    not changed (:func:`renumber_citations` also numbers them in order).

    >>> drop_invalid_citations("Yes [1][7]. No [2, 9].", {1, 2})
    ('Yes [1]. No [2].', [7, 9])
    """
    numbering = CitationNumbering(valid, renumber=False)
    return numbering.feed(answer) + numbering.finish(), numbering.invalid


def renumber_citations(answer: str, valid: Collection[int], *, drop_invalid: bool = True
                       ) -> tuple[str, dict[int, int], list[int]]:
    """``answer`` with its citations numbered in order of first citation: the first number
    cited becomes ``[1]``, the next new one ``[2]``... Returns the text, the numbers given
    (old -> new, in that order) and the cited numbers not in ``valid``, which are removed
    (``drop_invalid``, default) or left as they are. See :class:`CitationNumbering`.

    >>> renumber_citations("Rome. [3] Paris [1, 3]. Oslo [7].", {1, 2, 3})
    ('Rome. [1] Paris [2, 1]. Oslo.', {3: 1, 1: 2}, [7])
    """
    numbering = CitationNumbering(valid, drop_invalid=drop_invalid)
    text = numbering.feed(answer) + numbering.finish()
    return text, dict(numbering.numbers), numbering.invalid


class CitationNumbering:
    """Rewrites the citation marks of an answer as it is produced: each number in
    ``valid`` becomes its rank of first citation (``renumber``, default True) and each
    number not in ``valid`` is removed (``drop_invalid``, default True; a mark left empty
    goes with the white space before it). ``valid``: the numbers of the passages the answer
    may cite (ints).

    :meth:`feed` takes the next piece of the answer and returns the text now settled (a
    mark is settled once the character after it is known, so a piece may return less
    than it was given, or nothing); :meth:`finish` returns the rest. The pieces returned
    add up to the same text however the answer was cut. ``numbers``: old -> new number
    for every valid number cited so far; ``invalid``: the invalid numbers met, in order.

    >>> numbering = CitationNumbering({1, 2})
    >>> [numbering.feed(piece) for piece in ("Yes [2", "]. No [1].")] + [numbering.finish()]
    ['Yes', ' [1]. No [2].', '']
    """

    def __init__(self, valid: Collection[int], *, renumber: bool = True, drop_invalid: bool = True) -> None:
        numbers = list(valid)
        bad = [n for n in numbers if isinstance(n, bool) or not isinstance(n, int)]
        if bad:
            raise InvalidTypeError(f"valid must hold citation numbers (int), got {bad[0]!r}")
        self._valid = frozenset(numbers)
        self._renumber, self._drop_invalid = renumber, drop_invalid
        self.numbers: dict[int, int] = {}
        self._invalid: dict[int, None] = {}
        self._text = ""
        self._done = 0  # characters of the answer already rewritten and returned

    @property
    def invalid(self) -> list[int]:
        return list(self._invalid)

    def feed(self, piece: str) -> str:
        """The answer's next ``piece``; returns the newly settled text, rewritten."""
        if not isinstance(piece, str):
            raise InvalidTypeError(f"an answer piece must be a str, got {type(piece).__name__}: {piece!r:.60}")
        self._text += piece
        return self._rewrite(self._settled())

    def finish(self) -> str:
        """The rest of the answer, rewritten (the answer has ended)."""
        return self._rewrite(len(self._text))

    def _settled(self) -> int:
        """Where the text still open at the end of the answer begins: white space, complete
        marks and a mark being written, whose meaning the next characters decide."""
        text, end = self._text, len(self._text)
        bracket = text.rfind("[", self._done)
        if bracket != -1 and _OPEN_MARK.fullmatch(text, bracket, end):
            end = bracket
        while True:
            while end > self._done and text[end - 1].isspace():
                end -= 1
            if end == self._done or text[end - 1] != "]":
                return end
            bracket = text.rfind("[", self._done, end)
            if bracket == -1 or not CITATION.fullmatch(text, bracket, end):
                return end
            end = bracket

    def _rewrite(self, end: int) -> str:
        start, self._done = self._done, max(self._done, end)
        if end <= start:
            return ""
        return _replace_marks(self._text, self._number_marks, start, end)

    def _number(self, number: int) -> Optional[int]:
        if number not in self._valid:
            self._invalid.setdefault(number, None)
            return None if self._drop_invalid else number
        if not self._renumber:
            return number
        return self.numbers.setdefault(number, len(self.numbers) + 1)

    def _number_marks(self, group: re.Match) -> str:
        text, pieces = group.string, []
        position, lead = group.start(), None
        for mark in CITATION.finditer(text, group.start(), group.end()):
            # The white space before a mark goes with it; the first mark kept takes the group's.
            space = text[position:mark.start()]
            lead = space if lead is None else lead
            space = space if pieces else lead
            position = mark.end()
            numbers = [int(digits) for digits in _DIGITS.findall(mark.group(1))]
            kept = [n for n in map(self._number, numbers) if n is not None]
            if kept:
                pieces.append(space + (mark.group() if kept == numbers else f"[{', '.join(map(str, kept))}]"))
        return "".join(pieces)


def _replace_marks(answer: str, replace: Callable[[re.Match], str], start: int = 0, end: Optional[int] = None) -> str:
    """``answer[start:end]`` with each mark group replaced by ``replace(group)``."""
    end = len(answer) if end is None else end
    pieces, position = [], start
    for marks in _marks(answer, start, end):
        pieces += [answer[position:marks.start()], replace(marks)]
        position = marks.end()
    return "".join(pieces) + answer[position:end]
