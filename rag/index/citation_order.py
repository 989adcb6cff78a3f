"""Sources numbered in the order an answer cites them.

A retrieval chain's answer cites each passage as ``[n]``, ``n`` its rank among the
passages retrieved (``metadata["n"]``), so an answer can read "... [2] ... [5]". What a
reader sees is numbered again: the first passage cited becomes ``[1]``, the next new one
``[2]``..., the passages not cited follow in their retrieval order, and every mark and
every ``metadata["n"]`` changes together, so each ``[n]`` still names the same passage.
One mechanism (:class:`~rag.chains.citations.CitationNumbering`) does it for offline and
model answers, whole or streamed.
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Iterator, Optional, Sequence

from rag.chains.citations import CitationNumbering
from rag.documents import Document
from rag.runnables import RunnableGenerator

__all__ = ["passage_numbers", "numbered_as_cited", "AnswerInCitationOrder", "in_citation_order"]


def passage_numbers(context: Sequence[Document]) -> list[Any]:
    """Each passage's number: its ``metadata["n"]``, else its 1-based position."""
    return [document.metadata.get("n", rank) for rank, document in enumerate(context, start=1)]


def numbered_as_cited(context: Sequence[Document], numbers: dict[int, int]) -> list[Document]:
    """Copies of ``context``, in the same (retrieval) order, with ``metadata["n"]`` the new
    number ``numbers`` gives (old -> new, as cited); the passages not cited are numbered
    after them in their order."""
    following = len(numbers)
    numbered = []
    for old in passage_numbers(context):
        if old in numbers:
            numbered.append(numbers[old])
        else:
            following += 1
            numbered.append(following)
    return [Document(document.page_content, {**document.metadata, "n": n}, document.id)
            for document, n in zip(context, numbered)]


class AnswerInCitationOrder:
    """Reads a retrieval chain's output, whole or as stream chunks (``{"input"}``,
    ``{"context": [...]}``, ``{"answer": piece}``...), into the same output numbered as
    cited. :meth:`take` returns the chunks to pass on now: other keys at once, the answer's
    settled text as it comes; :meth:`close` returns the rest of the answer, then the
    context, numbered (its numbers are known only once the answer is). ``drop_invalid``:
    also remove citations to numbers no passage has (default False: they are left for
    :class:`~rag.index.answer.Answer` to remove and report). An answer that is not text
    passes unchanged, with its context."""

    def __init__(self, *, drop_invalid: bool = False) -> None:
        self.drop_invalid = drop_invalid
        self.context: Optional[list[Document]] = None
        self.numbering: Optional[CitationNumbering] = None
        self._waiting = ""  # answer text that came before the context (not from a retrieval chain)
        self._answered = False  # an answer chunk came (an empty answer is still passed on)
        self._given = False  # an answer chunk went out
        self._as_is = False

    def _feed(self, text: str) -> list[dict[str, Any]]:
        if self.numbering is None:
            valid = [n for n in passage_numbers(self.context or []) if isinstance(n, int) and not isinstance(n, bool)]
            self.numbering = CitationNumbering(valid, drop_invalid=self.drop_invalid)
            text, self._waiting = self._waiting + text, ""
        settled = self.numbering.feed(text)
        self._given = self._given or bool(settled)
        return [{"answer": settled}] if settled else []

    def take(self, chunk: Any) -> list[Any]:
        """The chunks to pass on for ``chunk``."""
        if not isinstance(chunk, dict):
            return [chunk]
        passed = {key: value for key, value in chunk.items() if key not in ("context", "answer")}
        out: list[Any] = [passed] if passed else []
        if "context" in chunk:
            self.context = list(chunk["context"] or [])
        if "answer" not in chunk:
            return out
        answer = chunk["answer"]
        self._answered = True
        if self._as_is or not isinstance(answer, str):
            self._as_is = True
            return out + [{"answer": answer}]
        if self.context is None:
            self._waiting += answer
            return out
        return out + self._feed(answer)

    def close(self) -> list[dict[str, Any]]:
        """The chunks left once the input has ended: the answer's rest, then the context."""
        if self._as_is:
            return [] if self.context is None else [{"context": self.context}]
        out = self._feed("") if self.numbering is None and self._answered else []
        if self.numbering is not None:
            rest = self.numbering.finish()
            if rest or not self._given:
                out.append({"answer": rest})
        if self.context is not None:
            out.append({"context": numbered_as_cited(self.context, self.numbering.numbers if self.numbering else {})})
        return out


def _in_order(chunks: Iterator[Any]) -> Iterator[Any]:
    reader = AnswerInCitationOrder()
    for chunk in chunks:
        yield from reader.take(chunk)
    yield from reader.close()


async def _ain_order(chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
    reader = AnswerInCitationOrder()
    async for chunk in chunks:
        for out in reader.take(chunk):
            yield out
    for out in reader.close():
        yield out


def in_citation_order() -> RunnableGenerator:
    """The step that ends an index's answer chains: their output (``input``, ``answer``,
    ``context``) numbered as cited (see :class:`AnswerInCitationOrder`). Streamed, the
    answer's pieces come as they are produced and the context after them."""
    return RunnableGenerator(_in_order, _ain_order, name="number_citations")
