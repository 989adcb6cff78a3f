"""``rag index``: load, split, embed and store, incrementally, with one atomic save."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from rag.documents import Document
from rag.embeddings.base import embed_texts
from rag.errors import ValidationError
from splitters import RecursiveCharacterTextSplitter

from rag.cli.embedding_spec import check_spec, default_spec
from rag.cli.progress import Progress
from rag.cli.sources import load_root, parse_root
from rag.cli.workspace import STORE_KINDS, SourceRecord, Workspace, writing

__all__ = ["IndexOptions", "IndexSummary", "run_index"]

EMBED_BATCH = 64


@dataclass
class IndexOptions:
    """The options of ``rag index`` (plain data)."""

    index: Path
    crawl: Optional[int] = None
    sitemap: bool = False
    glob: Optional[str] = None
    chunk_size: int = 1000
    chunk_overlap: int = 200
    embeddings: Optional[str] = None
    store: Optional[str] = None


@dataclass
class IndexSummary:
    """What a run did: counts, failures with reasons, and the time it took."""

    documents: int = 0
    chunks: int = 0
    added: int = 0
    updated: int = 0
    skipped: int = 0
    deleted: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    binary_skipped: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    total_chunks: int = 0
    embedding_spec: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "documents": self.documents, "chunks": self.chunks, "added": self.added, "updated": self.updated,
            "skipped": self.skipped, "deleted": self.deleted, "seconds": round(self.seconds, 3),
            "failed": [{"source": s, "reason": r} for s, r in self.failed],
            "total_chunks": self.total_chunks, "embeddings": self.embedding_spec,
        }


def _content_hash(documents: Sequence[Document], settings: dict[str, Any]) -> str:
    # The chunking settings are part of the hash: changing them re-chunks every document.
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    for document in documents:
        digest.update(document.page_content.encode("utf-8", "surrogatepass"))
        digest.update(json.dumps(document.metadata, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def _chunk_ids(source: str, count: int) -> list[str]:
    stem = hashlib.sha1(source.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return [f"{stem}-{n:05d}" for n in range(count)]


def _open_workspace(options: IndexOptions, settings: dict[str, Any]) -> Workspace:
    if options.embeddings is not None:
        check_spec(options.embeddings)
    if options.store is not None and options.store not in STORE_KINDS:
        raise ValidationError(f"--store {options.store!r} is not one of {', '.join(STORE_KINDS)}")
    if Workspace.exists(options.index):
        workspace = Workspace.open(options.index, embedding_spec=options.embeddings)
        built_with = workspace.settings.get("store")
        if options.store is not None and options.store != built_with:
            raise ValidationError(
                f"the index at {options.index} uses --store {built_with}; drop --store, or rebuild with a new --index folder"
            )
        workspace.settings.update({k: v for k, v in settings.items() if k != "store"})
        return workspace
    return Workspace.create(options.index, options.embeddings or default_spec(), options.store or "faiss",
                            {**settings, "store": options.store or "faiss"})


def run_index(sources: Sequence[str], options: IndexOptions) -> IndexSummary:
    """Index ``sources`` into ``options.index``; returns the summary. Validates every
    argument before loading anything, and writes the index once, atomically, at the end,
    holding the index's write lock throughout."""
    with writing(options.index):
        return _run_index(sources, options)


def _run_index(sources: Sequence[str], options: IndexOptions) -> IndexSummary:
    began = time.perf_counter()
    if not sources:
        raise ValidationError("rag index needs at least one SOURCE (a file, a folder or a URL)")
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=options.chunk_size, chunk_overlap=options.chunk_overlap, add_start_index=True
    )
    roots = [parse_root(source, crawl=options.crawl, sitemap=options.sitemap) for source in sources]
    settings = {"chunk_size": options.chunk_size, "chunk_overlap": options.chunk_overlap}
    workspace = _open_workspace(options, settings)
    summary = IndexSummary(embedding_spec=workspace.embedding_spec)

    pending: list[tuple[str, SourceRecord, list[Document]]] = []
    seen: set[str] = set()
    unreachable_roots: set[str] = set()
    failed_sources: set[str] = set()
    with Progress("load", len(roots)) as bar:
        for root in roots:
            loaded = load_root(root, glob=options.glob, exclude=options.index)
            summary.failed.extend(loaded.failed)
            summary.binary_skipped.extend(loaded.skipped)
            failed_sources.update(source for source, _ in loaded.failed)
            if loaded.failed and (root.kind in ("crawl", "sitemap") or not loaded.documents):
                # A failed page (or nested sitemap) hides the pages reachable only through
                # it: what was not seen may still exist, so nothing under this root is deleted.
                unreachable_roots.add(root.key)
            for source, documents in sorted(loaded.documents.items()):
                if source in seen:
                    continue  # overlapping roots: a source is indexed once per run
                summary.documents += len(documents)
                seen.add(source)
                content_hash = _content_hash(documents, settings)
                previous = workspace.record.get(source)
                if previous is not None and previous.content_hash == content_hash:
                    summary.skipped += 1
                    previous.root = root.key
                    continue
                chunks = splitter.split_documents(documents)
                ids = _chunk_ids(source, len(chunks))
                for chunk, chunk_id in zip(chunks, ids):
                    chunk.id = chunk_id
                title = str(documents[0].metadata.get("title") or "")
                pending.append((source, SourceRecord(root.key, content_hash, ids, title), chunks))
            bar.advance()

    texts = [chunk.page_content for _, _, chunks in pending for chunk in chunks]
    vectors = _embed(workspace, texts)
    offset = 0
    for source, record, chunks in pending:
        if source in workspace.record:
            summary.updated += 1
        else:
            summary.added += 1
        workspace.replace_source(source, record, chunks, vectors[offset:offset + len(chunks)])
        offset += len(chunks)
        summary.chunks += len(chunks)

    for root in roots:
        if root.key in unreachable_roots:
            continue  # not everything could be read: never take that as "the rest was deleted"
        for source, record in list(workspace.record.items()):
            if record.root == root.key and source not in seen and source not in failed_sources:
                workspace.remove_source(source)
                summary.deleted += 1

    workspace.save()
    summary.total_chunks = workspace.chunk_count
    summary.seconds = time.perf_counter() - began
    return summary


def _embed(workspace: Workspace, texts: list[str]) -> np.ndarray:
    dimension = workspace.store.dimension
    if not texts:
        return np.empty((0, dimension or 0), dtype=np.float32)
    parts = []
    with Progress("embed", len(texts)) as bar:
        for start in range(0, len(texts), EMBED_BATCH):
            batch = texts[start:start + EMBED_BATCH]
            parts.append(embed_texts(workspace.embeddings, batch, dimension=dimension))
            dimension = parts[-1].shape[1]
            bar.advance(len(batch))
    return np.concatenate(parts)
