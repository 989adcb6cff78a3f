"""What the command line prints: summaries, ranked results, index facts (text or JSON)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import IO, Any, Optional, Sequence

from rag.documents import Document

__all__ = ["print_summary", "print_results", "print_info", "snippet"]


def snippet(text: str, width: int = 100) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _out(stream: Optional[IO[str]]) -> IO[str]:
    return stream if stream is not None else sys.stdout


def print_summary(summary: Any, index: Path, *, as_json: bool = False, stream: Optional[IO[str]] = None) -> None:
    out = _out(stream)
    if as_json:
        print(json.dumps({"index": str(index), **summary.to_json()}, indent=2), file=out)
        return
    print(
        f"Indexed into {index} with {summary.embedding_spec} embeddings in {summary.seconds:.2f} s: "
        f"{summary.documents} documents read, {summary.chunks} chunks embedded, {summary.total_chunks} chunks in the index.",
        file=out,
    )
    print(f"Sources: {summary.added} added, {summary.updated} updated, {summary.skipped} unchanged (skipped), "
          f"{summary.deleted} deleted.", file=out)
    if summary.failed:
        print(f"{len(summary.failed)} source(s) failed and were left as they were:", file=out)
        for source, reason in summary.failed:
            print(f"  {source}: {reason}", file=out)
    if summary.binary_skipped:
        print(f"{len(summary.binary_skipped)} file(s) skipped: " + ", ".join(s for s, _ in summary.binary_skipped[:5]), file=out)


def print_results(
    results: Sequence[tuple[Document, float]], *, as_json: bool = False, score_name: str = "relevance",
    stream: Optional[IO[str]] = None,
) -> None:
    out = _out(stream)
    if as_json:
        rows = [
            {"rank": rank, score_name: round(score, 6), "source": d.metadata.get("source"), "id": d.id,
             "page_content": d.page_content, "metadata": d.metadata}
            for rank, (d, score) in enumerate(results, start=1)
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False, default=str), file=out)
        return
    if not results:
        print("No matching chunks.", file=out)
        return
    for rank, (document, score) in enumerate(results, start=1):
        title = document.metadata.get("title")
        where = document.metadata.get("source", "?")
        print(f"{rank}. [{score_name} {score:.3f}] {where}" + (f"  ({title})" if title else ""), file=out)
        print(f"   {snippet(document.page_content)}", file=out)


def _human_bytes(count: int) -> str:
    size = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{count} B"


def print_info(workspace: Any, *, as_json: bool = False, stream: Optional[IO[str]] = None) -> None:
    out = _out(stream)
    from rag.embeddings.base import model_id_of

    facts = {
        "index": str(workspace.path),
        "embeddings": workspace.embedding_spec,
        "model_id": model_id_of(workspace.embeddings),
        "dimension": workspace.store.dimension,
        "store": type(workspace.store).__name__,
        "sources": len(workspace.record),
        "chunks": workspace.chunk_count,
        "bm25": workspace.bm25 is not None,
        "chunk_size": workspace.settings.get("chunk_size"),
        "chunk_overlap": workspace.settings.get("chunk_overlap"),
        "size_on_disk_bytes": workspace.size_on_disk(),
        "roots": sorted({record.root for record in workspace.record.values()}),
    }
    if as_json:
        print(json.dumps(facts, indent=2), file=out)
        return
    print(f"Index      {facts['index']}", file=out)
    print(f"Embeddings {facts['embeddings']} ({facts['model_id']}, {facts['dimension']} dimensions)", file=out)
    print(f"Store      {facts['store']} + BM25" if facts["bm25"] else f"Store      {facts['store']}", file=out)
    print(f"Contents   {facts['sources']} sources, {facts['chunks']} chunks "
          f"(chunk size {facts['chunk_size']}, overlap {facts['chunk_overlap']})", file=out)
    print(f"On disk    {_human_bytes(facts['size_on_disk_bytes'])}", file=out)
    for root in facts["roots"]:
        print(f"Root       {root}", file=out)
