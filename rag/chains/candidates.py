"""What an offline answer may quote, with the features it is scored by.

A passage's units come from its block spans (:mod:`rag.chains.spans`) when the loader
recorded them, else from its plain text (:mod:`rag.chains.units`). A *candidate* is a
sentence with the blocks it introduces, or a block alone: it is quoted whole or not at
all. Its features (:mod:`rag.chains.features`) are those of its units, taken at their best
(the highest value; for ``brevity``, the lowest, as a sentence with its block says enough).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from rag.chains import features as signals
from rag.chains.features import FEATURES, question_form
from rag.chains.spans import span_units
from rag.chains.commands import is_command_term
from rag.chains.units import _WORD, Unit, caption_number, is_synopsis, mentions, purpose_subject, text_units, unit_sections
from rag.documents import Document
from rag.embeddings.base import embed_texts

__all__ = ["Candidate", "Candidates", "build_candidates", "document_units", "READ_CHARS"]

# Characters of a unit given to the embedder (a 25-line table need not be embedded whole).
_EMBED_CHARS = 600
#: Characters of each passage the answerer reads (a longer one is read up to here).
READ_CHARS = 200_000
# A block counts as this many words for brevity: it says enough on its own.
_BLOCK_WORDS = 4


@dataclass(frozen=True)
class Candidate:
    """A sentence with the blocks it introduces, or a block alone: its ``units`` and the
    1-based ``citations`` of the passage each comes from (a numbered table may sit in
    another passage of the page whose sentence names it)."""

    units: tuple[Unit, ...]
    citations: tuple[int, ...]


@dataclass(frozen=True)
class Candidates:
    """The candidates of one question and their ``features`` (one row per candidate, one
    column per name of :data:`~rag.chains.features.FEATURES`, each in [0, 1])."""

    question: str
    items: tuple[Candidate, ...]
    features: np.ndarray

    def __len__(self) -> int:
        return len(self.items)


def document_units(document: Document) -> list[Unit]:
    """The units of one passage, read from its first :data:`READ_CHARS` characters: from
    its ``blocks`` metadata when present and well formed, else from its text."""
    metadata = document.metadata
    titles = [str(metadata[key]) for key in ("title", "section") if metadata.get(key)]
    text, blocks = document.page_content, metadata.get("blocks")
    if len(text) > READ_CHARS:
        # A passage from an index is a few thousand characters; a whole book handed to
        # the answerer is read up to here, so it answers in seconds instead of hours.
        text = text[:READ_CHARS]
        if isinstance(blocks, (list, tuple)):
            blocks = [[block[0], min(block[1], READ_CHARS), *block[2:]] for block in blocks
                      if isinstance(block, (list, tuple)) and len(block) >= 3 and isinstance(block[0], int)
                      and isinstance(block[1], int) and block[0] < READ_CHARS]
    units = span_units(text, blocks, metadata.get("headings"), titles)
    return units if units is not None else text_units(text, metadata.get("headings"), titles)


def _fit_kind(unit: Unit) -> str:
    """The kind of block ``unit`` answers as: a definition quoted with its term, when that
    term is a command line ("git push origin :experimental Find a ref ... and delete it."),
    is an example, as code is."""
    if unit.kind == "sentence" and unit.label and unit.text.startswith(unit.label) and is_command_term(unit.label):
        return "code"
    return unit.kind


def _page(source: Any) -> Any:
    """``source`` as a key naming a page; None when it cannot be one (a list, say)."""
    try:
        hash(source)
    except TypeError:
        return None
    return source


def _attach_named_blocks(units: list[Unit], citations: list[int], groups: list[list[int]], sources: list[Any]) -> None:
    """Give a numbered table or example that stands alone (no sentence introduces it) to a
    sentence of another passage of the same page that names it ("... (see Table 13.2)."):
    long tables are often chunked apart from the sentence pointing at them. In place."""
    naming: dict[tuple[Any, tuple[str, str]], int] = {}
    for number, group in enumerate(groups):
        head = units[group[0]]
        source = sources[citations[group[0]] - 1]
        if head.kind == "sentence" and source is not None:
            for name in mentions(head.text):
                naming.setdefault((source, name), number)
    moved = False
    for number, group in enumerate(groups):
        block = units[group[0]]
        caption = caption_number(block) if len(group) == 1 and block.owner is None else None
        target = naming.get((sources[citations[group[0]] - 1], caption)) if caption else None
        if target is not None and target != number and citations[groups[target][0]] != citations[group[0]]:
            groups[target].append(group[0])
            group.clear()
            moved = True
    if moved:
        groups[:] = [group for group in groups if group]


def build_candidates(question: str, documents: Sequence[Document], embeddings: Any) -> Candidates:
    """The candidates of ``documents`` for ``question`` and their features; identical units
    are kept once (the first). Embeds the question, the units and their headings in one
    call to ``embeddings``."""
    units: list[Unit] = []
    sections: list[str] = []
    citations: list[int] = []
    groups: list[list[int]] = []
    seen: set[str] = set()
    for number, document in enumerate(documents, start=1):
        own = document_units(document)
        sections.extend(unit_sections(own, document.metadata))
        first = len(units)
        lead_of: dict[int, int] = {}
        for index, unit in enumerate(own):
            key = " ".join(unit.text.split())
            duplicate = key in seen
            seen.add(key)
            units.append(unit)
            citations.append(number)
            if unit.kind != "sentence" and unit.owner is not None and unit.owner in lead_of:
                groups[lead_of[unit.owner]].append(first + index)
            elif not duplicate:
                lead_of[index] = len(groups)
                groups.append([first + index])
    if not units or not groups or not any(ch.isalnum() for ch in question):
        return Candidates(question, (), np.zeros((0, len(FEATURES))))
    _attach_named_blocks(units, citations, groups, [_page(d.metadata.get("source")) for d in documents])
    from rag.bm25.analysis import Analyzer

    # A definition is scored with the term it defines ("work_mem (integer): Sets ...").
    texts = [(f"{unit.label}: {unit.text}" if unit.label and not unit.text.startswith(unit.label) else unit.text
              )[:_EMBED_CHARS] for unit in units]
    titles = list(dict.fromkeys(title for title in sections if title))
    # Each distinct text is embedded once (overlapping passages repeat sentences).
    distinct = list(dict.fromkeys([question, *texts, *titles]))
    row = {text: number for number, text in enumerate(distinct)}
    vectors = np.asarray(embed_texts(embeddings, distinct))[[row[text] for text in [question, *texts, *titles]]]
    analyzer = Analyzer()
    terms = analyzer.analyze_many([question, *texts, *titles])
    asked, unit_terms, title_terms = terms[0], terms[1:len(texts) + 1], terms[len(texts) + 1:]
    form = question_form(question)
    title_relevance = (0.5 * signals.dense_similarity(vectors[0], vectors[len(texts) + 1:])
                       + 0.5 * signals.lexical_overlap(asked, title_terms)) if titles else np.zeros(0)
    title_index = {title: number for number, title in enumerate(titles)}
    section = signals.section_match(title_relevance, [title_index.get(title, -1) for title in sections])
    asked_set = set(asked)
    # A purpose line ("git-revert - Revert some existing commits") defines its subject when
    # every term of that subject is the question's.
    named = [purpose_subject(unit.text) if unit.kind == "sentence" else None for unit in units]
    subject_terms = analyzer.analyze_many([name or "" for name in named])
    words = [len(_WORD.findall(unit.text)) if unit.kind == "sentence" else _BLOCK_WORDS for unit in units]
    per_unit = np.column_stack([
        signals.dense_similarity(vectors[0], vectors[1:len(texts) + 1]),
        signals.lexical_overlap(asked, unit_terms),
        section,
        signals.section_lead([unit.lead if unit.kind == "sentence" else None for unit in units], section),
        signals.subject_match(form, [unit.kind == "sentence" and bool(own) and own[0] in asked_set
                                     for unit, own in zip(units, unit_terms)],
                              [name is not None and bool(own) and set(own) <= asked_set
                               for name, own in zip(named, subject_terms)]),
        signals.block_fit(form, [_fit_kind(unit) for unit in units],
                          [unit.kind == "code" and is_synopsis(unit.text) for unit in units]),
        signals.brevity(words),
        signals.source_rank(citations, len(documents)),
    ])
    brevity_column, rank_column = FEATURES.index("brevity"), FEATURES.index("source_rank")
    rows = []
    for group in groups:
        row = per_unit[group].max(axis=0)
        row[brevity_column] = per_unit[group, brevity_column].min()
        row[rank_column] = per_unit[group[0], rank_column]
        rows.append(row)
    items = tuple(Candidate(tuple(units[i] for i in group), tuple(citations[i] for i in group)) for group in groups)
    return Candidates(question, items, np.array(rows, dtype=np.float64).reshape(len(items), len(FEATURES)))
