"""The ``rag`` command line: the composition root that wires loaders, stores and retrievers.

``rag demo`` indexes the sample documents that ship with the package (hashing embeddings,
in-memory store, no network, no API key), saves the index, loads it back and runs a few
searches, printing sources and relevance scores.
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib import resources
from pathlib import Path
from typing import Iterator, Optional, Sequence

from rag.documents import Document
from rag.embeddings import HashingEmbeddings
from stores import InMemoryVectorStore

__all__ = ["main"]

DEMO_QUERIES = (
    "How is an index saved safely to disk?",
    "Why split documents into overlapping chunks?",
    "What does hybrid search combine?",
)


def sample_documents() -> Iterator[Document]:
    """One Document per paragraph of the shipped sample files (``source`` = file name)."""
    folder = resources.files("rag") / "samples"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".md"):
            continue
        text = entry.read_text(encoding="utf-8")
        start = 0
        for paragraph in text.split("\n\n"):
            stripped = paragraph.strip()
            offset = text.index(paragraph, start)
            start = offset + len(paragraph)
            if stripped and not stripped.startswith("#"):
                yield Document(" ".join(stripped.split()), {"source": entry.name, "start_index": offset})


def run_demo(index: Path, queries: Sequence[str], k: int, out=sys.stdout) -> None:
    began = time.perf_counter()
    embeddings = HashingEmbeddings()
    documents = list(sample_documents())
    store = InMemoryVectorStore(embeddings)
    store.add_documents(documents, ids=[f"{d.metadata['source']}:{d.metadata['start_index']}" for d in documents])
    store.dump(index)
    reloaded = InMemoryVectorStore.load(index, embeddings)
    print(f"Indexed {len(documents)} chunks from the sample documents into {index} "
          f"({embeddings.model_id}) in {time.perf_counter() - began:.2f} s", file=out)
    for query in queries:
        print(f"\n? {query}", file=out)
        for document, relevance in reloaded.similarity_search_with_relevance_scores(query, k=k):
            snippet = document.page_content[:90] + ("..." if len(document.page_content) > 90 else "")
            print(f"  {relevance:.3f}  {document.metadata['source']}: {snippet}", file=out)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rag", description="Retrieval-augmented question answering, offline first.")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="index the shipped sample documents and run a few searches")
    demo.add_argument("--index", type=Path, default=Path(".rag/demo"), help="index folder (default .rag/demo)")
    demo.add_argument("--k", type=int, default=2, help="results per query (default 2)")
    demo.add_argument("queries", nargs="*", help="queries to run (default: three sample questions)")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        run_demo(args.index, args.queries or DEMO_QUERIES, args.k)
    return 0


if __name__ == "__main__":
    sys.exit(main())
