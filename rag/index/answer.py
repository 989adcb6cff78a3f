"""Answering from an index: its retriever (numbering the passages it returns), the
retrieval chain (offline extractive, or a chat model), and the answer with its sources."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Callable, Optional, Union

from rag.chains import ExtractiveAnswerer, create_retrieval_chain, create_stuff_documents_chain
from rag.chains.citations import cited_numbers, quoted_units
from rag.documents import Document
from rag.embeddings.base import Embeddings
from rag.index.citation_order import AnswerInCitationOrder, in_citation_order
from rag.index.core import Index
from rag.index.passages import locate_quote, merge_sources, position_at, with_context
from rag.prompts import ChatPromptTemplate, PromptTemplate
from rag.retrievers import BaseRetriever
from rag.runnables import Runnable, RunnableLambda, RunnableParallel, RunnablePassthrough, RunnablePick
from rag.index.request import SearchRequest
from rag.search_types import SearchType

__all__ = ["IndexRetriever", "Answer", "Source", "Citation", "answer_chain", "passages", "SYSTEM_PROMPT"]

SYSTEM_PROMPT = (
    "Answer the question using only the numbered passages below. After each sentence, cite "
    "the passage(s) it comes from as [n], using only the numbers shown; quote the passages' "
    "own words, code and table rows where you can. If the passages do not contain the "
    "answer, say so.\n\n{context}"
)
_EXCERPT = 160  # characters of each source quoted in an answer's list of sources


class IndexRetriever(BaseRetriever):
    """A Runnable from a query to the index's best chunks (``index.search_request`` with
    this retriever's :class:`~rag.index.request.SearchRequest`, filled with each query).
    Each result's ``metadata["n"]`` is its 1-based rank, which an answerer cites as ``[n]``
    (an index's answer chains then number the passages in the order the answer cites them:
    :mod:`rag.index.citation_order`).

    Works wherever a LangChain retriever does: in chains, in ``create_retriever_tool``,
    and with ``invoke(query, k=2)`` (or ``filter=``) to override them for one call.
    Built from ``request`` (its query is ignored), or from the same keywords as
    :meth:`rag.index.Index.search`.
    """

    def __init__(self, index: Index, *, request: Optional[SearchRequest] = None, k: int = 4,
                 search_type: Union[SearchType, str] = "hybrid", filter: Any = None,
                 threshold: Optional[float] = None, fetch_k: Optional[int] = None,
                 lambda_mult: Optional[float] = None) -> None:
        self.index = index
        self.request = request if request is not None else SearchRequest(
            "", k, search_type, filter, threshold, fetch_k, lambda_mult)

    @property
    def k(self) -> int:
        return self.request.k

    @property
    def search_type(self) -> SearchType:
        return self.request.search_type

    @property
    def filter(self) -> Any:
        return self.request.filter

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        k = kwargs.pop("k", self.request.k)
        filter = kwargs.pop("filter", self.request.filter)
        if kwargs:
            from rag.errors import ValidationError

            raise ValidationError(f"unknown search argument(s) {sorted(kwargs)}; expected k or filter")
        found = self.index.search_request(replace(self.request, query=query, k=k, filter=filter))
        for rank, (document, _) in enumerate(found, start=1):
            document.metadata["n"] = rank
        return [document for document, _ in found]


def _number_order(source: "Source") -> tuple[int, int]:
    # A number that is not an int (metadata set by hand) sorts last, in context order.
    return (0, source.n) if isinstance(source.n, int) and not isinstance(source.n, bool) else (1, 0)


def _snippet(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


@dataclass
class Source:
    """One numbered passage an answer may cite as ``[n]``: its ``title``, ``source`` (path
    or URL), chunk ``id``, ``excerpt`` (its first 160 characters), and where it sits in
    its document: ``section`` and ``anchor`` (the nearest heading before it and its HTML
    id, for indexes built with them), ``start``/``end`` (character offsets), ``cited``
    (whether the answer cites it) and ``chunk_ids`` (the overlapping chunks it joins)."""

    n: int
    title: str
    source: Optional[str]
    id: Optional[str]
    excerpt: str
    section: Optional[str] = None
    anchor: Optional[str] = None
    start: Optional[int] = None
    end: Optional[int] = None
    cited: bool = False
    chunk_ids: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, document: Document, rank: int, cited: bool = False) -> "Source":
        metadata = document.metadata
        start = metadata.get("start_index") if isinstance(metadata.get("start_index"), int) else None
        return cls(metadata.get("n", rank), metadata.get("title") or "", metadata.get("source"), document.id,
                   _snippet(document.page_content, _EXCERPT), metadata.get("section"), metadata.get("anchor"),
                   start, None if start is None else start + len(document.page_content), cited,
                   list(metadata.get("chunk_ids") or ([document.id] if document.id else [])))

    @property
    def location(self) -> str:
        """Where to read it: the path or URL with ``#anchor`` when there is one."""
        where = self.source or "?"
        return f"{where}#{self.anchor}" if self.anchor else where


@dataclass
class Citation:
    """One quote of an answer: the ``n`` it cites, the exact ``text`` of the source it
    quotes, and its ``start``/``end`` offsets in the source document (None when the quote
    is not verbatim in the source, as a model's paraphrase may not be), with the
    ``section`` and ``anchor`` in force there; ``mark_start``/``mark_end``: the offsets in
    the answer of its mark (``[n]``, or the digits of ``n`` in a mark such as ``[1, 3]``),
    what a reader clicks to open the quote."""

    n: int
    text: str
    start: Optional[int] = None
    end: Optional[int] = None
    section: Optional[str] = None
    anchor: Optional[str] = None
    mark_start: Optional[int] = None
    mark_end: Optional[int] = None


@dataclass
class Answer:
    """An answer and the passages it was drawn from (``context``, in retrieval order, each
    numbered ``metadata["n"]`` as the answer cites it). Built with :meth:`from_result`,
    citation numbers are consecutive in order of first citation (``[1]``, ``[2]``...; the
    passages not cited are numbered after them). ``invalid_citations``: numbers the
    answer cited that name no passage (removed from ``answer``)."""

    question: str
    answer: str
    context: list[Document] = field(default_factory=list)
    invalid_citations: list[int] = field(default_factory=list)

    def _numbers(self) -> dict[int, Document]:
        return {document.metadata.get("n", rank): document for rank, document in enumerate(self.context, start=1)}

    @property
    def sources(self) -> list[Source]:
        """Every passage, in number order (the cited ones first, as :meth:`from_result`
        numbers them); ``cited`` says which the answer cites. A cited
        passage's ``section`` and ``anchor`` are those in force where its first quote
        begins (a passage may start in the section before the one quoted)."""
        cited = set(cited_numbers(self.answer))
        found = sorted((Source.of(document, rank, document.metadata.get("n", rank) in cited)
                        for rank, document in enumerate(self.context, start=1)), key=_number_order)
        first_quote: dict[int, Citation] = {}
        for citation in self.citations if cited else ():
            if citation.start is not None:
                first_quote.setdefault(citation.n, citation)
        for source in found:
            quote = first_quote.get(source.n)
            if quote is not None and quote.section:
                source.section, source.anchor = quote.section, quote.anchor
        return found

    @property
    def cited_sources(self) -> list[Source]:
        return [source for source in self.sources if source.cited]

    @property
    def also_retrieved(self) -> list[Source]:
        """The passages retrieved that the answer does not cite."""
        return [source for source in self.sources if not source.cited]

    @property
    def citations(self) -> list[Citation]:
        """Each quoted unit of the answer, once per source it cites, in answer order."""
        numbers = self._numbers()
        found: list[Citation] = []
        for quote, cited, marks in quoted_units(self.answer):
            for n, mark in zip(cited, marks):
                document = numbers.get(n)
                if document is None:
                    continue
                span = locate_quote(document.page_content, quote)
                if span is None:
                    found.append(Citation(n, quote, mark_start=mark[0], mark_end=mark[1]))
                    continue
                base = document.metadata.get("start_index")
                base = base if isinstance(base, int) else 0
                position = position_at(document, span[0])
                found.append(Citation(n, document.page_content[span[0]:span[1]], base + span[0], base + span[1],
                                      position.get("section"), position.get("anchor"), *mark))
        return found

    def source_texts(self) -> dict[int, tuple[Optional[str], str]]:
        """Citation number -> (source path or URL, the passage text a quote cites)."""
        return {n: (document.metadata.get("source"), document.page_content) for n, document in self._numbers().items()}

    @classmethod
    def from_result(cls, result: dict[str, Any]) -> "Answer":
        """From the output of a retrieval chain (``input``, ``context``, ``answer``):
        citations to numbers no passage has are removed and listed in ``invalid_citations``,
        and the passages are numbered in the order the answer cites them (see
        :mod:`rag.index.citation_order`; an index's chains already number them so)."""
        reader = AnswerInCitationOrder(drop_invalid=True)
        pieces = reader.take({"context": result.get("context") or [], "answer": result["answer"]}) + reader.close()
        numbered: dict[str, Any] = {}
        for piece in pieces:
            for key, value in piece.items():
                numbered[key] = numbered.get(key, "") + value if key == "answer" else value
        invalid = reader.numbering.invalid if reader.numbering is not None else []
        return cls(result["input"], numbered["answer"], numbered["context"], invalid)

    def to_json(self) -> dict[str, Any]:
        sources = self.sources
        return {"question": self.question, "answer": self.answer,
                "citations": [asdict(c) for c in self.citations],
                "sources": [asdict(s) for s in sources if s.cited],
                "also_retrieved": [asdict(s) for s in sources if not s.cited],
                "invalid_citations": self.invalid_citations}


def passages(retriever: IndexRetriever, *, get_by_ids: Optional[Callable[[list[str]], list[Document]]] = None,
             window: int = 1, openings: int = 2, contents: int = 1, named: int = 1) -> Runnable[str, list[Document]]:
    """A Runnable from a query to the numbered passages an answer reads: ``retriever``'s
    chunks, then the best chunk of each of the ``named`` pages (int >= 0, default 1) the
    query names by their file name (:mod:`rag.index.named_pages`: ``git push`` names
    ``git-push.html``) when none of the chunks comes from it, widened with ``get_by_ids``
    as :func:`rag.index.passages.with_context` says (``window`` around each, the
    ``openings`` best documents' opening chunks, the section the ``contents`` best
    contents lists name for the query; nothing added without ``get_by_ids`` or when all
    are 0), merged by :func:`rag.index.passages.merge_sources`."""
    steps: Runnable[str, list[Document]] = retriever
    if get_by_ids is not None and (window or openings or contents or named):
        from rag.index.named_pages import with_named_pages
        from stores.filters import compile_filter

        keep = compile_filter(retriever.filter) if retriever.filter is not None else None

        def widen(found: dict[str, Any]) -> list[Document]:
            # The question goes along with the chunks: a contents list is followed by its words.
            chunks = with_named_pages(found["question"], found["chunks"], retriever, named, keep)
            return with_context(chunks, get_by_ids, window=window, openings=openings, keep=keep,
                                question=found["question"], contents=contents)

        steps = RunnableParallel(question=RunnablePassthrough(), chunks=retriever) | RunnableLambda(
            widen, name="with_context")
    return steps | RunnableLambda(merge_sources, name="merge_sources")


def answer_chain(retriever: IndexRetriever, embeddings: Embeddings, llm: Optional[Runnable] = None, *,
                 get_by_ids: Optional[Callable[[list[str]], list[Document]]] = None, window: int = 1,
                 openings: int = 2, contents: int = 1, named: int = 1) -> Runnable[dict[str, Any], dict[str, Any]]:
    """The retrieval chain ``{"input": question} -> {"input", "context", "answer"}``.

    With ``get_by_ids`` (the index's), each retrieved chunk is widened by the ``window``
    chunks around it in its document, the ``openings`` best-ranked documents by their
    opening chunks, and the ``contents`` best chunks holding a page's table of contents by
    the section whose entry matches the question (see
    :func:`rag.index.passages.with_context`), and by the best chunk of each of the
    ``named`` pages the question names by file name (:mod:`rag.index.named_pages`);
    ``window=0, openings=0, contents=0, named=0`` answers from the retrieved chunks alone. The chunks are then merged into sources
    (overlapping or adjacent chunks of one document become one, see
    :func:`rag.index.passages.merge_sources`), numbered ``[n]``. Without ``llm`` the answer
    is extracted offline (:class:`~rag.chains.ExtractiveAnswerer`: sentences, code blocks,
    lists and tables, scored with the index's own ``embeddings``, each cited ``[n]``). With
    ``llm`` (a chat model Runnable, such as ``ChatOpenAI(model=...)``), the numbered
    sources go to it with :data:`SYSTEM_PROMPT`. Either way the output is numbered as cited
    (:func:`~rag.index.citation_order.in_citation_order`): ``[1]`` is the first passage the
    answer cites; streamed, the context follows the answer.
    """
    sources = RunnablePick("input") | passages(retriever, get_by_ids=get_by_ids, window=window, openings=openings,
                                                contents=contents, named=named)
    if llm is None:
        return create_retrieval_chain(sources, ExtractiveAnswerer(embeddings=embeddings)) | in_citation_order()
    prompt = ChatPromptTemplate.from_messages([("system", SYSTEM_PROMPT), ("human", "{input}")])
    combine = create_stuff_documents_chain(llm, prompt, document_prompt=PromptTemplate.from_template("[{n}] {page_content}"))
    return create_retrieval_chain(sources, combine) | in_citation_order()
