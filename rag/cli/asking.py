"""``rag ask``: the retrieval chain over an index, offline unless a model is named."""

from __future__ import annotations

import json
import sys
from typing import IO, Any, Optional

from rag.chains import ExtractiveAnswerer, create_retrieval_chain, create_stuff_documents_chain
from rag.documents import Document
from rag.prompts import ChatPromptTemplate, PromptTemplate
from rag.retrievers import BaseRetriever

from rag.cli.output import snippet
from rag.cli.searching import search
from rag.cli.workspace import Workspace

__all__ = ["IndexRetriever", "build_chain", "ask"]

SYSTEM_PROMPT = (
    "Answer the question using only the numbered passages below. Cite the passages you use "
    "as [n]. If the passages do not contain the answer, say so.\n\n{context}"
)


class IndexRetriever(BaseRetriever):
    """Retrieves from a command-line index (hybrid by default) and numbers the results:
    ``metadata["n"]`` is each chunk's 1-based rank, which citations ``[n]`` refer to."""

    def __init__(self, workspace: Workspace, *, k: int = 4, search_type: str = "hybrid") -> None:
        self.workspace, self.k, self.search_type = workspace, k, search_type

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        found = search(self.workspace, query, k=self.k, search_type=self.search_type)
        for rank, (document, _) in enumerate(found, start=1):
            document.metadata["n"] = rank
        return [document for document, _ in found]


def build_chain(workspace: Workspace, *, k: int, model: Optional[str], base_url: Optional[str]) -> Any:
    """The retrieval chain: a remote model only when ``model`` is named, else the offline
    extractive answerer (nothing leaves the machine)."""
    retriever = IndexRetriever(workspace, k=k)
    if model is None:
        # Sentences are scored with the index's own model (MiniLM by default), not hashing.
        return create_retrieval_chain(retriever, ExtractiveAnswerer(embeddings=workspace.embeddings))
    from rag.models import ChatOpenAI

    llm = ChatOpenAI(model=model, base_url=base_url)
    prompt = ChatPromptTemplate.from_messages([("system", SYSTEM_PROMPT), ("human", "{input}")])
    combine = create_stuff_documents_chain(llm, prompt, document_prompt=PromptTemplate.from_template("[{n}] {page_content}"))
    return create_retrieval_chain(retriever, combine)


def _sources(context: list[Document]) -> list[dict[str, Any]]:
    return [
        {"n": d.metadata.get("n", rank), "title": d.metadata.get("title") or "", "source": d.metadata.get("source"),
         "id": d.id, "excerpt": snippet(d.page_content, 160)}
        for rank, d in enumerate(context, start=1)
    ]


def ask(chain: Any, question: str, *, stream: bool = False, as_json: bool = False, config: Optional[dict] = None,
        out: Optional[IO[str]] = None) -> dict[str, Any]:
    """Run the chain; print the answer (streamed if asked) and the numbered sources."""
    out = out if out is not None else sys.stdout
    if stream and not as_json:
        context: list[Document] = []
        answer = ""
        for chunk in chain.stream({"input": question}, config):
            if "context" in chunk:
                context = chunk["context"]
            if "answer" in chunk:
                answer += chunk["answer"]
                out.write(chunk["answer"])
                out.flush()
        out.write("\n")
        result = {"input": question, "context": context, "answer": answer}
    else:
        result = chain.invoke({"input": question}, config)
    sources = _sources(result["context"])
    if as_json:
        print(json.dumps({"question": question, "answer": result["answer"], "sources": sources}, indent=2,
                         ensure_ascii=False), file=out)
        return result
    if not stream:
        print(result["answer"], file=out)
    if sources:
        print("\nSources:", file=out)
        for source in sources:
            title = f"{source['title']} — " if source["title"] else ""
            print(f"  [{source['n']}] {title}{source['source']}", file=out)
    return result
