"""An index kept in a folder: segments, BM25 postings and an atomic manifest
(:mod:`rag.index.state`, :mod:`rag.index.segments`).

A checkpoint appends one segment and swaps the manifest; updates from several processes
are serialised by a lock file beside the folder; readers never lock (saves are atomic).
This process's view is one :class:`~rag.index.state.IndexState`, replaced whole when
another process saved a newer version, and put back to the last save when a commit fails.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Optional, Sequence

from rag.documents import Document
from rag.errors import CorruptIndexError, IndexNotFoundError, RagError, StorageError, ValidationError
from rag.hybrid import HybridConfig, lexical_ranking
from rag.index.backend import ATOMIC_COMMIT, SAVE_LOCAL, BackendFacts, Exclusive, OnWait
from rag.index.config import IndexConfig
from rag.index.folders import check_kind, check_spec_matches, saved_manifest
from rag.index.registry import default_embedding_spec
from rag.index.manifest import MANIFEST
from rag.index.segments import Batch, read_manifest
from rag.index.state import IndexState, SourceRecord, saved_version, write_lock
from rag.persistence import index_folder_exists

if TYPE_CHECKING:
    from rag.embeddings.base import Embeddings
    from rag.index.lexical import Predicate
    from stores.base import VectorStore

__all__ = ["FolderBackend"]


class FolderBackend:
    """The :class:`~rag.index.backend.IndexBackend` of an index folder (see the module docstring)."""

    name = "folder"
    capabilities = frozenset({SAVE_LOCAL, ATOMIC_COMMIT})

    def __init__(self, path: Path, state: IndexState) -> None:
        """Use :meth:`open` or :meth:`create`."""
        self.path = Path(path)
        self._state = state
        self._broken: Optional[StorageError] = None
        # While this process holds the write lock, only its own commits save: a search
        # then never reads the folder in place of the state the update commits to.
        self._writer = False
        self._swap = threading.Lock()  # a search's state replaces the one it read, if still current

    # ------------------------------------------------------------------ opening

    @staticmethod
    def exists(path: Path) -> bool:
        """True when ``path`` holds a saved index (or an interrupted save's previous one)."""
        return index_folder_exists(path)

    @classmethod
    def open(cls, path: Path, *, embeddings: Optional[str] = None, warm_up: bool = False,
             lazy: bool = False) -> "FolderBackend":
        """The index saved at ``path`` (``embeddings``, when given, must be its spec).
        ``lazy``: vectors and texts are read when first needed (for an update, which then
        holds the write lock); ``warm_up``: load a local model while the files are read.
        Embeddings computed by a server are used only if ``embeddings`` names them (or
        ``$RAG_ALLOW_EMBEDDINGS`` does): see :mod:`rag.index.remote`."""
        if not cls.exists(path):
            raise IndexNotFoundError(f"no index at {path}; create one with: rag index SOURCE --index {path}")
        check_kind(path)
        if embeddings is not None:
            check_spec_matches(path, embeddings)
        return cls(path, IndexState.load(path, _permitted_embeddings(path, embeddings), lazy=lazy, warm=warm_up))

    @classmethod
    def create(cls, path: Path, *, embeddings: Optional[str], store: Optional[str], chunk_size: int,
               chunk_overlap: int, hybrid: Optional[HybridConfig]) -> "FolderBackend":
        """A new, empty index for ``path``, written by its first commit. Refuses a folder
        that already is an index, or holds other files."""
        if cls.exists(path):
            raise ValidationError(f"{path} already holds an index; open it with Index.open({str(path)!r})")
        # A first commit cut short leaves only segments/ or bm25/ behind: ours to reuse.
        if path.exists() and (not path.is_dir() or any(p.name not in ("segments", "bm25") for p in path.iterdir())):
            raise StorageError(f"{path} is a folder with other files in it, not an index folder (no manifest.json); "
                               "choose a new or empty folder for the index")
        config = IndexConfig(embeddings or default_embedding_spec(), store or "faiss", chunk_size, chunk_overlap,
                             hybrid if hybrid is not None else HybridConfig())
        return cls(path, IndexState.empty(config, path=path))

    # ------------------------------------------------------------------ facts

    @property
    def where(self) -> str:
        return str(self.path)

    @property
    def config(self) -> IndexConfig:
        return self._current().config

    @property
    def embeddings(self) -> Embeddings:
        return self._current().embeddings

    @property
    def store(self) -> VectorStore:
        return self._current().store

    @property
    def record(self) -> Mapping[str, SourceRecord]:
        return self._current().record

    @property
    def dimension(self) -> Optional[int]:
        return self._current().dimension

    @property
    def chunk_count(self) -> int:
        return self._current().chunk_count

    @property
    def chats_folder(self) -> Path:
        return self.path / "chats"

    def facts(self) -> BackendFacts:
        state = self._current()
        return BackendFacts(state.store_name, _size_on_disk(self.path, state), state.saved_at, state.chunk_count > 0)

    def held_chunk_ids(self, source: str, record: SourceRecord) -> list[str]:
        return list(record.chunk_ids)  # one writer at a time: the record names every chunk

    def lexical_search(self, query: str, k: int, filter: Any, predicate: Optional[Predicate]
                       ) -> list[tuple[Document, float]]:
        return lexical_ranking(self._current().lexical(), query, k, predicate)

    def lexical_scores(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        lexical = self._current().lexical()
        return {} if lexical is None else lexical.scores_of(query, ids)

    # ------------------------------------------------------------------ reading

    def before_read(self) -> None:
        """Bring the store into memory before a search. A state that has not read it yet (a
        build here streams its checkpoints; an update opens lazily) reads the segments of
        the version it holds, unless another process has saved since: its compaction may
        have dropped those segments, so the newest save is read instead."""
        state = self._current()
        if state.loaded or state.version is None:
            return
        if saved_version(self.path) == state.version:
            try:
                state.store  # noqa: B018 -- read now, outside the index's read lock
                return
            except CorruptIndexError:
                if saved_version(self.path) == state.version:
                    raise  # really damaged, not replaced under us
        if self._writer:
            # The newer save is this process's own commit, still in progress: the search
            # reads the store under the read lock, once the commit is done.
            return
        # Another process saved: assignment is atomic, and searches that hold the older
        # state keep reading it (its store is in memory or its files still named). An
        # update that began meanwhile keeps its own state (it read the newest save).
        fresh = IndexState.load(self.path, embeddings=state.embeddings)
        with self._swap:
            if not self._writer and self._state is state:
                self._state = fresh

    def refresh(self, exclusive: Exclusive) -> bool:
        state = self._current()
        version = saved_version(self.path)
        if version is None and state.version is not None:
            # The save this process read has become unreadable (damaged or removed): say why
            # (a CorruptIndexError naming the file) rather than report "no change".
            read_manifest(self.path)
        if version is None or version == state.version:
            return False
        if state.version is None:
            # Created here but saved first by another process: adopt that index if it is
            # built with the same embeddings, never overwrite it.
            check_spec_matches(self.path, state.config.embeddings)
        fresh = IndexState.load(self.path, embeddings=state.embeddings)
        with exclusive():
            self._state = fresh
        return True

    # ------------------------------------------------------------------ writing

    @contextmanager
    def writing(self, on_wait: OnWait) -> Iterator[None]:
        with write_lock(self.path, on_wait):
            self._current()
            with self._swap:
                self._writer = True
            try:
                yield
            finally:
                self._writer = False

    def commit(self, batch: Batch, config: IndexConfig, *, final: bool, exclusive: Exclusive) -> None:
        state = self._current()
        committed_config = state.config
        settled = not state.compaction_due() if final else True
        if not batch and config == committed_config and state.version is not None and settled:
            return  # nothing changed: no write at all
        with exclusive():
            try:
                _apply(state, batch)
                state.config = config
                state.commit(self.path, batch, final=final)
            except BaseException:
                # Searches must never see changes that were not saved: back to the last save.
                self._restore(state, committed_config)
                raise

    def _restore(self, state: IndexState, config: IndexConfig) -> None:
        """Back to the last save after a failed commit; if even that cannot be read, this
        backend refuses further use rather than serve changes that were never saved."""
        try:
            if state.version is None:
                self._state = IndexState.empty(config, state.embeddings, path=self.path)
            else:
                self._state = IndexState.load(self.path, embeddings=state.embeddings)
        except BaseException as exc:
            self._broken = StorageError(
                f"the index at {self.path} could not be read back after a failed update ({type(exc).__name__}: {exc}); "
                f"open it again with Index.open({str(self.path)!r})")

    def save_local(self, folder: Path) -> None:
        """Copy the saved index to ``folder`` (a new folder, or an empty one): files to a
        temporary folder beside it, then one rename, so a crash leaves no half copy."""
        folder = Path(folder)
        if folder.resolve() == self.path.resolve():
            raise ValidationError(f"save_local needs another folder than the index's own ({folder})")
        if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
            raise ValidationError(f"save_local needs a new or empty folder, and {folder} is not empty")
        with write_lock(self.path):  # no commit swaps files while they are copied
            if self._current().version is None:
                raise ValidationError(f"the index at {self.path} has not been saved yet: update it first")
            folder.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
            try:
                shutil.copytree(self.path, staging, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("chats", ".manifest.json.*"))
                if folder.exists():
                    folder.rmdir()
                os.replace(staging, folder)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise

    def close(self) -> None:
        pass  # nothing is held open between calls

    def _current(self) -> IndexState:
        if self._broken is not None:
            raise self._broken
        return self._state


def _apply(state: IndexState, batch: Batch) -> None:
    """Change ``state`` in memory as ``batch`` says: the record, and the store when it is in
    memory (else it is read from the segments, this batch's included, when first needed;
    the BM25 postings follow at the commit). Run under the index's write lock, with no
    search running."""
    if state.loaded:
        batch.apply_chunks(state.store)
    for source in batch.record_removed:
        state.record.pop(source, None)
    for source, row in batch.record_set.items():
        state.record[source] = SourceRecord.from_json(row)


def _permitted_embeddings(path: Path, named: Optional[str]) -> Optional[Embeddings]:
    """A stand-in that embeds nothing when the folder names a server nobody allowed
    (:func:`rag.index.remote.folder_embeddings`), else None: the saved spec's model."""
    from rag.index.remote import folder_embeddings

    data = saved_manifest(path)
    spec, embedding = (data.get("config") or {}).get("embedding_spec"), data.get("embedding") or {}
    if not isinstance(spec, str):
        return None  # loading says what is wrong with the folder
    try:
        return folder_embeddings(path, spec, named, embedding.get("model_id"), embedding.get("dimension"))
    except RagError:
        return None  # an unknown spec: loading reports it


def _size_on_disk(path: Path, state: IndexState) -> int:
    """Bytes of the saved index ``state`` read: the sizes its manifest gives its segments'
    files, plus the manifest. Not a walk of the folder: a concurrent commit renames its
    staging folder and deletes replaced segments meanwhile (a walk then failed), and
    nothing but rag's own files is counted. A format-1 snapshot (no segments) is walked,
    skipping what vanishes or is not a regular file."""
    size = 0
    if state.segments is not None:
        try:
            size = (path / MANIFEST).stat().st_size
        except OSError:
            pass  # not saved yet, or replaced this instant: the segments still count
        return size + sum(int(info.get("bytes", 0)) for entry in state.segments
                          for info in (entry.get("files") or {}).values())
    for folder, _dirs, names in os.walk(path):
        for name in names:
            try:
                status = os.lstat(os.path.join(folder, name))
            except OSError:
                continue  # removed meanwhile
            if stat.S_ISREG(status.st_mode):
                size += status.st_size
    return size
