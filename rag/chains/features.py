"""The named signals an answer unit is scored by: small pure functions over arrays of units.

Each function returns one value per unit (a float64 array, every value in [0, 1]); the
weights that combine them live in :mod:`rag.chains.weights`. Nothing here knows any
manual's wording: the signals read the question's form ("how do I", "what is X",
"which ... each"), the units' words, kinds and places in their passage, and the rank of
the passage they come from.

=================  =======================================================================
name               what it measures
=================  =======================================================================
``dense``          cosine similarity of the unit's embedding to the question's
``lexical``        share of the question's terms the unit holds, each weighted by rarity
``section``        how well the heading the unit sits under matches the question
``lead``           the unit opens its section (first two sentences) times ``section``
``subject``        for "what is X": the unit's subject is X (1), or X is its first term (0.5)
``block_fit``      the unit is (or introduces) the kind of block the question asks for
``brevity``        how far the unit falls short of a statement: 1 - words / 4, at least 0
``source_rank``    the rank of the unit's passage: 1 for the first, 0 for the last
=================  =======================================================================
"""

from __future__ import annotations

import re
from typing import Literal, Optional, Sequence

import numpy as np

__all__ = ["FEATURES", "QuestionForm", "question_form", "dense_similarity", "lexical_overlap", "section_match",
           "section_lead", "subject_match", "block_fit", "brevity", "source_rank"]

#: The signals, in the column order of a feature matrix.
FEATURES: tuple[str, ...] = ("dense", "lexical", "section", "lead", "subject", "block_fit", "brevity",
                             "source_rank")

QuestionForm = Literal["how", "which", "what", "other"]

# English question forms (not any manual's wording): "how do I ..." is answered by an
# example, "which ... each" / "what are the ..." by a table, "what is X" by a sentence about X.
_HOW = re.compile(r"\bhow\s+(?:do|can|should|would|to)\b|\bhow\s+(?:i|we|you)\b|\bexample\b", re.IGNORECASE)
_WHICH = re.compile(r"\b(?:which|what)\b.*\b(?:each|are there|are the|mean|kinds?|types|levels|modes|values|"
                    r"options|differen\w*)\b|\blist\b|\bcompare\b", re.IGNORECASE)
_WHAT = re.compile(r"^\s*what\s+(?:is|are|does|do)\b", re.IGNORECASE)
# Below this many words a sentence ("For example:", "git fetch uses:") says too little.
_SHORT_WORDS = 4


def question_form(question: str) -> QuestionForm:
    """``how`` ("How do I ...", "... an example"), ``which`` ("Which ... each", "What are the
    ... types"), ``what`` ("What is X", "What does X do") or ``other``; the first that fits.

    >>> question_form("How do I add a column?"), question_form("What is a tablespace?")
    ('how', 'what')
    """
    if _HOW.search(question):
        return "how"
    if _WHICH.search(question):
        return "which"
    if _WHAT.search(question):
        return "what"
    return "other"


def dense_similarity(question_vector: np.ndarray, unit_vectors: np.ndarray) -> np.ndarray:
    """Cosine similarity of each row of ``unit_vectors`` (n x d) to ``question_vector`` (d),
    clipped to [0, 1]; a zero vector scores 0."""
    unit_vectors = np.asarray(unit_vectors, dtype=np.float64).reshape(len(unit_vectors), -1)
    question_vector = np.asarray(question_vector, dtype=np.float64)
    norms = np.linalg.norm(unit_vectors, axis=1) * np.linalg.norm(question_vector)
    dots = unit_vectors @ question_vector if unit_vectors.size else np.zeros(len(unit_vectors))
    with np.errstate(divide="ignore", invalid="ignore"):
        cosine = np.where(norms > 0, dots / np.where(norms > 0, norms, 1), 0.0)
    return np.clip(cosine, 0.0, 1.0)


def lexical_overlap(question_terms: Sequence[str], unit_terms: Sequence[Sequence[str]],
                    population: Optional[Sequence[Sequence[str]]] = None) -> np.ndarray:
    """For each unit, the share in [0, 1] of the question's distinct terms it holds, each
    term weighted by its rarity, log(1 + N / (1 + df)), over ``population`` (the term lists
    rarity is counted in; default ``unit_terms``). A question without terms scores 0."""
    wanted = list(dict.fromkeys(question_terms))
    if not wanted or not unit_terms:
        return np.zeros(len(unit_terms))
    population = unit_terms if population is None else population
    counted = np.array([[term in terms for term in wanted] for terms in map(set, population)], dtype=bool)
    weights = np.log1p(len(population) / (1.0 + counted.reshape(len(population), len(wanted)).sum(axis=0)))
    present = np.array([[term in terms for term in wanted] for terms in map(set, unit_terms)], dtype=bool)
    return (present @ weights) / weights.sum()


def section_match(title_relevance: np.ndarray, unit_titles: Sequence[int]) -> np.ndarray:
    """For each unit, the relevance in [0, 1] of the heading it sits under:
    ``title_relevance[unit_titles[i]]``, 0 where ``unit_titles[i]`` is -1 (no heading)."""
    index = np.asarray(unit_titles, dtype=np.int64)
    relevance = np.asarray(title_relevance, dtype=np.float64)
    if not len(index):
        return np.zeros(0)
    return np.where(index >= 0, relevance[np.clip(index, 0, max(0, len(relevance) - 1))] if len(relevance) else 0.0,
                    0.0)


def section_lead(leads: Sequence[Optional[int]], section: np.ndarray) -> np.ndarray:
    """``section`` for the first two sentences after a heading (``leads[i]`` 0 or 1: they
    define or sum up what the heading names), 0 for other units and where ``leads[i]`` is
    None (no heading before it in the passage)."""
    opening = np.array([lead is not None and lead < 2 for lead in leads], dtype=np.float64)
    return opening * np.asarray(section, dtype=np.float64)


def subject_match(form: QuestionForm, first_term_asked: Sequence[bool], subject_asked: Sequence[bool]) -> np.ndarray:
    """For a "what is X" question (``form == "what"``): 1 where the unit is a definition of
    one of the question's subjects (``subject_asked``: a purpose line "X - does Y" whose
    subject's terms are all the question's), 0.5 where the unit's first term is the
    question's (``first_term_asked``: "VACUUM reclaims storage ..."), else 0; all 0 for
    any other form."""
    if form != "what":
        return np.zeros(len(first_term_asked))
    first = np.asarray(first_term_asked, dtype=np.float64)
    named = np.asarray(subject_asked, dtype=np.float64)
    return np.maximum(0.5 * first, named)


def block_fit(form: QuestionForm, kinds: Sequence[str], synopsis: Sequence[bool]) -> np.ndarray:
    """1 where the unit is the kind of block the question's form is answered by (code for
    "how", a table for "which"), except a command's synopsis (grammar, not an example:
    ``synopsis[i]``); 0 elsewhere and for other forms."""
    wanted = {"how": "code", "which": "table"}.get(form)
    return np.array([wanted is not None and kind == wanted and not grammar for kind, grammar in zip(kinds, synopsis)],
                    dtype=np.float64)


def brevity(words: Sequence[int]) -> np.ndarray:
    """How far each unit falls short of saying something: 1 - words / 4 (at least 0), so
    "For example:" scores 0.5 and any unit of four words or more 0."""
    return np.clip(1.0 - np.asarray(words, dtype=np.float64) / _SHORT_WORDS, 0.0, 1.0)


def source_rank(citations: Sequence[int], documents: int) -> np.ndarray:
    """1 for units of the first passage (``citations`` are 1-based), falling linearly to 0
    for the last of ``documents``; 1 for all when there is one passage."""
    position = np.asarray(citations, dtype=np.float64) - 1.0
    return np.clip(1.0 - position / max(1, documents - 1), 0.0, 1.0)
