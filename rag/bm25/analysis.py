"""Text analysis for BM25: lower-casing, word tokens, English stopwords, Snowball stemming."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Optional, Sequence

from rag._optional import require
from rag.errors import ValidationError

__all__ = ["ENGLISH_STOPWORDS", "Analyzer", "DEFAULT_TOKEN_PATTERN"]

#: Lucene's default English stop set (also bm25s's "en"): short, so that negations and
#: most content-bearing function words survive.
ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with".split()
)
#: Runs of two or more word characters (scikit-learn's and bm25s's default).
DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"


# PyStemmer's stemmer objects are not thread-safe: each thread gets its own.
_per_thread = threading.local()


def _load_stemmer(language: str) -> Callable[[list[str]], list[str]]:
    stemmers = _per_thread.__dict__.setdefault("stemmers", {})
    if language in stemmers:
        return stemmers[language]
    # PyStemmer: the Snowball stemmers compiled from C.
    Stemmer = require("Stemmer", feature=f"stemmer={language!r}", packages=["PyStemmer"],
                      alternative="or pass stemmer=None to index without stemming")
    try:
        stemmers[language] = Stemmer.Stemmer(language).stemWords
    except KeyError as exc:
        raise ValidationError(
            f"stemmer={language!r} is not a Snowball language; choose one of "
            f"{sorted(Stemmer.algorithms())} or None"
        ) from exc
    return stemmers[language]


@dataclass(frozen=True)
class Analyzer:
    """Turns text into BM25 terms: lower-case, ``token_pattern`` words, minus ``stopwords``,
    stemmed with the Snowball ``stemmer`` (a PyStemmer language name, or None).

    Plain data: :meth:`to_json` is saved with an index and :meth:`from_json` restores it.
    Each distinct word of a batch is stemmed once, since corpora repeat words a lot.

    >>> Analyzer().analyze("The cats are running")
    ['cat', 'run']
    """

    stemmer: Optional[str] = "english"
    stopwords: frozenset[str] = field(default=ENGLISH_STOPWORDS)
    token_pattern: str = DEFAULT_TOKEN_PATTERN
    lowercase: bool = True

    def __post_init__(self) -> None:
        if self.stemmer is not None and not isinstance(self.stemmer, str):
            raise ValidationError(f"stemmer must be a Snowball language name or None, got {self.stemmer!r}")
        try:
            re.compile(self.token_pattern)
        except re.error as exc:
            raise ValidationError(f"token_pattern {self.token_pattern!r} is not a valid regex: {exc}") from exc
        object.__setattr__(self, "stopwords", frozenset(self.stopwords))
        if self.stemmer is not None:
            _load_stemmer(self.stemmer)  # fail now, not at the first query, if PyStemmer is missing

    @cached_property
    def _pattern(self) -> "re.Pattern[str]":
        return re.compile(self.token_pattern)

    def analyze(self, text: str) -> list[str]:
        """The terms of one text, in order (duplicates kept)."""
        return self.analyze_many([text])[0]

    def analyze_many(self, texts: Sequence[str]) -> list[list[str]]:
        """The terms of each text; stems each distinct word once for the whole batch."""
        stopwords, pattern = self.stopwords, self._pattern
        words = [
            [w for w in pattern.findall(text.lower() if self.lowercase else text) if w not in stopwords]
            for text in texts
        ]
        if self.stemmer is None:
            return words
        vocabulary = list({w for row in words for w in row})
        stem_of = dict(zip(vocabulary, _load_stemmer(self.stemmer)(vocabulary)))
        return [[stem_of[w] for w in row] for row in words]

    def to_json(self) -> dict[str, Any]:
        return {
            "stemmer": self.stemmer,
            "stopwords": sorted(self.stopwords),
            "token_pattern": self.token_pattern,
            "lowercase": self.lowercase,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Analyzer":
        return cls(
            stemmer=data["stemmer"],
            stopwords=frozenset(data["stopwords"]),
            token_pattern=data["token_pattern"],
            lowercase=bool(data["lowercase"]),
        )
