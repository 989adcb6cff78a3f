"""ExtractiveAnswerer: answers from the retrieved documents' own words, with citations.

No model and no network. The documents are cut into units (:mod:`rag.chains.units`:
sentences, and whole code blocks, lists and tables); each unit is scored against the
question by the cosine similarity of their embeddings and by the share of the question's
terms it holds (stemmed, weighted by how rare they are among the units), and the score is
discounted by its document's retrieval rank. The best units are quoted verbatim, each
followed by ``[n]``, the 1-based position of its document in ``context``.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any, AsyncIterator, Iterator, Optional, Sequence

import numpy as np

from rag.chains.units import Unit, caption_number, is_synopsis, mentions, purpose_subject, split_sentences, text_units, unit_sections
from rag.documents import Document
from rag.embeddings.base import embed_texts
from rag.errors import NotFoundError, ValidationError
from rag.runnables import Runnable, RunnableConfig

__all__ = ["ExtractiveAnswerer", "Passage", "split_sentences", "rank_sentences", "NO_ANSWER"]

NO_ANSWER = "The provided documents do not answer the question."

# Weights of the two relevance signals (they add up to 1, so relevance stays in [0, 1]).
_DENSE, _LEXICAL = 0.55, 0.45
# The last-ranked document's units keep this share of their relevance; the first keep all.
# Mild: with context windows a passage is several chunks, and the best unit is often in a
# passage ranked below the one holding the question's words.
_LAST_RANK_SHARE = 0.9
# "How do I ..." is best answered by an example, "Which ... each ..." by a table: such a
# block (with the sentence introducing it) scores this much more for such a question.
_BLOCK_BONUS = 0.1
_HOW = re.compile(r"\bhow\s+(?:do|can|should|would|to)\b|\bhow\s+(?:i|we|you)\b|\bexample\b", re.IGNORECASE)
_WHICH = re.compile(r"\b(?:which|what)\b.*\b(?:each|are there|are the|mean|kinds?|types|levels|modes|values|"
                    r"options|differen\w*)\b|\blist\b|\bcompare\b", re.IGNORECASE)
# Characters of a unit given to the embedder (a 25-line table need not be embedded whole).
_EMBED_CHARS = 600
# A unit's relevance blends in this share of its section heading's relevance: manuals put
# the subject of a passage in its heading ("5.6.2. Removing a Column"), not in every sentence.
_SECTION = 0.3
# The first two sentences after a heading define or summarise it ("A partial index is an
# index built over a subset of a table"): they gain this much times the heading's relevance.
_LEAD = 0.1
# "What is X?" / "What does X do?" is answered by a sentence whose subject is X ("VACUUM
# reclaims storage occupied by dead tuples."): a sentence whose first term is one of the
# question's gains this much for such a question, and as much again when it is a manual
# page's purpose line ("git-fetch - Download objects and refs from another repository").
_SUBJECT = 0.05
_SHORT = 4
_WORDS = re.compile(r"\w\w+")
_DEFINITION = re.compile(r"^\s*what\s+(?:is|are|does|do)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Passage:
    """One quoted unit: its ``text``, the 1-based ``citation`` of its document, ``relevance``
    (the score it was chosen by, in [0, 1]), its ``kind`` (sentence, code, list or table)
    and ``start``/``end``, its offsets in the document's ``page_content``."""

    text: str
    citation: int
    relevance: float
    kind: str = "sentence"
    start: int = -1
    end: int = -1


def rank_sentences(question_vector: np.ndarray, sentence_vectors: np.ndarray) -> np.ndarray:
    """Cosine similarity of each row of ``sentence_vectors`` to ``question_vector``, clipped to
    [0, 1] (zero vectors score 0)."""
    norms = np.linalg.norm(sentence_vectors, axis=1) * np.linalg.norm(question_vector)
    dots = sentence_vectors @ question_vector
    with np.errstate(divide="ignore", invalid="ignore"):
        cosine = np.where(norms > 0, dots / np.where(norms > 0, norms, 1), 0.0)
    return np.clip(cosine, 0.0, 1.0)


def _lexical(question_terms: list[str], unit_terms: list[list[str]]) -> np.ndarray:
    """For each unit, the share in [0, 1] of the question's distinct terms it holds, each
    term weighted by its rarity among the units (log(1 + N / (1 + df)))."""
    wanted = list(dict.fromkeys(question_terms))
    if not wanted or not unit_terms:
        return np.zeros(len(unit_terms))
    present = np.array([[term in terms for term in wanted] for terms in map(set, unit_terms)], dtype=bool)
    weights = np.log1p(len(unit_terms) / (1.0 + present.sum(axis=0)))
    return (present @ weights) / weights.sum()


@dataclass
class _Candidate:
    """A sentence with the block it introduces (if any), or a block on its own;
    ``citations``: each unit's document (a table may sit in another passage of the page
    whose sentence names it)."""

    units: list[Unit]
    citations: list[int]
    score: float
    relevance: float

    @property
    def chars(self) -> int:
        return sum(len(unit.text) for unit in self.units)


class ExtractiveAnswerer(Runnable[dict, str]):
    """Answers ``{"input": question, "context": [Document, ...]}`` with the context's most
    relevant units, each followed by a citation ``[n]`` to the n-th document.

    Units are sentences, and whole code blocks, lists and tables (up to 25 lines), which
    are quoted with the sentence that introduces them ("The basic usage is:") or names
    their caption's number ("see Table 13.2"); headings (a page's title too), navigation
    and boilerplate are never quoted. A text's relevance in [0, 1] is 0.55 x the cosine
    similarity of its embedding to the question's plus 0.45 x the rarity-weighted share of
    the question's terms it holds. A unit's relevance is 0.7 x its own plus 0.3 x that of
    the heading it sits under (manuals name the subject in the heading); the first two
    sentences after a heading gain 0.1 x the heading's relevance (they define or sum up
    what it names). Its score scales that down by its document's position in ``context``
    (the last keeps 90 %). For a "how do I" question a sentence with the code it
    introduces (or a code block) gains 0.1, unless the code is a command's synopsis
    (``[ IF EXISTS ]`` grammar, not an example), and a table gains as much for a "which
    ... each" or "what are the ..." question. For a "what is X" / "what does X do"
    question, a sentence whose first term is the question's gains 0.05, and a manual
    page's purpose line ("git-fetch - Download objects ...") whose subject's terms are all
    the question's 0.05 more. A sentence under
    four words ("For example:") keeps that share of its relevance (words / 4). A numbered
    table or example no sentence of its passage introduces is quoted with a sentence of
    another passage of the same page that names it ("see Table 13.2"). Quotes are
    grouped by document, best document first, in the document's own order.

    Use it in place of a model's combine-documents chain:
    ``create_retrieval_chain(retriever, ExtractiveAnswerer())``.

    ``embeddings``: scores units (default ``HashingEmbeddings()``, offline); ``max_sentences``:
    at most this many units quoted (int >= 1, default 4; a code block, list or table counts
    as one); ``max_chars``: at most this many characters quoted (int >= 1, default 1200; a
    block is cut at a line to fit); ``min_relevance``: the relevance in [0, 1] a unit needs
    (default 0.2); when none reaches it, the answer is :data:`NO_ANSWER`. Identical units
    are quoted once. ``stream`` yields one cited unit per chunk; the chunks add up to
    ``invoke``'s answer. A document's ``metadata["headings"]`` (``[offset, title, anchor]``,
    as the HTML loader and splitters record) marks its headings.

    >>> answerer = ExtractiveAnswerer(max_sentences=1)
    >>> answerer.invoke({"input": "What is the capital of France?", "context": [
    ...     Document("Berlin is in Germany."), Document("Paris is the capital of France.")]})
    'Paris is the capital of France. [2]'
    """

    def __init__(self, embeddings: Any = None, max_sentences: int = 4, min_relevance: float = 0.2, *,
                 max_chars: int = 1200, input_key: str = "input", document_variable_name: str = "context") -> None:
        for name, value in (("max_sentences", max_sentences), ("max_chars", max_chars)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValidationError(f"{name} must be an int >= 1, got {value!r}")
        if isinstance(min_relevance, bool) or not isinstance(min_relevance, (int, float)) or not 0 <= min_relevance <= 1:
            raise ValidationError(f"min_relevance must be a number between 0 and 1, got {min_relevance!r}")
        if embeddings is None:
            from rag.embeddings import HashingEmbeddings

            embeddings = HashingEmbeddings()
        if not callable(getattr(embeddings, "embed_documents", None)):
            raise ValidationError(f"embeddings must have embed_documents(texts), got {type(embeddings).__name__}")
        self.embeddings = embeddings
        self.max_sentences = max_sentences
        self.max_chars = max_chars
        self.min_relevance = float(min_relevance)
        self.input_key = input_key
        self.document_variable_name = document_variable_name
        self.name = None

    def _inputs(self, value: Any) -> tuple[str, Sequence[Document]]:
        if not isinstance(value, dict):
            raise ValidationError(f"ExtractiveAnswerer takes a dict with {self.input_key!r} and "
                                  f"{self.document_variable_name!r}, got {type(value).__name__}")
        missing = [k for k in (self.input_key, self.document_variable_name) if k not in value]
        if missing:
            raise NotFoundError(f"ExtractiveAnswerer: key(s) {missing} not in the input; it has {sorted(value)}")
        question, documents = value[self.input_key], value[self.document_variable_name]
        if not isinstance(question, str):
            raise ValidationError(f"{self.input_key!r} must be the question as a str, got {type(question).__name__}")
        if not isinstance(documents, (list, tuple)) or not all(isinstance(d, Document) for d in documents):
            raise ValidationError(f"{self.document_variable_name!r} must be a list of Documents, got {documents!r:.60}")
        return question, documents

    def _candidates(self, question: str, documents: Sequence[Document]) -> list[_Candidate]:
        units: list[Unit] = []
        sections: list[str] = []  # the heading each unit sits under
        citations: list[int] = []
        groups: list[list[int]] = []  # indexes into units: a sentence and its block, or a block
        seen: set[str] = set()
        for number, document in enumerate(documents, start=1):
            own = text_units(document.page_content, document.metadata.get("headings"),
                             [document.metadata.get(key) for key in ("title", "section")])
            sections.extend(unit_sections(own, document.metadata))
            first = len(units)
            lead_of: dict[int, int] = {}  # a document's unit index -> its group
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
        if not units or not question.strip():
            return []
        _attach_named_blocks(units, citations, groups, [_page(document.metadata.get("source")) for document in documents])
        from rag.bm25.analysis import Analyzer

        # A definition is scored with the term it defines ("work_mem (integer): Sets ...").
        texts = [(f"{unit.label}: {unit.text}" if unit.label else unit.text)[:_EMBED_CHARS] for unit in units]
        # One batch for the question and every unit: one call into the embedder.
        titles = list(dict.fromkeys(title for title in sections if title))
        vectors = embed_texts(self.embeddings, [question, *texts, *titles])
        dense = rank_sentences(vectors[0], vectors[1:len(texts) + 1])
        analyzer = Analyzer()
        terms = analyzer.analyze_many([question, *texts, *titles])
        relevance = _DENSE * dense + _LEXICAL * _lexical(terms[0], terms[1:len(texts) + 1])
        if titles:
            title_relevance = (_DENSE * rank_sentences(vectors[0], vectors[len(texts) + 1:])
                               + _LEXICAL * _lexical(terms[0], terms[len(texts) + 1:]))
            by_title = dict(zip(titles, title_relevance))
            under = np.array([by_title.get(title, 0.0) if title else 0.0 for title in sections])
            relevance = (1 - _SECTION) * relevance + _SECTION * under
            leads = np.array([unit.lead is not None and unit.lead < 2 for unit in units])
            relevance = relevance + _LEAD * under * leads
        # A sentence of a few words ("git fetch uses:", "For example:") says too little for
        # its similarity to mean much: below _SHORT words its relevance shrinks in proportion.
        words = np.array([len(_WORDS.findall(unit.text)) if unit.kind == "sentence" else _SHORT for unit in units])
        relevance = relevance * np.minimum(1.0, words / _SHORT)
        if _DEFINITION.search(question):
            asked = set(terms[0])
            subjects = np.array([unit.kind == "sentence" and bool(own) and own[0] in asked
                                 for unit, own in zip(units, terms[1:len(texts) + 1])])
            # A purpose line ("git-revert - Revert some existing commits") defines its subject:
            # every term of that subject must be the question's ("git-pull" is not asked about
            # in "What does git rebase do?", though its first term is).
            named = [purpose_subject(unit.text) if unit.kind == "sentence" else None for unit in units]
            subject_terms = analyzer.analyze_many([name or "" for name in named])
            purposes = np.array([name is not None and bool(own) and set(own) <= asked
                                 for name, own in zip(named, subject_terms)])
            relevance = np.minimum(1.0, relevance + _SUBJECT * subjects + _SUBJECT * purposes)
        last = max(1, len(documents) - 1)
        candidates = []
        # The block kind that answers this kind of question best, if any.
        wanted = "code" if _HOW.search(question) else "table" if _WHICH.search(question) else None
        for group in groups:
            best = float(max(relevance[i] for i in group))
            if wanted is not None and any(units[i].kind == wanted and not is_synopsis(units[i].text) for i in group):
                best = min(1.0, best + _BLOCK_BONUS)
            share = 1.0 - (1.0 - _LAST_RANK_SHARE) * (citations[group[0]] - 1) / last
            candidates.append(_Candidate([units[i] for i in group], [citations[i] for i in group], best * share, best))
        return candidates

    def passages(self, question: str, documents: Sequence[Document]) -> list[Passage]:
        """The quoted units, best first: at most ``max_sentences`` units and ``max_chars``
        characters, each group reaching ``min_relevance``. Ties keep document order."""
        candidates = sorted(self._candidates(question, documents), key=lambda c: -c.score)
        chosen: list[Passage] = []
        chars = 0
        for candidate in candidates:
            if len(chosen) >= self.max_sentences:
                break
            if candidate.relevance < self.min_relevance or len(chosen) + len(candidate.units) > self.max_sentences:
                continue
            texts: list[str] = []
            room = self.max_chars - chars
            for unit in candidate.units:
                text = unit.text if unit.kind == "sentence" else _fit(unit.text, room)
                if not text or len(text) > room:
                    break  # a sentence without the block it introduces is no answer
                texts.append(text)
                room -= len(text)
            if len(texts) < len(candidate.units):
                continue
            for unit, citation, text in zip(candidate.units, candidate.citations, texts):
                # A sentence is quoted on one line (its white space collapsed), so its span is
                # the unit's own; a block cut to fit keeps its characters, so it ends sooner.
                end = unit.end if text == unit.text else unit.start + len(text)
                chosen.append(Passage(text, citation, round(candidate.score, 6), unit.kind, unit.start, end))
                chars += len(text)
        return chosen

    def _pieces(self, value: Any) -> list[str]:
        passages = self.passages(*self._inputs(value))
        if not passages:
            return [NO_ANSWER]
        # Grouped by document, best document first; in the document's own order inside.
        order = list(dict.fromkeys(p.citation for p in passages))
        ordered = sorted(passages, key=lambda p: (order.index(p.citation), p.start))
        pieces: list[str] = []
        previous: Optional[Passage] = None
        for passage in ordered:
            block = passage.kind != "sentence"
            if previous is None:
                lead = ""
            elif block or previous.kind != "sentence" or previous.citation != passage.citation:
                lead = "\n\n"
            else:
                lead = " "
            pieces.append(f"{lead}{passage.text}\n[{passage.citation}]" if block
                          else f"{lead}{passage.text} [{passage.citation}]")
            previous = passage
        return pieces

    def invoke(self, input: dict, config: Optional[RunnableConfig] = None, **kwargs: Any) -> str:
        return self._call_traced(lambda value, _cfg: "".join(self._pieces(value)), input, config)

    def stream(self, input: dict, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[str]:
        return self._stream_traced(lambda value, _cfg: iter(self._pieces(value)), input, config)

    async def astream(self, input: dict, config: Optional[RunnableConfig] = None, **kwargs: Any) -> AsyncIterator[str]:
        async def body(value: Any, _cfg: Any) -> AsyncIterator[str]:
            # Embedding is CPU work: off the event loop.
            for piece in await asyncio.to_thread(self._pieces, value):
                yield piece

        async for chunk in self._astream_traced(body, input, config):
            yield chunk

    def __repr__(self) -> str:
        return (f"ExtractiveAnswerer(embeddings={type(self.embeddings).__name__}, max_sentences={self.max_sentences}, "
                f"max_chars={self.max_chars}, min_relevance={self.min_relevance})")


def _attach_named_blocks(units: list[Unit], citations: list[int], groups: list[list[int]],
                         sources: list[Any]) -> None:
    """Give a numbered table or example that stands alone (no sentence introduces it) to a
    sentence of another passage of the same page that names it ("... with which each
    conflicts (see Table 13.2)."): long tables are often chunked apart from the sentence
    that points at them. ``groups`` is changed in place."""
    naming: dict[tuple[Any, tuple[str, str]], int] = {}  # (page, ("table", "13.2")) -> group
    for number, group in enumerate(groups):
        head = units[group[0]]
        source = sources[citations[group[0]] - 1]
        if head.kind == "sentence" and source is not None:
            for name in mentions(head.text):
                naming.setdefault((source, name), number)
    moved = False
    for number, group in enumerate(groups):
        block = units[group[0]]
        name = caption_number(block) if len(group) == 1 and block.owner is None else None
        target = naming.get((sources[citations[group[0]] - 1], name)) if name else None
        if target is not None and target != number and citations[groups[target][0]] != citations[group[0]]:
            groups[target].append(group[0])
            group.clear()
            moved = True
    if moved:
        groups[:] = [group for group in groups if group]


def _page(source: Any) -> Any:
    """``source`` as a key naming a page; None (no page) when it cannot be one (metadata is
    the caller's: a list of sources, say)."""
    try:
        hash(source)
    except TypeError:
        return None
    return source


def _fit(block: str, room: int) -> str:
    """``block`` cut after its last whole line that fits in ``room`` characters ('' if none)."""
    if len(block) <= room:
        return block
    cut = block.rfind("\n", 0, room + 1)
    return block[:cut].rstrip() if cut > 0 else ""

