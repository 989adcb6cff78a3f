"""The ``rag`` command line: the composition root that wires loaders, stores and retrievers.

``rag demo`` runs the whole offline path on the sample documents that ship with the
package: DirectoryLoader -> RecursiveCharacterTextSplitter -> HashingEmbeddings ->
InMemoryVectorStore, saved and loaded back, then a few searches printed with sources and
relevance scores. No network, no API key.
"""

from __future__ import annotations

import sys
import time
from importlib import resources
from pathlib import Path
from typing import Sequence

from loaders import DirectoryLoader
from rag.documents import Document
from rag.embeddings import HashingEmbeddings
from splitters import RecursiveCharacterTextSplitter
from stores import InMemoryVectorStore

__all__ = ["DEMO_QUERIES", "run_demo", "sample_chunks", "samples_folder"]

DEMO_QUERIES = (
    "How is an index saved safely to disk?",
    "Why split documents into overlapping chunks?",
    "What does hybrid search combine?",
)


def samples_folder() -> Path:
    """The folder of sample Markdown files shipped inside the package."""
    return Path(str(resources.files("rag") / "samples"))


def sample_chunks(chunk_size: int = 400, chunk_overlap: int = 60) -> list[Document]:
    """The sample files loaded and split; metadata ``source`` (file), ``title``, ``start_index``."""
    documents = DirectoryLoader(str(samples_folder()), glob="*.md").load()
    for document in documents:
        document.metadata["source"] = Path(document.metadata["source"]).name
    splitter = RecursiveCharacterTextSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=True)
    return splitter.split_documents(documents)


def run_demo(index: Path, queries: Sequence[str], k: int, out=sys.stdout) -> None:
    began = time.perf_counter()
    embeddings = HashingEmbeddings()
    chunks = sample_chunks()
    store = InMemoryVectorStore(embeddings)
    store.add_documents(chunks, ids=[f"{c.metadata['source']}:{c.metadata['start_index']}" for c in chunks])
    store.dump(index)
    reloaded = InMemoryVectorStore.load(index, embeddings)
    print(f"Indexed {len(chunks)} chunks of the sample documents into {index} "
          f"({embeddings.model_id}) in {time.perf_counter() - began:.2f} s", file=out)
    for query in queries:
        print(f"\n? {query}", file=out)
        for document, relevance in reloaded.similarity_search_with_relevance_scores(query, k=k):
            text = " ".join(document.page_content.split())
            snippet = text[:90] + ("..." if len(text) > 90 else "")
            print(f"  {relevance:.3f}  {document.metadata['source']}: {snippet}", file=out)
