"""ExtractiveAnswerer: answers from the retrieved documents' own words, with citations.

No model and no network. The documents are cut into units (sentences, and whole code
blocks, lists and tables: :mod:`rag.chains.candidates`); each candidate (a sentence with
the block it introduces, or a block) is described by named features
(:mod:`rag.chains.features`) that one set of fitted weights (:mod:`rag.chains.weights`)
adds up into its score; the best candidates are chosen under the length budget
(:mod:`rag.chains.selection`) and quoted verbatim, each followed by ``[n]``, the 1-based
position of its document in ``context``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Iterator, Optional, Sequence

import numpy as np

from rag.chains.candidates import Candidates, build_candidates
from rag.chains.features import dense_similarity
from rag.chains.selection import select_candidates
from rag.chains.units import split_sentences
from rag.chains.weights import AnswerWeights, default_weights
from rag.documents import Document
from rag.errors import NotFoundError, ValidationError
from rag.runnables import Runnable, RunnableConfig

__all__ = ["ExtractiveAnswerer", "Passage", "split_sentences", "rank_sentences", "format_passages", "NO_ANSWER"]

NO_ANSWER = "The provided documents do not answer the question."


@dataclass(frozen=True)
class Passage:
    """One quoted unit: its ``text``, the 1-based ``citation`` of its document, ``relevance``
    (the score its candidate was chosen by, clipped to [0, 1]), its ``kind`` (sentence,
    code, list or table), ``start``/``end``, its offsets in the document's
    ``page_content``, and ``contributions``: what each feature added to the score (name,
    weight x value), for ``rag ask --explain``."""

    text: str
    citation: int
    relevance: float
    kind: str = "sentence"
    start: int = -1
    end: int = -1
    contributions: tuple[tuple[str, float], ...] = field(default=(), compare=False)


def rank_sentences(question_vector: np.ndarray, sentence_vectors: np.ndarray) -> np.ndarray:
    """Cosine similarity of each row of ``sentence_vectors`` to ``question_vector``, clipped to
    [0, 1] (zero vectors score 0)."""
    return dense_similarity(question_vector, sentence_vectors)


def format_passages(passages: Sequence[Passage]) -> list[str]:
    """The answer's pieces (they add up to the answer): grouped by document, best document
    first, in the document's own order inside; a sentence followed by `` [n]``, a block on
    lines of its own followed by ``\n[n]``; :data:`NO_ANSWER` when there is none."""
    if not passages:
        return [NO_ANSWER]
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


class ExtractiveAnswerer(Runnable[dict, str]):
    """Answers ``{"input": question, "context": [Document, ...]}`` with the context's most
    relevant units, each followed by a citation ``[n]`` to the n-th document.

    Units are sentences, and whole code blocks, lists and tables (up to 25 lines), read
    from the passage's block spans (``metadata["blocks"]``) when the loader recorded them,
    else from its text; a block is quoted with the sentence that introduces it ("The basic
    usage is:") or names its caption's number ("see Table 13.2"); headings, navigation,
    questions (a FAQ's titles) and the rest of a sentence begun elsewhere are never
    quoted. Each candidate's score is the weighted sum of its features (dense similarity,
    lexical overlap, heading match, opening of its section, subject of a "what is X",
    block kind for "how do I" / "which ... each", brevity, its document's rank: see
    :mod:`rag.chains.features`) with ``weights`` (default: the fitted weights shipped in
    the package, :func:`~rag.chains.weights.default_weights`). Quotes are grouped by
    document, best document first, in the document's own order.

    Use it in place of a model's combine-documents chain:
    ``create_retrieval_chain(retriever, ExtractiveAnswerer())``.

    ``embeddings``: scores units (default ``HashingEmbeddings()``, offline); ``max_sentences``:
    at most this many units quoted (int >= 1, default 4; a code block, list or table counts
    as one); ``max_chars``: at most this many characters quoted (int >= 1, default 1200; a
    block is cut at a line to fit); ``min_relevance``: the match to the question in [0, 1]
    (dense and lexical features, averaged with their weights) a candidate needs (default:
    the weights', 0.15); when none reaches it, or the question has
    no word, the answer is :data:`NO_ANSWER`; ``weights``: an
    :class:`~rag.chains.weights.AnswerWeights`. Identical units
    are quoted once. ``stream`` yields one cited unit per chunk; the chunks add up to
    ``invoke``'s answer. A document's ``metadata["headings"]`` (``[offset, title, anchor]``,
    as the HTML loader and splitters record) marks its headings.

    >>> answerer = ExtractiveAnswerer(max_sentences=1)
    >>> answerer.invoke({"input": "What is the capital of France?", "context": [
    ...     Document("Berlin is in Germany."), Document("Paris is the capital of France.")]})
    'Paris is the capital of France. [2]'
    """

    def __init__(self, embeddings: Any = None, max_sentences: int = 4, min_relevance: Optional[float] = None, *,
                 max_chars: int = 1200, weights: Optional[AnswerWeights] = None, input_key: str = "input",
                 document_variable_name: str = "context") -> None:
        for name, value in (("max_sentences", max_sentences), ("max_chars", max_chars)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValidationError(f"{name} must be an int >= 1, got {value!r}")
        if min_relevance is not None and (isinstance(min_relevance, bool) or not isinstance(min_relevance, (int, float))
                                          or not 0 <= min_relevance <= 1):
            raise ValidationError(f"min_relevance must be a number between 0 and 1, got {min_relevance!r}")
        if weights is not None and not isinstance(weights, AnswerWeights):
            raise ValidationError(f"weights must be an AnswerWeights (e.g. AnswerWeights.load(path)), got {weights!r:.80}")
        if embeddings is None:
            from rag.embeddings import HashingEmbeddings

            embeddings = HashingEmbeddings()
        if not callable(getattr(embeddings, "embed_documents", None)):
            raise ValidationError(f"embeddings must have embed_documents(texts), got {type(embeddings).__name__}")
        self.embeddings = embeddings
        self.max_sentences = max_sentences
        self.max_chars = max_chars
        self.weights = weights if weights is not None else default_weights()
        self.min_relevance = float(min_relevance) if min_relevance is not None else self.weights.min_relevance
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

    def candidates(self, question: str, documents: Sequence[Document]) -> Candidates:
        """Every candidate quote of ``documents`` for ``question``, with its features."""
        return build_candidates(question, documents, self.embeddings)

    def choose(self, candidates: Candidates) -> list[Passage]:
        """The passages quoted from ``candidates`` with this answerer's weights and limits,
        best first (see :func:`~rag.chains.selection.select_candidates`)."""
        if not len(candidates):
            return []
        scores = self.weights.score(candidates.features)
        chosen = select_candidates(scores, [[(u.kind, u.text) for u in c.units] for c in candidates.items],
                                   max_units=self.max_sentences, max_chars=self.max_chars, min_score=self.min_relevance,
                                   relevance=self.weights.relevance(candidates.features))
        passages: list[Passage] = []
        for selected in chosen:
            candidate = candidates.items[selected.index]
            relevance = round(float(np.clip(scores[selected.index], 0.0, 1.0)), 6)
            contributions = tuple(self.weights.contributions(candidates.features[selected.index]).items())
            for unit, citation, text in zip(candidate.units, candidate.citations, selected.texts):
                # A sentence is quoted on one line (its white space collapsed), so its span is
                # the unit's own; a block cut to fit keeps its characters, so it ends sooner.
                end = unit.end if text == unit.text else unit.start + len(text)
                passages.append(Passage(text, citation, relevance, unit.kind, unit.start, end, contributions))
        return passages

    def passages(self, question: str, documents: Sequence[Document]) -> list[Passage]:
        """The quoted units, best first: at most ``max_sentences`` units and ``max_chars``
        characters, each candidate's match to the question
        (:meth:`~rag.chains.weights.AnswerWeights.relevance`) reaching ``min_relevance``.
        Ties keep document order."""
        return self.choose(self.candidates(question, documents))

    def _pieces(self, value: Any) -> list[str]:
        return format_passages(self.passages(*self._inputs(value)))

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
