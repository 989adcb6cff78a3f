"""Answer quality: a question-answer set (QA.tsv) and the three checks ``rag bench --answers``
makes of each answer.

QA.tsv is tab-separated UTF-8 with three columns, after an optional header row (a first
row whose first cell is ``question``, ``questions`` or ``query``, in any case): the question; key
phrases, ``|``-separated (each verbatim in the manual: at least three words or a code
identifier); the expected source path(s), ``|``-separated (a path matches a source that
equals it or ends with ``/`` + it, so ``backup-dump.html`` matches
``/usr/share/.../html/backup-dump.html``).

The checks, all on text with white space collapsed:

- **key phrase**: the answer (citation marks removed) contains one of the key phrases,
  ignoring case;
- **expected source cited**: one of the sources the answer cites ``[n]`` is an expected one;
- **citation precision**: of the quoted units (each stretch of answer text ending in
  citation marks), the share that appear verbatim in every source they cite. An answer
  that quotes nothing has no units and is left out of the overall precision.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence, Union

from rag.chains.citations import cited_units, strip_marks
from rag.errors import ValidationError

__all__ = ["QAItem", "AnswerScore", "AnswerTotals", "load_qa", "score_answer", "summarize_scores"]

def _flat(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class QAItem:
    """One question of a QA set, its key phrases and expected source paths."""

    question: str
    key_phrases: tuple[str, ...]
    sources: tuple[str, ...]

    def matches_source(self, source: Optional[str]) -> bool:
        """True when ``source`` is one of the expected paths, or ends with ``/`` + one."""
        if not source:
            return False
        source = source.replace(os.sep, "/")
        return any(source == want or source.endswith("/" + want.lstrip("/")) for want in self.sources)


#: First cells that make a file's first row its header (compared without case or space).
HEADER_NAMES = frozenset({"question", "questions", "query"})


def is_header(row: Sequence[str]) -> bool:
    """Whether ``row`` (a QA.tsv row's cells) is the header: its first cell names the
    question column (:data:`HEADER_NAMES`). A question is a sentence, never just the word."""
    return bool(row) and row[0].strip().lower() in HEADER_NAMES


def load_qa(path: Union[str, os.PathLike]) -> list[QAItem]:
    """The questions of a QA.tsv file, with or without its header row (see the module
    docstring); ValidationError naming the line for a row without three non-empty columns."""
    items: list[QAItem] = []
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    except UnicodeDecodeError as exc:
        raise ValidationError(f"{path} is not UTF-8 text ({exc.reason})") from exc
    first = 1 if rows and is_header(rows[0]) else 0
    for line, row in enumerate(rows[first:], start=first + 1):
        if not any(cell.strip() for cell in row):
            continue
        cells = [cell.strip() for cell in row]
        if len(cells) != 3 or not all(cells):
            raise ValidationError(f"{path}, line {line}: expected 3 tab-separated columns (question, key phrases, "
                                  f"source paths), got {len(cells)}: {row!r:.120}")
        phrases = tuple(p.strip() for p in cells[1].split("|") if p.strip())
        sources = tuple(s.strip() for s in cells[2].split("|") if s.strip())
        items.append(QAItem(cells[0], phrases, sources))
    if not items:
        raise ValidationError(f"{path} holds no questions: expected one question per line (question, key phrases, "
                              "source paths, tab-separated), after an optional header row")
    return items


@dataclass
class AnswerScore:
    """The checks of one answer: ``key_phrase`` and ``source_cited`` (bools), ``units``
    quoted and how many of them are ``verbatim`` in the sources they cite, the numbers
    cited that name no source (``invalid``), and whether an expected source was among
    those retrieved at all (``retrieved``: the most the answerer could cite)."""

    question: str
    key_phrase: bool
    source_cited: bool
    units: int
    verbatim: int
    cited_sources: list[str] = field(default_factory=list)
    invalid: list[int] = field(default_factory=list)
    retrieved: bool = False

    @property
    def precision(self) -> Optional[float]:
        """``verbatim / units`` in [0, 1]; None when the answer quotes nothing."""
        return self.verbatim / self.units if self.units else None


def score_answer(item: QAItem, answer: str, sources: Mapping[int, tuple[Optional[str], str]]) -> AnswerScore:
    """Check ``answer`` against ``item``; ``sources`` maps each citation number to the
    source's path or URL and the text it shows (what a quote must be verbatim in)."""
    plain = _flat(strip_marks(answer)).lower()
    key_phrase = any(_flat(phrase).lower() in plain for phrase in item.key_phrases)
    units = cited_units(answer)
    cited = sorted({n for _, numbers in units for n in numbers})
    invalid = [n for n in cited if n not in sources]
    flat_sources = {n: _flat(text) for n, (_, text) in sources.items()}
    verbatim = sum(1 for text, numbers in units
                   if all(n in flat_sources and _flat(text) in flat_sources[n] for n in numbers))
    paths = [str(sources[n][0]) for n in cited if n in sources]
    retrieved = any(item.matches_source(path) for path, _ in sources.values())
    return AnswerScore(item.question, key_phrase, any(item.matches_source(p) for p in paths),
                       len(units), verbatim, paths, invalid, retrieved)


@dataclass
class AnswerTotals:
    """Overall figures of a run: shares in [0, 1] of answers with a key phrase, with an
    expected source cited, and with one retrieved (``retrieved``); ``precision``: verbatim
    units over all quoted units (None when nothing was quoted)."""

    questions: int
    key_phrase: float
    source_cited: float
    precision: Optional[float]
    units: int
    seconds: float = 0.0
    retrieved: float = 0.0

    def to_json(self) -> dict:
        return {"questions": self.questions, "key_phrase": round(self.key_phrase, 4),
                "source_cited": round(self.source_cited, 4), "source_retrieved": round(self.retrieved, 4),
                "citation_precision": None if self.precision is None else round(self.precision, 4),
                "units": self.units, "seconds": round(self.seconds, 3)}


def summarize_scores(scores: Sequence[AnswerScore], seconds: float = 0.0) -> AnswerTotals:
    """The overall figures of ``scores`` (ValidationError when there are none)."""
    if not scores:
        raise ValidationError("no answers to summarize")
    units = sum(s.units for s in scores)
    verbatim = sum(s.verbatim for s in scores)
    return AnswerTotals(len(scores), sum(s.key_phrase for s in scores) / len(scores),
                        sum(s.source_cited for s in scores) / len(scores),
                        verbatim / units if units else None, units, seconds,
                        sum(s.retrieved for s in scores) / len(scores))
