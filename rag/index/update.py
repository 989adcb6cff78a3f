"""Incremental updates: load sources, skip the unchanged, chunk and embed the rest, and
work out what was deleted. Planning reads the current state only; applying the plan is
a separate, quick step that the index runs under its write lock."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from loaders import DirectoryLoader
from rag.documents import Document
from rag.errors import ValidationError
from rag.index.backend import IndexBackend
from rag.index.chunk_ids import chunk_ids, stored_id
from rag.index.config import IndexConfig
from rag.index.embed_ahead import EmbedAhead, serialized, text_digest
from rag.index.segments import Batch
from rag.index.summary import UpdateSummary, timed
from rag.index.site_pages import SitePlan, plan_folder, structured_source
from rag.index.sources import SAME_SECOND, LastRead, Root, SourceItem, folder_selection, iter_root, parse_root
from rag.index.state import IndexState, SourceRecord
from rag.index.workers import Embedder, InlineEmbedder
from splitters import RecursiveCharacterTextSplitter

__all__ = ["UpdateSummary", "Updater", "Progress", "check_rechunking", "parse_roots"]

#: Chunks embedded (and committed) first, to measure the model's rate.
_FIRST_BATCH = 64

#: ``progress(stage, done, total)``: stage "load" counts a folder's files, "embed" counts
#: chunks (``total``: the chunks found so far, final once loading is done).
Progress = Callable[[str, int, int], None]


def _content_hash(documents: Sequence[Document], chunking: dict[str, Any]) -> str:
    # The chunking settings are part of the hash: changing them re-chunks every document.
    digest = hashlib.sha256(json.dumps(chunking, sort_keys=True).encode())
    for document in documents:
        digest.update(document.page_content.encode("utf-8", "surrogatepass"))
        digest.update(json.dumps(document.metadata, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def parse_roots(sources: Sequence[Union[str, Path]], *, crawl: Optional[int], sitemap: bool, beir: bool) -> list[Root]:
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


def check_rechunking(state: IndexBackend, roots: Sequence[Root], config: IndexConfig) -> None:
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


class Updater:
    """One update, streamed: sources are read one at a time, split, and embedded in
    batches; every ``checkpoint_chunks`` new chunks (default 512) or ``checkpoint_seconds``
    (default 5: with a local model, a few hundred chunks) the work so far is handed to ``commit(batch, final=False)``, and the
    deletions and the last batch to ``commit(batch, final=True)``. Memory holds one file's
    documents and one batch of chunks, whatever the corpus size (and, to find boilerplate,
    pages' block keys and some pages: :mod:`rag.index.site_pages`).

    A chunk whose text is already stored keeps its vector (embeddings are cached by chunk
    text; an index has one model): with the same id (same position in its source) it is
    not written again; elsewhere (another position, a renamed file) its vector is reused.
    """

    def __init__(self, state: IndexBackend, config: IndexConfig, commit: Callable[[Batch, bool], None], *,
                 glob: Optional[str] = None, excludes: Sequence[str] = (), index_folder: Optional[Path] = None,
                 progress: Optional[Progress] = None,
                 checkpoint_chunks: int = 512, checkpoint_seconds: float = 5.0,
                 embedder: Optional[Embedder] = None) -> None:
        #: Where the index lives: read for what it holds; written only through ``commit``.
        self.state, self.config, self.commit = state, config, commit
        #: Where chunks are embedded (:mod:`rag.index.workers`; default: in this process).
        self.embedder = embedder if embedder is not None else InlineEmbedder(state.embeddings)
        self.glob, self.excludes, self.index_folder = glob, tuple(excludes), index_folder
        self.progress = serialized(progress)  # reported from two threads (see rag.index.embed_ahead)
        self.checkpoint_chunks, self.checkpoint_seconds = checkpoint_chunks, checkpoint_seconds
        self.splitter = RecursiveCharacterTextSplitter(chunk_size=config.chunk_size,
                                                       chunk_overlap=config.chunk_overlap, add_start_index=True)
        self.summary = UpdateSummary(embeddings=config.embeddings)
        self.started = time.time()
        self._batch = Batch()
        self._to_embed: list[int] = []  # rows of the batch that still need a vector
        self._vectors: dict[int, np.ndarray] = {}  # rows whose vector was reused
        self._last_commit = time.monotonic()
        self._by_text: Optional[dict[bytes, str]] = None  # digest of a chunk text -> a stored id
        self._rechunk = config.chunking != state.config.chunking
        self._ahead: Optional[EmbedAhead] = None  # the model's thread, while run() runs
        self._upcoming = 0  # chunks of the file being queued that are not queued yet (for progress)
        # Each root's boilerplate (rag.index.site_pages); a folder's is found only when one
        # of its pages must be read, and None until then.
        self._plans: dict[str, Optional[SitePlan]] = {}

    def run(self, roots: Sequence[Root]) -> UpdateSummary:
        self._ahead = EmbedAhead(self.embedder, self.commit, self._committed, lambda: self.state.dimension,
                                 self.progress, clock=lambda: time.monotonic())
        self.summary.phases.update(read=0.0, split=0.0)
        try:
            self._run(roots)
        except BaseException:
            self._ahead.close(failed=True)  # what was handed over is still committed
            raise
        self._ahead.close()
        self.summary.phases.update(self._ahead.phases)
        return self.summary

    def _run(self, roots: Sequence[Root]) -> None:
        seen: set[str] = set()
        unreachable: set[str] = set()
        failed: set[str] = set()
        for root in roots:
            any_document = False
            root_failed = False
            any_source = False
            began = time.monotonic()  # a folder's boilerplate plan reads its pages first: "read" too
            items = iter_root(root, glob=self.glob, excludes=self.excludes, index_folder=self.index_folder,
                              previous=self._previous_for(root), progress=self.progress)
            if root.kind in ("page", "crawl", "sitemap"):  # loaded whole: boilerplate over all its pages
                items = list(items)  # type: ignore[assignment]
                self._plans[root.key] = SitePlan.of_documents(d for item in items for d in item.documents or [])
            self.summary.phases["read"] += time.monotonic() - began
            for item in timed(items, self.summary.phases, "read"):
                plan = self._plans.get(root.key)
                kept = plan.take(item.source) if plan is not None else None
                if item.documents is None and kept is not None:
                    item = replace(item, documents=kept)  # read once, by the plan's pass
                any_source = any_source or item.skipped is None
                if item.failed is not None:
                    self.summary.failed.append((item.source, item.failed))
                    failed.add(item.source)
                    root_failed = True
                elif item.skipped is not None:
                    self.summary.skipped_files.append((item.source, item.skipped))
                elif item.source not in seen:  # overlapping roots: a source is indexed once per update
                    seen.add(item.source)
                    any_document = True
                    self._timed_source(root, item)
                if self._ahead is not None:
                    self._ahead.poll()  # a checkpoint whose vectors are ready is written now
            if not any_source:
                self.summary.empty_roots.append(root.key)
            if root_failed and (root.kind in ("crawl", "sitemap", "beir") or not any_document):
                # A failed page (or nested sitemap, or unreadable corpus line) hides sources
                # reachable only through it: what was not seen may still exist, so nothing
                # under this root is deleted.
                unreachable.add(root.key)
        deleted: dict[str, None] = {}  # ordered, each source once however many roots hold it
        for root in roots:
            if root.key in unreachable:
                continue  # not everything could be read: never take that as "the rest was deleted"
            for source, record in self.state.record.items():
                if source not in seen and source not in failed and _under(root, source, record):
                    deleted.setdefault(source, None)
        for source in deleted:
            self._batch.record_removed.append(source)
            self._batch.removed_chunks.extend(self.state.held_chunk_ids(source, self.state.record[source]))
            self.summary.deleted += 1
        self._flush(final=True)
        self.summary.total_chunks = self.state.chunk_count

    def _timed_source(self, root: Root, item: SourceItem) -> None:
        """:meth:`_source`, its time counted as splitting except what went to waiting for
        the model and committing (counted by :class:`EmbedAhead`)."""
        assert self._ahead is not None
        began, elsewhere = time.monotonic(), self._ahead.phases["wait"] + self._ahead.phases["commit"]
        self._source(root, item)
        elsewhere = self._ahead.phases["wait"] + self._ahead.phases["commit"] - elsewhere
        self.summary.phases["split"] += time.monotonic() - began - elsewhere

    def _previous_for(self, root: Root) -> Callable[[str], Optional[LastRead]]:
        """The last read of each source of ``root`` that may be skipped: as
        :meth:`_previous_read`, except that a page whose boilerplate changes with the
        set of pages (its expected hash differs from its record's) is read again."""
        plan = self._folder_plan(root) if root.kind == "folder" else None
        if plan is None:
            return self._previous_read
        return lambda source: plan.last_read(source, self.state.record.get(source), self._previous_read)

    def _folder_plan(self, root: Root, *, force: bool = False) -> Optional[SitePlan]:
        """A folder's plan (None: no page needs reading); ``force`` finds it anyway."""
        if root.key not in self._plans or (force and self._plans[root.key] is None):
            self._plans[root.key] = plan_folder(
                root.key, folder_selection(root, self.glob, self.excludes, self.index_folder).files, self.state.record,
                rechunk=self._rechunk or force, load=DirectoryLoader(root.key, silent_errors=True).load_path,
                raw_hash=lambda documents: _content_hash(documents, self.config.chunking))
        return self._plans[root.key]

    def _plan(self, root: Root) -> SitePlan:
        """The boilerplate of ``root``'s sites (found now if a page is read unforeseen)."""
        plan = self._folder_plan(root, force=True) if root.kind == "folder" else self._plans.get(root.key)
        return plan or SitePlan()

    def _previous_read(self, source: str) -> Optional[LastRead]:
        record = self.state.record.get(source)
        if record is None or self._rechunk:
            return None  # new chunk settings: every file must be read (its hash includes them)
        return record.last_read

    def _source(self, root: Root, item: SourceItem) -> None:
        previous = self.state.record.get(item.source)
        if item.documents is None:  # not read: unchanged since the last read
            self.summary.unchanged += 1
            if previous is not None and previous.root != root.key:
                self._set_record(item.source, replace(previous, root=root.key))
            return
        documents = item.documents
        self.summary.documents += len(documents)
        content_hash, page = _content_hash(documents, self.config.chunking), None
        if structured_source(item.source) and root.kind != "beir":
            # Without its site's boilerplate; the hash covers what was removed.
            documents, content_hash = self._plan(root).prepare(item.source, documents, content_hash)
            page = self._plan(root).profile(item.source)  # a folder's page: its record keeps its block keys
        if previous is not None and previous.content_hash == content_hash:
            self.summary.unchanged += 1
            # A new root or stat, or a last read too close to the file's mtime to trust
            # (see SAME_SECOND): record this read, so the next run need not read it.
            recent = item.stat is not None and (previous.read_at is None or
                                                item.stat[1] >= (previous.read_at - SAME_SECOND) * 1e9)
            if (previous.root, previous.stat, previous.plan) != (root.key, item.stat, page or previous.plan) or recent:
                self._set_record(item.source, replace(previous, root=root.key, stat=item.stat, read_at=self.started,
                                                      plan=page or previous.plan))
            return
        chunks: list[Optional[Document]] = list(self.splitter.split_documents(documents))
        ids = chunk_ids(item.source, len(chunks))
        title = str(documents[0].metadata.get("title") or "")
        record = SourceRecord(root.key, content_hash, ids, title, item.stat, self.started if item.stat else None, page)
        old_ids = self.state.held_chunk_ids(item.source, previous) if previous is not None else []
        self._queue_in_slices(root, item.source, title, ids, chunks, old_ids)
        self._batch.removed_chunks.extend(sorted(set(old_ids) - set(ids)))
        self._set_record(item.source, record)
        if previous is None:
            self.summary.added += 1
        else:
            self.summary.updated += 1
        if self._checkpoint_due():
            self._flush(final=False)

    def _queue_in_slices(self, root: Root, source: str, title: str, ids: list[str], chunks: list[Optional[Document]],
                         old_ids: list[str]) -> None:
        """Queue one source's chunks a slice at a time, committing a checkpoint whenever
        one is due, so that a large file (a 50 MB text is 60,000 chunks) is checkpointed
        as it is embedded and memory holds one batch of its chunks and vectors, not all.

        A checkpoint inside a file commits a *partial* record of it: the new chunks so
        far plus the old chunks not yet replaced (ids are positions, so the first new
        ones replace the first old ones), with no content hash or stat. Every stored
        chunk thus belongs to a record (searches see the file as far as it was embedded),
        the next update reads the file again, and a chunk already committed with the same
        text is not embedded again: an interrupted large file resumes where it stopped.
        Measured (``benchmarks/large_file_memory.py``, a 50 MB text, hashing embeddings):
        peak RSS 1,317 MB in one commit before, 206 MB in 137 checkpoints after."""
        old_set = set(old_ids)
        for start in range(0, len(chunks), _FIRST_BATCH):
            end = min(start + _FIRST_BATCH, len(chunks))
            piece = [chunk for chunk in chunks[start:end] if chunk is not None]
            self._queue_chunks(ids[start:end], piece, [i for i in ids[start:end] if i in old_set])
            self._upcoming = len(chunks) - end
            chunks[start:end] = [None] * (end - start)  # queued (texts kept by the batch): let the rest go
            if end < len(chunks) and self._checkpoint_due():
                done = set(ids[:end])
                self._set_record(source, SourceRecord(root.key, "", ids[:end] + [i for i in old_ids if i not in done],
                                                      title))
                self._flush(final=False)

    def _checkpoint_due(self) -> bool:
        """A full batch, or enough work pending that loading it plus embedding it (at the
        rate the last batches ran) reaches ``checkpoint_seconds``: embedding dominates with
        a real model, so time is judged before it is spent, not after."""
        pending = len(self._to_embed)
        if pending >= self.checkpoint_chunks:
            return True
        if self.checkpoint_seconds == float("inf"):
            return False  # checkpoints by count only
        ahead = self._ahead
        if ahead is not None and ahead.seconds_per_chunk is None and ahead.busy:
            ahead.drain()  # the first checkpoint's rate sizes the next: wait for it once
        rate = ahead.seconds_per_chunk if ahead is not None else None
        if rate is None:
            return pending >= _FIRST_BATCH  # a small first batch measures the model's rate
        embedding = pending * rate
        return time.monotonic() - self._last_commit + embedding >= self.checkpoint_seconds

    def _queue_chunks(self, ids: list[str], chunks: list[Document], old_ids: list[str]) -> None:
        old = {d.id: d for d in self.state.store.get_by_ids(old_ids)} if old_ids else {}
        by_text = self._stored_texts()

        def stored(n: int) -> bool:  # the same text and metadata under the same id
            previous = old.get(ids[n])
            return previous is not None and (previous.page_content, previous.metadata) == \
                (chunks[n].page_content, chunks[n].metadata)

        keys = [text_digest(c.page_content) for c in chunks]
        wanted = {n: by_text[keys[n]] for n in range(len(chunks)) if keys[n] in by_text and not stored(n)}
        vectors = self._stored_vectors(set(wanted.values()))
        # Reused only where the stored chunk still has that text (checked by id, not position).
        reused = {n: vectors[old_id][1] for n, old_id in wanted.items()
                  if old_id in vectors and vectors[old_id][0] == chunks[n].page_content}
        for n, (chunk_id, chunk) in enumerate(zip(ids, chunks)):
            if stored(n):
                continue
            row = len(self._batch.ids)
            self._batch.ids.append(chunk_id)
            self._batch.texts.append(chunk.page_content)
            self._batch.metadatas.append(chunk.metadata)
            if n in reused:
                self._vectors[row] = reused[n]
            else:
                self._to_embed.append(row)
            self.summary.chunks += 1

    def _stored_vectors(self, ids: set[str]) -> dict[str, tuple[str, np.ndarray]]:
        """id -> (stored text, stored vector) of those ``ids`` the store holds now."""
        if not ids:
            return {}
        present = self.state.store.get_by_ids(sorted(ids))
        present_ids = [stored_id(d) for d in present]
        vectors = self.state.store.get_vectors_by_ids(present_ids)
        return {chunk_id: (d.page_content, vectors[row]) for row, (chunk_id, d) in enumerate(zip(present_ids, present))}

    def _stored_texts(self) -> dict[bytes, str]:
        """Digest of a chunk text -> id of a stored chunk with that text (a renamed or
        copied file reuses its vectors), built once per update, on first need. Chunks
        committed by this update's checkpoints are not in it: they are new texts."""
        if self._by_text is None:
            ids = [chunk_id for record in self.state.record.values() for chunk_id in record.chunk_ids]
            # An empty index has no texts: reading its (empty) store would make every
            # commit of this update go to memory too, instead of streaming to disk.
            self._by_text = {text_digest(d.page_content): stored_id(d) for d in self.state.store.get_by_ids(ids)} \
                if ids else {}
        return self._by_text

    def _set_record(self, source: str, record: SourceRecord) -> None:
        self._batch.record_set[source] = record.to_json()

    def _flush(self, *, final: bool) -> None:
        assert self._ahead is not None
        self._ahead.put(self._batch, self._to_embed, self._vectors, final=final, upcoming=self._upcoming)
        self._batch, self._to_embed, self._vectors = Batch(), [], {}
        self._last_commit = time.monotonic()

    def _committed(self, batch: Batch) -> None:
        if self._by_text is not None and (batch.ids or batch.removed_chunks):
            # Ids rewritten or removed by this commit no longer hold the text mapped to them.
            changed = set(batch.ids) | set(batch.removed_chunks)
            self._by_text = {key: chunk_id for key, chunk_id in self._by_text.items() if chunk_id not in changed}

