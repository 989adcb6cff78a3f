"""ExtractiveAnswerer: answers from the retrieved documents' own sentences, with citations.

No model and no network: each context sentence is scored against the question by the
cosine similarity of their embeddings, and the best ones are quoted, each followed by
``[n]``, the 1-based position of its document in ``context``.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any, AsyncIterator, Iterator, Optional, Sequence

import numpy as np

from rag.documents import Document
from rag.embeddings.base import embed_texts
from rag.errors import NotFoundError, ValidationError
from rag.runnables import Runnable, RunnableConfig

__all__ = ["ExtractiveAnswerer", "Passage", "split_sentences", "rank_sentences", "NO_ANSWER"]

NO_ANSWER = "The provided documents do not answer the question."

# A sentence ends at . ! or ? followed by white space, or at a blank line (a paragraph
# break). A single line break is a hard wrap inside a paragraph and joins the lines.
# Abbreviations such as "e.g. x" may split early, which costs a shorter quote, never a
# wrong citation.
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+|\n[ \t]*\n\s*")
_WORD = re.compile(r"\w\w+")
_CLOSED = re.compile(r"[.!?:;)\"']$")
# Fragments this short without closing punctuation are headings or labels, not answers.
_MIN_OPEN_WORDS = 8


def _is_sentence(part: str) -> bool:
    words = len(_WORD.findall(part))
    return words > 0 and (bool(_CLOSED.search(part)) or words >= _MIN_OPEN_WORDS)


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, each on one line; headings and other short fragments
    without closing punctuation (fewer than 8 words) are left out.

    >>> split_sentences("Capitals\\n\\nParis is in\\nFrance. It is big!\\n\\nRome: Italy")
    ['Paris is in France.', 'It is big!']
    """
    parts = (" ".join(part.split()) for part in _SENTENCE_END.split(text) if part)
    return [part for part in parts if _is_sentence(part)]


@dataclass(frozen=True)
class Passage:
    """One quoted sentence: its text, the 1-based ``citation`` of its document and its
    ``relevance`` to the question (cosine similarity clipped to [0, 1])."""

    text: str
    citation: int
    relevance: float


def rank_sentences(question_vector: np.ndarray, sentence_vectors: np.ndarray) -> np.ndarray:
    """Cosine similarity of each row of ``sentence_vectors`` to ``question_vector``, clipped to
    [0, 1] (zero vectors score 0)."""
    norms = np.linalg.norm(sentence_vectors, axis=1) * np.linalg.norm(question_vector)
    dots = sentence_vectors @ question_vector
    with np.errstate(divide="ignore", invalid="ignore"):
        cosine = np.where(norms > 0, dots / np.where(norms > 0, norms, 1), 0.0)
    return np.clip(cosine, 0.0, 1.0)


class ExtractiveAnswerer(Runnable[dict, str]):
    """Answers ``{"input": question, "context": [Document, ...]}`` with the context's most
    relevant sentences, each followed by a citation ``[n]`` to the n-th document, best first.

    Use it in place of a model's combine-documents chain:
    ``create_retrieval_chain(retriever, ExtractiveAnswerer())``.

    ``embeddings``: scores sentences (default ``HashingEmbeddings()``, offline); ``max_sentences``:
    at most this many quoted (int >= 1, default 3); ``min_relevance``: the cosine similarity
    in [0, 1] a sentence needs (default 0.2); when none reaches it, the answer is
    :data:`NO_ANSWER`. Identical sentences are quoted once (the first document's citation).
    ``stream`` yields one cited sentence per chunk; the chunks add up to ``invoke``'s answer.

    >>> answerer = ExtractiveAnswerer(max_sentences=1)
    >>> answerer.invoke({"input": "What is the capital of France?", "context": [
    ...     Document("Berlin is in Germany."), Document("Paris is the capital of France.")]})
    'Paris is the capital of France. [2]'
    """

    def __init__(self, embeddings: Any = None, max_sentences: int = 3, min_relevance: float = 0.2, *,
                 input_key: str = "input", document_variable_name: str = "context") -> None:
        if isinstance(max_sentences, bool) or not isinstance(max_sentences, int) or max_sentences < 1:
            raise ValidationError(f"max_sentences must be an int >= 1, got {max_sentences!r}")
        if isinstance(min_relevance, bool) or not isinstance(min_relevance, (int, float)) or not 0 <= min_relevance <= 1:
            raise ValidationError(f"min_relevance must be a number between 0 and 1, got {min_relevance!r}")
        if embeddings is None:
            from rag.embeddings import HashingEmbeddings

            embeddings = HashingEmbeddings()
        if not callable(getattr(embeddings, "embed_documents", None)):
            raise ValidationError(f"embeddings must have embed_documents(texts), got {type(embeddings).__name__}")
        self.embeddings = embeddings
        self.max_sentences = max_sentences
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

    def passages(self, question: str, documents: Sequence[Document]) -> list[Passage]:
        """The quoted sentences, best first: at most ``max_sentences``, each reaching
        ``min_relevance``. Ties keep document order."""
        sentences: list[str] = []
        citations: list[int] = []
        seen: set[str] = set()
        for number, document in enumerate(documents, start=1):
            for sentence in split_sentences(document.page_content):
                if sentence not in seen:
                    seen.add(sentence)
                    sentences.append(sentence)
                    citations.append(number)
        if not sentences or not question.strip():
            return []
        # One batch for the question and every sentence: one call into the embedder.
        vectors = embed_texts(self.embeddings, [question, *sentences])
        relevance = rank_sentences(vectors[0], vectors[1:])
        order = np.argsort(-relevance, kind="stable")[: self.max_sentences]
        return [Passage(sentences[i], citations[i], float(relevance[i])) for i in order
                if relevance[i] >= self.min_relevance]

    def _pieces(self, value: Any) -> list[str]:
        passages = self.passages(*self._inputs(value))
        if not passages:
            return [NO_ANSWER]
        return [("" if i == 0 else " ") + f"{p.text} [{p.citation}]" for i, p in enumerate(passages)]

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
                f"min_relevance={self.min_relevance})")
