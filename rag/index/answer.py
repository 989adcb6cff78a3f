"""Answering from an index: its retriever (numbering the passages it returns), the
retrieval chain (offline extractive, or a chat model), and the answer with its sources."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Optional

from rag.chains import ExtractiveAnswerer, create_retrieval_chain, create_stuff_documents_chain
from rag.documents import Document
from rag.prompts import ChatPromptTemplate, PromptTemplate
from rag.retrievers import BaseRetriever
from rag.search_types import INDEX_SEARCH_TYPES

__all__ = ["IndexRetriever", "Answer", "Source", "answer_chain", "SYSTEM_PROMPT"]

SYSTEM_PROMPT = (
    "Answer the question using only the numbered passages below. Cite the passages you use "
    "as [n]. If the passages do not contain the answer, say so.\n\n{context}"
)
_EXCERPT = 160  # characters of each source quoted in an answer's list of sources


class IndexRetriever(BaseRetriever):
    """A Runnable from a query to the index's best chunks (``index.search`` with this
    retriever's ``k``, ``search_type`` and ``filter``). Each result's ``metadata["n"]`` is
    its 1-based rank, which the citations ``[n]`` of an answer refer to.

    Works wherever a LangChain retriever does: in chains, in ``create_retriever_tool``,
    and with ``invoke(query, k=2)`` to override ``k`` for one call.
    """

    def __init__(self, index: Any, *, k: int = 4, search_type: str = "hybrid", filter: Any = None,
                 threshold: Optional[float] = None, fetch_k: Optional[int] = None,
                 lambda_mult: Optional[float] = None) -> None:
        from rag.index.config import check_k

        self.index, self.k = index, check_k(k)
        self.search_type = INDEX_SEARCH_TYPES.check(search_type)
        self.filter, self.threshold = filter, threshold
        self.fetch_k, self.lambda_mult = fetch_k, lambda_mult

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        k = kwargs.pop("k", self.k)
        filter = kwargs.pop("filter", self.filter)
        if kwargs:
            from rag.errors import ValidationError

            raise ValidationError(f"unknown search argument(s) {sorted(kwargs)}; expected k or filter")
        found = self.index.search(query, k=k, search_type=self.search_type, filter=filter, threshold=self.threshold,
                                  fetch_k=self.fetch_k, lambda_mult=self.lambda_mult)
        for rank, (document, _) in enumerate(found, start=1):
            document.metadata["n"] = rank
        return [document for document, _ in found]


def _snippet(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


@dataclass
class Source:
    """One numbered passage an answer may cite as ``[n]``."""

    n: int
    title: str
    source: Optional[str]
    id: Optional[str]
    excerpt: str

    @classmethod
    def of(cls, document: Document, rank: int) -> "Source":
        return cls(document.metadata.get("n", rank), document.metadata.get("title") or "",
                   document.metadata.get("source"), document.id, _snippet(document.page_content, _EXCERPT))


@dataclass
class Answer:
    """An answer and the passages it was drawn from (``context``, numbered as cited)."""

    question: str
    answer: str
    context: list[Document] = field(default_factory=list)

    @property
    def sources(self) -> list[Source]:
        return [Source.of(document, rank) for rank, document in enumerate(self.context, start=1)]

    @classmethod
    def from_result(cls, result: dict[str, Any]) -> "Answer":
        """From the output of a retrieval chain (``input``, ``context``, ``answer``)."""
        return cls(result["input"], result["answer"], list(result.get("context") or []))

    def source_texts(self) -> dict[int, tuple[Optional[str], str]]:
        """Citation number -> (source path or URL, the passage text a quote cites)."""
        return {document.metadata.get("n", rank): (document.metadata.get("source"), document.page_content)
                for rank, document in enumerate(self.context, start=1)}

    def to_json(self) -> dict[str, Any]:
        return {"question": self.question, "answer": self.answer, "sources": [asdict(s) for s in self.sources]}


def answer_chain(retriever: IndexRetriever, embeddings: Any, llm: Any = None) -> Any:
    """The retrieval chain ``{"input": question} -> {"input", "context", "answer"}``.

    Without ``llm`` the answer is extracted offline: whole sentences from the passages,
    scored with the index's own ``embeddings``, each cited ``[n]``. With ``llm`` (a chat
    model Runnable, such as ``ChatOpenAI(model=...)``), the numbered passages go to it
    with :data:`SYSTEM_PROMPT`.
    """
    if llm is None:
        return create_retrieval_chain(retriever, ExtractiveAnswerer(embeddings=embeddings))
    prompt = ChatPromptTemplate.from_messages([("system", SYSTEM_PROMPT), ("human", "{input}")])
    combine = create_stuff_documents_chain(llm, prompt, document_prompt=PromptTemplate.from_template("[{n}] {page_content}"))
    return create_retrieval_chain(retriever, combine)
