"""What changes an index: :meth:`~IndexChanges.update` (incremental, in checkpoints),
``configure``, ``refresh`` and ``save_local``, and the ``dry_run`` that estimates an update.

Mixed into :class:`rag.index.core.Index`, whose backend and locks these methods use: an
update plans and embeds without blocking searches and hands each checkpoint to the
backend under the write side of the index's read-write lock. The updater (loaders,
BeautifulSoup, splitters), the workers and the dry run are imported by the methods that
use them, so that opening and searching an index never loads them.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence, Union

from rag.errors import UnsupportedOperationError, ValidationError
from rag.hybrid import HybridConfig
from rag.index.backend import SAVE_LOCAL, IndexBackend, OnWait
from rag.index.config import IndexConfig
from rag.index.locks import ReadWriteLock
from rag.index.segments import Batch
import rag.index

if TYPE_CHECKING:  # for the type checker: at run time rag.index imports these on first access
    import rag.embeddings
    import rag.index.dryrun
    import rag.index.sources
    import rag.index.update
    import rag.index.workers

__all__ = ["IndexChanges"]

PathLike = Union[str, Path]


class IndexChanges:
    """The methods of :class:`~rag.index.core.Index` that change it (see the module docstring)."""

    # What these methods use of the index (set by Index.__init__; declared for the type checker).
    backend: IndexBackend
    checkpoint_chunks: int
    checkpoint_seconds: float
    _rw: ReadWriteLock
    _updating: threading.Lock

    if TYPE_CHECKING:  # Index's properties
        @property
        def config(self) -> IndexConfig: ...

        @property
        def embeddings(self) -> rag.embeddings.Embeddings: ...

        @property
        def path(self) -> Optional[Path]: ...

        @property
        def where(self) -> str: ...

    def update(
        self, sources: Sequence[PathLike], *, crawl: Optional[int] = None, sitemap: bool = False,
        glob: Optional[str] = None, exclude: Sequence[str] = (), beir: bool = False, chunk_size: Optional[int] = None,
        chunk_overlap: Optional[int] = None, progress: Optional[rag.index.update.Progress] = None, on_wait: OnWait = None,
        workers: Optional[int] = None, cluster: Optional[str] = None, prune: bool = False,
        device: Optional[str] = None, batch_size: Optional[int] = None,
    ) -> rag.index.update.UpdateSummary:
        """Bring the index up to date with ``sources`` (files, folders, http(s) URLs) and save.

        Unchanged sources are skipped (a file whose size, mtime and inode are as when it
        was last read is not read again; anything read is compared by content hash),
        changed ones re-chunked and re-embedded (a chunk whose text is already stored
        keeps its vector), new ones added; a source that was indexed under one of these
        roots (or, for a folder, lies inside it) and is gone is deleted, unless it failed to
        load, or a failure may have hidden it: nothing is deleted under a crawl, sitemap or
        BEIR root where something failed, nor under a folder none of whose files could be
        read (a folder's listing still shows what is gone). ``crawl``: follow
        links this many hops from each URL; ``sitemap``: URLs are sitemaps; ``glob``: files
        to take from folders (default: the document types, less generated output such as
        Sphinx's ``_static/``; see :func:`loaders.selection.select_files`); ``exclude``:
        gitignore-style patterns left out of folders (``.ragignore`` files are read too);
        a ``glob`` leaving out files that are still on disk is refused (ValidationError,
        nothing changed) unless ``prune`` (default False; :mod:`rag.index.pruning`); ``beir``: each source is a BEIR dataset (each corpus document its own source,
        ``metadata["doc_id"]``). New ``chunk_size``/``chunk_overlap`` re-chunk every
        source, so the update must then name every root the index holds.
        ``progress(stage, done, total)`` reports loading and embedding; ``on_wait()`` is
        called if another process holds the index's write lock. ``workers``: embed in this
        many local processes (>= 1; a script doing so needs an ``if __name__ ==
        "__main__":`` guard, see :mod:`rag.index.workers`); ``cluster``: embed on the Dask
        cluster whose scheduler is at this address (``tcp://HOST:PORT``, extra
        ``cluster``). Either way this process stays the only writer. ``device`` and ``batch_size``:
        how a local model runs (:class:`~rag.embeddings.LocalEmbeddings`; None: its defaults).

        Every argument is checked before anything is loaded. If a commit fails, what was
        committed before it stays, this process serves nothing that was not saved, and
        the error is raised.
        """
        from rag.index.folders import check_excludes
        from rag.index.update import parse_roots
        from rag.index.workers import make_embedder

        began = time.perf_counter()
        roots = parse_roots(sources, crawl=crawl, sitemap=sitemap, beir=beir)
        self.config.with_chunking(chunk_size, chunk_overlap)  # checked before anything is loaded
        exclude = check_excludes(exclude)
        # Workers start (or the cluster is reached) before anything is read or written.
        embedder = make_embedder(self.embeddings, self.config.embeddings, workers=workers, cluster=cluster,
                                 device=device, batch_size=batch_size)
        try:
            with self._updating, self.backend.writing(on_wait):
                self.backend.refresh(self._rw.writing)
                config = self.config.with_chunking(chunk_size, chunk_overlap)
                summary = self._run_update(roots, config, glob, exclude, progress, embedder, prune)
        finally:
            embedder.close()
        summary.seconds = time.perf_counter() - began
        return summary

    def _run_update(self, roots: list[rag.index.sources.Root], config: IndexConfig, glob: Optional[str],
                    exclude: Sequence[str], progress: Optional[rag.index.update.Progress],
                    embedder: rag.index.workers.Embedder, prune: bool = False) -> rag.index.update.UpdateSummary:
        """Plan and embed (the Updater), then hand each checkpoint to the backend, which
        applies and persists it while this process's searches wait."""
        from rag.index.pruning import check_glob_keeps_files
        from rag.index.update import Updater, check_rechunking

        check_rechunking(self.backend, roots, config)
        check_glob_keeps_files(roots, self.backend.record, glob, exclude, self.path, prune)

        def commit(batch: Batch, final: bool) -> None:
            self.backend.commit(batch, config, final=final, exclusive=self._rw.writing)

        updater = Updater(self.backend, config, commit, glob=glob, excludes=exclude, index_folder=self.path,
                          progress=progress, checkpoint_chunks=self.checkpoint_chunks,
                          checkpoint_seconds=self.checkpoint_seconds, embedder=embedder)
        return updater.run(roots)

    def configure(self, *, hybrid: HybridConfig) -> None:
        """Change how hybrid searches fuse their two sides (:class:`~rag.hybrid.HybridConfig`:
        ``fusion``, ``weights``, ``fetch_k``, ``c``) and save it with the index; nothing is
        re-embedded. An index keeps the fusion it was built with until this is asked."""
        from dataclasses import replace

        if not isinstance(hybrid, HybridConfig):
            raise ValidationError(f"hybrid must be a HybridConfig (e.g. HybridConfig(fusion='zscore')), got {hybrid!r}")
        with self._updating, self.backend.writing(None):
            self.backend.refresh(self._rw.writing)
            self.backend.commit(Batch(), replace(self.config, hybrid=hybrid), final=True, exclusive=self._rw.writing)

    def dry_run(self, sources: Sequence[PathLike], *, crawl: Optional[int] = None, sitemap: bool = False,
                glob: Optional[str] = None, exclude: Sequence[str] = (), beir: bool = False,
                chunk_size: Optional[int] = None, chunk_overlap: Optional[int] = None) -> rag.index.dryrun.DryRun:
        """What :meth:`update` with these arguments would read: files, bytes, estimated
        chunks (and their 95% margin) and embedding time per file type, what it would
        leave out. Reads a sample of each type, loaded and split as the update would, and
        times the model on it (:mod:`rag.index.dryrun`); writes nothing. New
        ``chunk_size``/``chunk_overlap`` re-chunk every source, so no file counts as
        unchanged then."""
        from rag.index.dryrun import dry_run
        from rag.index.folders import check_excludes
        from rag.index.update import parse_roots

        roots = parse_roots(sources, crawl=crawl, sitemap=sitemap, beir=beir)
        config = self.config.with_chunking(chunk_size, chunk_overlap)
        # As Updater._previous_read: new chunk settings make the update read every file.
        record = dict(self.backend.record) if config.chunking == self.config.chunking else {}
        return dry_run(roots, config, self.embeddings, glob=glob, excludes=check_excludes(exclude),
                       index_folder=self.path,
                       previous=lambda source: record[source].last_read if source in record else None)

    def refresh(self) -> bool:
        """Catch up with a save by another process; True if there was one (a database
        index is always current: False)."""
        with self._updating:
            return self.backend.refresh(self._rw.writing)

    def save_local(self, folder: PathLike) -> None:
        """Copy the index to ``folder`` (new or empty), written to a temporary folder and
        renamed into place; it opens with ``Index.open(folder)``. A folder index only: an
        index kept in a database raises :class:`~rag.errors.UnsupportedOperationError`."""
        if SAVE_LOCAL not in self.backend.capabilities:
            raise UnsupportedOperationError(
                f"save_local: the {self.backend.name} index at {self.where} lives in the database, not in files; "
                "back it up with the database's own tools, or index the same sources into a folder")
        self.backend.save_local(Path(folder))
