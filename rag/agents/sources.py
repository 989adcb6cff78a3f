"""Numbered sources for agentic RAG: a retriever tool whose passages carry numbers ``[n]``
that stay unique across every search the agent makes, and the passages an answer cites.

An agent may search several times; numbering each search's results from 1 would give two
passages the number [1]. :class:`NumberedSources` numbers passages in order of first
retrieval: a passage found again keeps its number, a new one gets the next.

>>> from stores import InMemoryVectorStore
>>> from rag.embeddings import HashingEmbeddings
>>> store = InMemoryVectorStore.from_texts(["Cats purr.", "Dogs bark."], HashingEmbeddings(dim=64))
>>> sources = NumberedSources()
>>> search = sources.retriever_tool(store.as_retriever(search_kwargs={"k": 1}), "pets", "Search pet facts.")
>>> search.invoke({"query": "dogs bark"}), search.invoke({"query": "cats purr"}), search.invoke({"query": "dogs"})
('[1] Dogs bark.', '[2] Cats purr.', '[1] Dogs bark.')
>>> [d.page_content for d in sources.cited("Dogs bark [1].")]
['Dogs bark.']
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import replace
from typing import Optional, Sequence

from rag.chains.citations import cited_numbers
from rag.chains.formatting import DEFAULT_DOCUMENT_SEPARATOR, DocumentPrompt
from rag.documents import Document
from rag.errors import InvalidTypeError
from rag.messages import BaseMessage, ToolMessage
from rag.runnables import Runnable, RunnableLambda
from rag.tools import Tool, create_retriever_tool

__all__ = ["NumberedSources", "CITE_SOURCES_PROMPT", "NUMBERED_DOCUMENT_PROMPT"]

#: A system prompt for an agent answering from a numbered-sources retriever tool.
CITE_SOURCES_PROMPT = (
    "Search the documents with your tools before answering. Answer only from the numbered "
    "passages the tools return; after each sentence, cite the passage(s) it comes from as [n], "
    "using only numbers the tools showed. If the passages do not contain the answer, say so."
)
#: How each passage reaches the model: its number, then its text.
NUMBERED_DOCUMENT_PROMPT = "[{n}] {page_content}"


def _key(document: Document) -> str:
    if document.id:
        return f"id:{document.id}"
    text = f"{document.metadata.get('source', '')}\0{document.page_content}"
    return "text:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class NumberedSources:
    """Passages numbered 1, 2, ... in order of first retrieval; thread-safe. Use one per
    agent run or conversation (the numbers of a conversation are stable within it).

    ``documents`` lists the numbered passages (each a copy with ``metadata["n"]``).
    """

    def __init__(self) -> None:
        self.documents: list[Document] = []
        self._numbers: dict[str, int] = {}
        self._lock = threading.Lock()

    def number(self, documents: Sequence[Document]) -> list[Document]:
        """Copies of ``documents`` with ``metadata["n"]``: the number each passage got when
        first seen here (new passages get the next numbers, in the order given)."""
        numbered = []
        with self._lock:
            for document in documents:
                if not isinstance(document, Document):
                    raise InvalidTypeError(f"NumberedSources.number needs Documents, got {type(document).__name__}")
                key = _key(document)
                if key not in self._numbers:
                    self._numbers[key] = len(self.documents) + 1
                    self.documents.append(replace(document, metadata={**document.metadata, "n": len(self.documents) + 1}))
                numbered.append(self.documents[self._numbers[key] - 1])
        return numbered

    def retriever_tool(self, retriever: Runnable, name: str, description: str, *,
                       document_prompt: DocumentPrompt = NUMBERED_DOCUMENT_PROMPT,
                       document_separator: str = DEFAULT_DOCUMENT_SEPARATOR) -> Tool:
        """:func:`~rag.tools.create_retriever_tool` over ``retriever`` whose passages are
        numbered here: the model reads ``"[n] text"`` (``document_prompt``; ``{n}`` and any
        metadata key may appear) and the ToolMessage's ``artifact`` holds the Documents."""
        numbered = retriever | RunnableLambda(self.number, name="number_sources")
        return create_retriever_tool(numbered, name, description, document_prompt=document_prompt,
                                     document_separator=document_separator, response_format="content_and_artifact")

    def get(self, n: int) -> Optional[Document]:
        """The passage numbered ``n``, or None."""
        with self._lock:
            return self.documents[n - 1] if isinstance(n, int) and 1 <= n <= len(self.documents) else None

    def cited(self, answer: str) -> list[Document]:
        """The passages ``answer`` cites as ``[n]``, in order of first citation; numbers that
        name no passage are left out (see :meth:`invalid_citations`)."""
        return [document for n in cited_numbers(answer) if (document := self.get(n)) is not None]

    def invalid_citations(self, answer: str) -> list[int]:
        """Numbers ``answer`` cites that name no passage (an invented citation)."""
        return [n for n in cited_numbers(answer) if self.get(n) is None]

    @classmethod
    def from_messages(cls, messages: Sequence[BaseMessage]) -> "NumberedSources":
        """The numbering a conversation used, rebuilt from its ToolMessages' artifacts (for
        a thread resumed from a checkpoint in another process)."""
        sources = cls()
        found: dict[int, Document] = {}
        for message in messages:
            if isinstance(message, ToolMessage) and isinstance(message.artifact, list):
                for document in message.artifact:
                    if isinstance(document, Document) and isinstance(document.metadata.get("n"), int):
                        found.setdefault(document.metadata["n"], document)
        for n in sorted(found):
            if n != len(sources.documents) + 1:
                break  # a gap: the numbering is not this helper's; keep what is consistent
            sources._numbers[_key(found[n])] = n
            sources.documents.append(found[n])
        return sources

    def __len__(self) -> int:
        return len(self.documents)

    def __repr__(self) -> str:
        return f"NumberedSources({len(self.documents)} passages)"

