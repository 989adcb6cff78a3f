"""Incremental updates: load sources, skip the unchanged, chunk and embed the rest, and
work out what was deleted. Planning reads the current state only; applying the plan is
a separate, quick step that the index runs under its write lock."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import numpy as np

from rag.documents import Document
from rag.embeddings.base import embed_texts
from rag.errors import ValidationError
from rag.index.config import IndexConfig
from rag.index.sources import Root, load_root, parse_root
from rag.index.state import IndexState, SourceRecord
from splitters import RecursiveCharacterTextSplitter

__all__ = ["UpdateSummary", "UpdatePlan", "Progress", "plan_update", "apply_plan", "check_rechunking", "EMBED_BATCH"]

#: Texts per embedding call (the embeddings object batches further inside).
EMBED_BATCH = 64

#: ``progress(stage, done, total)``: stage "load" counts roots, "embed" counts chunks.
Progress = Callable[[str, int, int], None]


@dataclass
class UpdateSummary:
    """What an update did. Counts are of sources (files, pages, BEIR documents) except
    ``documents`` (documents loaded), ``chunks`` (chunks embedded) and ``total_chunks``
    (in the index after the update). ``failed`` and ``skipped_files`` are ``(source,
    reason)`` pairs: a failed source is left as it was; a skipped file is not text."""

    documents: int = 0
    chunks: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped_files: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    total_chunks: int = 0
    embeddings: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "documents": self.documents, "chunks": self.chunks, "added": self.added, "updated": self.updated,
            "unchanged": self.unchanged, "deleted": self.deleted, "seconds": round(self.seconds, 3),
            "failed": [{"source": s, "reason": r} for s, r in self.failed],
            "skipped_files": [{"source": s, "reason": r} for s, r in self.skipped_files],
            "total_chunks": self.total_chunks, "embeddings": self.embeddings,
        }


@dataclass
class UpdatePlan:
    """The changes an update will make: per source, its new record, chunks and vectors;
    the sources to delete; and the summary so far."""

    replace: list[tuple[str, SourceRecord, list[Document]]] = field(default_factory=list)
    vectors: Optional[np.ndarray] = None
    delete: list[str] = field(default_factory=list)
    roots_seen: dict[str, str] = field(default_factory=dict)  # unchanged source -> its root now
    summary: UpdateSummary = field(default_factory=UpdateSummary)


def _content_hash(documents: Sequence[Document], chunking: dict[str, Any]) -> str:
    # The chunking settings are part of the hash: changing them re-chunks every document.
    digest = hashlib.sha256(json.dumps(chunking, sort_keys=True).encode())
    for document in documents:
        digest.update(document.page_content.encode("utf-8", "surrogatepass"))
        digest.update(json.dumps(document.metadata, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def _chunk_ids(source: str, count: int) -> list[str]:
    stem = hashlib.sha1(source.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return [f"{stem}-{n:05d}" for n in range(count)]


def parse_roots(sources: Sequence[str], *, crawl: Optional[int], sitemap: bool, beir: bool) -> list[Root]:
    """Every source classified before anything is loaded (a bad one fails the whole call)."""
    if isinstance(sources, (str, Path)):
        raise ValidationError(f"sources must be a list of files, folders or URLs, got the single value {sources!r}")
    if not sources:
        raise ValidationError("an update needs at least one source (a file, a folder or a URL)")
    if crawl is not None and (isinstance(crawl, bool) or not isinstance(crawl, int) or crawl < 0):
        raise ValidationError(f"crawl must be a number of link hops, an integer >= 0, got {crawl!r}")
    roots: dict[str, Root] = {}
    for source in sources:
        root = parse_root(str(source), crawl=crawl, sitemap=sitemap, beir=beir)
        roots.setdefault(root.key, root)  # "docs" and "./docs/" are one root
    return list(roots.values())


def check_rechunking(state: IndexState, roots: Sequence[Root], config: IndexConfig) -> None:
    """New chunk settings re-chunk every source, so an update that changes them must name
    every root the index holds (else some sources would keep chunks of the old size)."""
    if config.chunking == state.config.chunking:
        return
    missing = sorted({record.root for record in state.record.values()} - {root.key for root in roots})
    if missing:
        raise ValidationError(
            f"chunk_size/chunk_overlap {config.chunk_size}/{config.chunk_overlap} differ from the index's "
            f"{state.config.chunk_size}/{state.config.chunk_overlap}, which re-chunks every source: name all of "
            f"the index's roots in this update (missing: {', '.join(missing[:3])}"
            f"{' ...' if len(missing) > 3 else ''}), or build a new index"
        )


def _under(root: Root, source: str, record: SourceRecord) -> bool:
    """Whether ``source`` belongs to ``root``, so that its absence means it was deleted:
    recorded under that root, or (for a folder) a file inside it that no longer exists
    (recorded under another root, e.g. a subfolder named on its own before)."""
    if record.root == root.key:
        return True
    if root.kind != "folder":
        return False
    path = Path(source)
    return path.is_absolute() and path.is_relative_to(root.key) and not path.exists()


def plan_update(
    state: IndexState, roots: Sequence[Root], *, config: IndexConfig, glob: Optional[str],
    exclude: Optional[Path], progress: Optional[Progress] = None,
) -> UpdatePlan:
    """Load every root, compare with ``state.record`` and embed what changed, chunking
    with ``config``. Reads ``state`` only; the caller keeps other writers out (searches
    may run meanwhile)."""
    splitter = RecursiveCharacterTextSplitter(chunk_size=config.chunk_size, chunk_overlap=config.chunk_overlap,
                                              add_start_index=True)
    plan = UpdatePlan(summary=UpdateSummary(embeddings=config.embeddings))
    summary = plan.summary
    seen: set[str] = set()
    unreachable_roots: set[str] = set()
    failed_sources: set[str] = set()
    for done, root in enumerate(roots, 1):
        loaded = load_root(root, glob=glob, exclude=exclude)
        summary.failed.extend(loaded.failed)
        summary.skipped_files.extend(loaded.skipped)
        failed_sources.update(source for source, _ in loaded.failed)
        if loaded.failed and (root.kind in ("crawl", "sitemap", "beir") or not loaded.documents):
            # A failed page (or nested sitemap, or unreadable corpus line) hides sources
            # reachable only through it: what was not seen may still exist, so nothing
            # under this root is deleted.
            unreachable_roots.add(root.key)
        for source, documents in sorted(loaded.documents.items()):
            if source in seen:
                continue  # overlapping roots: a source is indexed once per update
            summary.documents += len(documents)
            seen.add(source)
            content_hash = _content_hash(documents, config.chunking)
            previous = state.record.get(source)
            if previous is not None and previous.content_hash == content_hash:
                summary.unchanged += 1
                plan.roots_seen[source] = root.key
                continue
            chunks = splitter.split_documents(documents)
            ids = _chunk_ids(source, len(chunks))
            for chunk, chunk_id in zip(chunks, ids):
                chunk.id = chunk_id
            title = str(documents[0].metadata.get("title") or "")
            plan.replace.append((source, SourceRecord(root.key, content_hash, ids, title), chunks))
        if progress is not None:
            progress("load", done, len(roots))

    deleted: dict[str, None] = {}  # ordered, each source once however many roots hold it
    for root in roots:
        if root.key in unreachable_roots:
            continue  # not everything could be read: never take that as "the rest was deleted"
        for source, record in state.record.items():
            if source not in seen and source not in failed_sources and _under(root, source, record):
                deleted.setdefault(source, None)
    plan.delete = list(deleted)

    texts = [chunk.page_content for _, _, chunks in plan.replace for chunk in chunks]
    plan.vectors = embed_in_batches(state.embeddings, texts, state.store.dimension, progress)
    return plan


def embed_in_batches(embeddings: Any, texts: list[str], dimension: Optional[int],
                     progress: Optional[Progress] = None) -> np.ndarray:
    """``texts`` embedded :data:`EMBED_BATCH` at a time into one float32 matrix."""
    if not texts:
        return np.empty((0, dimension or 0), dtype=np.float32)
    parts = []
    for start in range(0, len(texts), EMBED_BATCH):
        parts.append(embed_texts(embeddings, texts[start:start + EMBED_BATCH], dimension=dimension))
        dimension = parts[-1].shape[1]
        if progress is not None:
            progress("embed", min(start + EMBED_BATCH, len(texts)), len(texts))
    return np.concatenate(parts)


def apply_plan(state: IndexState, plan: UpdatePlan) -> bool:
    """Change ``state`` as planned (store, record, BM25 rebuilt) and complete the summary;
    True if anything changed. Run under the index's write lock, with no search running."""
    summary = plan.summary
    moved = {source for source, root in plan.roots_seen.items() if state.record[source].root != root}
    offset = 0
    for source, record, chunks in plan.replace:
        old = state.record.get(source)
        if old is not None:
            summary.updated += 1
            stale = sorted(set(old.chunk_ids) - set(record.chunk_ids))
            if stale:
                state.store.delete(stale)
        else:
            summary.added += 1
        if chunks:
            state.store.add_vectors(plan.vectors[offset:offset + len(chunks)], chunks, ids=record.chunk_ids)
        state.record[source] = record
        offset += len(chunks)
        summary.chunks += len(chunks)
    for source, root_key in plan.roots_seen.items():
        state.record[source].root = root_key
    for source in plan.delete:
        old = state.record.pop(source, None)
        if old is not None and old.chunk_ids:
            state.store.delete(old.chunk_ids)
        summary.deleted += 1
    if plan.replace or plan.delete:
        state.bm25 = None
        state.lexical()  # built now, so the first search after the commit does not pay for it
    summary.total_chunks = state.chunk_count
    return bool(plan.replace or plan.delete or moved)
