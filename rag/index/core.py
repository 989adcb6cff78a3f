"""The index: one folder holding a vector store, a BM25 index and the record of what was
indexed, with the operations the command line, the server and agents share."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

from rag.documents import Document
from rag.errors import CorruptIndexError, IndexNotFoundError, StorageError, ValidationError
from rag.hybrid import HybridConfig
from rag.index.config import ANSWER_K, IndexConfig, check_k
from rag.index.folders import check_excludes, check_kind, check_spec_matches
from rag.index.info import IndexInfo
from rag.index.locks import ReadWriteLock
from rag.index.registry import check_embedding_spec, default_embedding_spec, store_backend
from rag.index.search import search_state
from rag.index.state import IndexState, saved_version, write_lock
from rag.index.segments import Batch
from rag.persistence import index_folder_exists
from rag.search_types import INDEX_SEARCH_TYPES, check_search_kwargs
import rag.index

if TYPE_CHECKING:
    import rag.index.answer
    import rag.index.dryrun
    import rag.index.update

# The updater (loaders, BeautifulSoup, splitters), the answerer (chains) and the dry run
# are imported by the methods that use them: opening and searching an index (``rag
# search``, a server answering searches) never loads them. Type hints name their classes
# by module (rag.index.answer.Answer), which rag.index imports on first attribute access.

__all__ = ["Index", "IndexInfo"]

#: The search_kwargs an index retriever takes: what Index.search sets per call.
_PER_SEARCH_KWARGS = frozenset({"k", "filter", "score_threshold", "fetch_k", "lambda_mult"})

PathLike = Union[str, Path]


class Index:
    """An index folder, opened: search it, answer from it, update it incrementally.

    Safe to share between threads: searches run concurrently with each other and with
    one update; an update loads and embeds without blocking searches, and commits in
    checkpoints (store, record and BM25 changed together and saved atomically) while
    searches wait, so every search sees the index wholly as of one commit. An update of
    fewer than ``checkpoint_chunks`` new chunks (default 512) commits once, at its end.
    Updates from several processes are serialised by a lock file beside the folder.
    Nothing is printed.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "cats.md").write_text("Cats purr when they are content.")
    >>> index = Index.create(folder / "index", embeddings="hashing")
    >>> index.update([str(folder / "cats.md")]).added
    1
    >>> [pathlib.Path(doc.metadata["source"]).name for doc, score in index.search("purring cats", k=1)]
    ['cats.md']
    >>> import shutil; shutil.rmtree(folder)
    """

    def __init__(self, path: PathLike, state: IndexState) -> None:
        """Use :meth:`open`, :meth:`create` or :meth:`open_or_create`."""
        self.path = Path(path)
        self._state = state
        self._rw = ReadWriteLock()
        self._updating = threading.Lock()  # one update at a time in this process
        self._broken: Optional[StorageError] = None
        #: Commit after this many new chunks, or about this many seconds of work (see
        #: Updater; ``float("inf")``: by count only).
        self.checkpoint_chunks, self.checkpoint_seconds = 512, 5.0

    # ------------------------------------------------------------------ opening

    @staticmethod
    def exists(path: PathLike) -> bool:
        """True when ``path`` holds a saved index (or an interrupted save's previous one)."""
        return index_folder_exists(path)

    @classmethod
    def open(cls, path: PathLike, *, embeddings: Optional[str] = None, warm_up: bool = False,
             _for_update: bool = False) -> "Index":
        """The index saved at ``path``. ``embeddings``, when given, must be the spec the
        index was built with (an EmbeddingMismatchError says how to rebuild otherwise).
        ``warm_up``: load a local embedding model while the index is read (for a process
        that searches next, such as ``rag search``)."""
        path = Path(path)
        if not cls.exists(path):
            raise IndexNotFoundError(f"no index at {path}; create one with: rag index SOURCE --index {path}")
        check_kind(path)
        if embeddings is not None:
            check_spec_matches(path, embeddings)
        # For an update the vectors and texts are read only once a change needs them,
        # under the write lock (so no other commit replaces them in between).
        return cls(path, IndexState.load(path, lazy=_for_update, warm=warm_up))

    @classmethod
    def create(
        cls, path: PathLike, *, embeddings: Optional[str] = None, store: str = "faiss", chunk_size: int = 1000,
        chunk_overlap: int = 200, hybrid: Optional[HybridConfig] = None,
    ) -> "Index":
        """A new, empty index for ``path`` (written by the first :meth:`update`).

        ``embeddings``: a spec from the registry (default: ``local`` when its extra is
        installed, else ``hashing``; never a server unless named); ``store``: a registered
        backend (default ``faiss``, cosine); chunks of ``chunk_size`` characters (default
        1000) overlapping by ``chunk_overlap`` (default 200); ``hybrid``: the fusion
        settings. Refuses a folder that is already an index, or holds other files.
        """
        path = Path(path)
        if cls.exists(path):
            raise ValidationError(f"{path} already holds an index; open it with Index.open({str(path)!r})")
        # A first commit cut short leaves only segments/ or bm25/ behind: ours to reuse.
        if path.exists() and (not path.is_dir() or any(p.name not in ("segments", "bm25") for p in path.iterdir())):
            raise StorageError(f"{path} is a folder with other files in it, not an index folder (no manifest.json); "
                               "choose a new or empty folder for the index")
        config = IndexConfig(embeddings or default_embedding_spec(), store, chunk_size, chunk_overlap,
                             hybrid if hybrid is not None else HybridConfig())
        return cls(path, IndexState.empty(config, path=path))

    @classmethod
    def open_or_create(cls, path: PathLike, *, embeddings: Optional[str] = None, store: Optional[str] = None) -> "Index":
        """:meth:`open` when ``path`` holds an index (``embeddings`` and ``store``, when
        given, must be what it was built with), else :meth:`create` with them."""
        if embeddings is not None:
            check_embedding_spec(embeddings)
        if store is not None:
            store_backend(store)
        if not cls.exists(path):
            return cls.create(path, embeddings=embeddings, store=store or "faiss")
        index = cls.open(path, embeddings=embeddings, _for_update=True)
        if store is not None and store != index.config.store:
            raise ValidationError(f"the index at {path} uses --store {index.config.store}; drop --store, or rebuild "
                                  "with a new --index folder")
        return index

    # ------------------------------------------------------------------ facts

    @property
    def config(self) -> IndexConfig:
        return self._state.config

    @property
    def embeddings(self) -> Any:
        """The embeddings object the index searches with (the model it was built with)."""
        return self._state.embeddings

    def __len__(self) -> int:
        return self._state.chunk_count

    def info(self) -> IndexInfo:
        from rag.embeddings.base import model_id_of

        with self._rw.reading():
            state = self._current()
            size = sum(p.stat().st_size for p in self.path.rglob("*") if p.is_file()) if self.path.is_dir() else 0
            return IndexInfo(
                index=str(self.path), embeddings=state.config.embeddings, model_id=model_id_of(state.embeddings),
                dimension=state.dimension, store=state.store_name, sources=len(state.record),
                chunks=state.chunk_count, bm25=state.chunk_count > 0, chunk_size=state.config.chunk_size,
                chunk_overlap=state.config.chunk_overlap, size_on_disk_bytes=size,
                roots=sorted({record.root for record in state.record.values()}),
                hybrid=state.config.hybrid.to_json(), saved_at=state.saved_at,
            )

    def sources(self) -> dict[str, list[str]]:
        """Every indexed source and the ids of its chunks."""
        with self._rw.reading():
            return {source: list(record.chunk_ids) for source, record in self._current().record.items()}

    # ------------------------------------------------------------------ searching

    def search(self, query: str, *, k: int = 4, search_type: str = "hybrid", filter: Any = None,
               threshold: Optional[float] = None, fetch_k: Optional[int] = None,
               lambda_mult: Optional[float] = None) -> list[tuple[Document, float]]:
        """``(chunk, score)`` pairs, best first, at most ``k`` (>= 1, default 4).

        ``search_type``: ``hybrid`` (default; dense + BM25 fused by reciprocal rank with
        the index's saved settings, score = fusion score), ``similarity`` (relevance in
        [0, 1]), ``mmr`` (diversified; relevance), ``threshold`` (relevance >=
        ``threshold``, 0 to 1; LangChain's ``similarity_score_threshold`` also accepted) or
        ``bm25`` (BM25 score). ``filter``: a metadata filter (``{"source": {"$ne": ...}}``)
        applied before ranking, so ``k`` results come back whenever ``k`` match.
        ``fetch_k``/``lambda_mult``: MMR's candidates and balance for this search (default:
        the index's saved settings; ``fetch_k`` also taken by similarity and threshold).
        """
        self._read_store()
        with self._rw.reading():
            return search_state(self._current(), query, k=k, search_type=search_type, filter=filter, threshold=threshold,
                                fetch_k=fetch_k, lambda_mult=lambda_mult)

    def as_retriever(self, search_type: str = "hybrid", search_kwargs: Optional[dict[str, Any]] = None
                     ) -> rag.index.answer.IndexRetriever:
        """A retriever Runnable over this index, as LangChain's ``as_retriever``:
        ``search_kwargs`` may hold ``k`` and ``filter``, ``score_threshold`` (threshold /
        ``similarity_score_threshold``), ``fetch_k`` (similarity, threshold, mmr) and
        ``lambda_mult`` (mmr), checked now."""
        from rag.index.answer import IndexRetriever

        kwargs = dict(search_kwargs or {})
        check_search_kwargs(INDEX_SEARCH_TYPES.check(search_type), kwargs, accepted=_PER_SEARCH_KWARGS)
        return IndexRetriever(self, k=kwargs.get("k", 4), search_type=search_type, filter=kwargs.get("filter"),
                              threshold=kwargs.get("score_threshold"), fetch_k=kwargs.get("fetch_k"),
                              lambda_mult=kwargs.get("lambda_mult"))

    def get_by_ids(self, ids: Sequence[str]) -> list[Document]:
        """The stored chunks with these ids (ids not in the index are skipped), as a vector
        store's ``get_by_ids``."""
        self._read_store()
        with self._rw.reading():
            return self._current().store.get_by_ids(list(ids))

    def chain(self, *, k: int = ANSWER_K, llm: Any = None, search_type: str = "hybrid", filter: Any = None,
              window: int = 1, openings: int = 2, contents: int = 1) -> Any:
        """The retrieval chain ``{"input": question} -> {"input", "context", "answer"}``:
        the best ``k`` chunks (default 6), each widened by the ``window`` chunks around it
        in its document (default 1), the ``openings`` best documents by their opening
        chunks (default 2) and the section the ``contents`` best contents lists name for
        the question (default 1), merged into numbered passages and answered offline
        (extractive, cited ``[n]``) or by ``llm``, a chat model Runnable such as
        ``ChatOpenAI(model=...)``. Stream it with ``.stream`` for the answer as it is
        produced. See :func:`rag.index.answer.answer_chain`."""
        from rag.index.answer import IndexRetriever, answer_chain

        retriever = IndexRetriever(self, k=check_k(k), search_type=search_type, filter=filter)
        return answer_chain(retriever, self.embeddings, llm, get_by_ids=self.get_by_ids, window=window,
                            openings=openings, contents=contents)

    def ask(self, question: str, *, k: int = ANSWER_K, llm: Any = None, config: Optional[dict[str, Any]] = None,
            window: int = 1, openings: int = 2, contents: int = 1) -> rag.index.answer.Answer:
        """Answer ``question`` from the best ``k`` chunks and their context, with its
        numbered sources (see :meth:`chain`; ``config``: a run config, e.g.
        ``{"callbacks": [...]}``)."""
        from rag.index.answer import Answer

        return Answer.from_result(self.chain(k=k, llm=llm, window=window, openings=openings, contents=contents).invoke(
            {"input": question}, config))

    def chat(self, session: str = "default", *, llm: Any = None, k: int = ANSWER_K) -> Any:
        """A :class:`~rag.index.chat.ChatSession`: a conversation kept in
        ``<index>/chats/<session>.jsonl`` (surviving updates), follow-ups understood."""
        from rag.index.chat import ChatSession

        return ChatSession(self, session, llm=llm, k=k)

    # ------------------------------------------------------------------ changing

    def update(
        self, sources: Sequence[PathLike], *, crawl: Optional[int] = None, sitemap: bool = False,
        glob: Optional[str] = None, exclude: Sequence[str] = (), beir: bool = False, chunk_size: Optional[int] = None,
        chunk_overlap: Optional[int] = None, progress: Optional[rag.index.update.Progress] = None, on_wait: Any = None,
        workers: Optional[int] = None, cluster: Optional[str] = None,
    ) -> rag.index.update.UpdateSummary:
        """Bring the index up to date with ``sources`` (files, folders, http(s) URLs) and save.

        Unchanged sources are skipped (content hash), changed ones re-chunked and
        re-embedded, new ones added; a source that was indexed under one of these roots
        and is gone is deleted, unless something under that root failed to load (then
        nothing there is deleted). ``crawl``: follow links this many hops from each URL;
        ``sitemap``: URLs are sitemaps; ``glob``: files to take from folders (default: the
        document types, less generated output such as Sphinx's ``_static/``; see
        :func:`loaders.selection.select_files`); ``exclude``: gitignore-style patterns left
        out of folders (``.ragignore`` files are read too); ``beir``: each source is a BEIR dataset (each corpus document its
        own source, ``metadata["doc_id"]``). New ``chunk_size``/``chunk_overlap`` re-chunk
        every source, so the update must then name every root the index holds. ``progress(stage, done, total)`` reports loading and embedding;
        ``on_wait()`` is called if another process holds the index's write lock.
        ``workers``: embed in this many local processes (>= 1; a script doing so needs an
        ``if __name__ == "__main__":`` guard, see :mod:`rag.index.workers`); ``cluster``:
        embed on the Dask cluster whose scheduler is at this address (``tcp://HOST:PORT``,
        extra ``cluster``). Either way this process stays the only writer.

        Every argument is checked before anything is loaded. If the save fails, the index
        (on disk and in memory) stays as it was and the error is raised.
        """
        from rag.index.update import parse_roots
        from rag.index.workers import make_embedder

        began = time.perf_counter()
        roots = parse_roots(sources, crawl=crawl, sitemap=sitemap, beir=beir)
        self.config.with_chunking(chunk_size, chunk_overlap)  # checked before anything is loaded
        exclude = check_excludes(exclude)
        # Workers start (or the cluster is reached) before anything is read or written.
        embedder = make_embedder(self._current().embeddings, self.config.embeddings, workers=workers, cluster=cluster)
        try:
            summary = self._update(roots, chunk_size, chunk_overlap, glob, exclude, progress, on_wait, embedder)
        finally:
            embedder.close()
        summary.seconds = time.perf_counter() - began
        return summary

    def _update(self, roots: list[Any], chunk_size: Optional[int], chunk_overlap: Optional[int], glob: Optional[str],
                exclude: Sequence[str], progress: Optional[rag.index.update.Progress], on_wait: Any,
                embedder: Any) -> rag.index.update.UpdateSummary:
        from rag.index.update import Updater, check_rechunking

        with self._updating, write_lock(self.path, on_wait):
            self._current()
            self._refresh()
            state = self._state
            config = state.config.with_chunking(chunk_size, chunk_overlap)
            check_rechunking(state, roots, config)

            def commit(batch: Batch, final: bool) -> None:
                self._commit(state, config, batch, final)

            updater = Updater(state, config, commit, glob=glob, excludes=exclude, index_folder=self.path,
                              progress=progress, checkpoint_chunks=self.checkpoint_chunks,
                              checkpoint_seconds=self.checkpoint_seconds, embedder=embedder)
            return updater.run(roots)

    def _commit(self, state: IndexState, config: IndexConfig, batch: Batch, final: bool) -> None:
        """Apply ``batch`` and make it durable, as one step for searches (write lock)."""
        from rag.index.update import apply_batch

        committed_config = state.config
        settled = not state.compaction_due() if final else True
        if not batch and config == committed_config and state.version is not None and settled:
            return  # nothing changed: no write at all
        with self._rw.writing():
            try:
                apply_batch(state, batch)
                state.config = config
                state.commit(self.path, batch, final=final)
            except BaseException:
                # Searches must never see changes that were not saved: back to the last save.
                self._restore(state, committed_config)
                raise

    def dry_run(self, sources: Sequence[PathLike], *, crawl: Optional[int] = None, sitemap: bool = False,
                glob: Optional[str] = None, exclude: Sequence[str] = (), beir: bool = False,
                chunk_size: Optional[int] = None, chunk_overlap: Optional[int] = None) -> rag.index.dryrun.DryRun:
        """What :meth:`update` with these arguments would read: files, bytes, estimated
        chunks and embedding time per file type, and what it would leave out. Reads no
        document beyond a small sample (to time the model); writes nothing. New
        ``chunk_size``/``chunk_overlap`` re-chunk every source, so no file counts as
        unchanged then."""
        from rag.index.dryrun import dry_run
        from rag.index.update import parse_roots

        roots = parse_roots(sources, crawl=crawl, sitemap=sitemap, beir=beir)
        state = self._current()
        config = state.config.with_chunking(chunk_size, chunk_overlap)
        # As Updater._previous_read: new chunk settings make the update read every file.
        record = dict(state.record) if config.chunking == state.config.chunking else {}
        return dry_run(roots, config, self.embeddings, glob=glob, excludes=check_excludes(exclude),
                       index_folder=self.path,
                       previous=lambda source: record[source].last_read if source in record else None)

    def refresh(self) -> bool:
        """Reload the index if another process saved a newer version; True if it did."""
        with self._updating:
            return self._refresh()

    def _refresh(self) -> bool:
        state = self._state
        version = saved_version(self.path)
        if version is None or version == state.version:
            return False
        if state.version is None:
            # Created here but saved first by another process: adopt that index if it is
            # built with the same embeddings, never overwrite it.
            check_spec_matches(self.path, state.config.embeddings)
        fresh = IndexState.load(self.path, embeddings=state.embeddings)
        with self._rw.writing():
            self._state = fresh
        return True

    def _restore(self, state: IndexState, config: IndexConfig) -> None:
        """Back to the last save after a failed commit; if even that cannot be read, this
        object refuses further use rather than serve changes that were never saved."""
        try:
            if state.version is None:
                self._state = IndexState.empty(config, state.embeddings, path=self.path)
            else:
                self._state = IndexState.load(self.path, embeddings=state.embeddings)
        except BaseException as exc:
            self._broken = StorageError(
                f"the index at {self.path} could not be read back after a failed update ({type(exc).__name__}: {exc}); "
                f"open it again with Index.open({str(self.path)!r})")

    def _read_store(self) -> None:
        """Bring the store into memory before a search. A state that has not read it yet (a
        build here streams its checkpoints; an update opens lazily) reads the segments of
        the version it holds, unless another process has saved since: its compaction may
        have dropped those segments, so the newest save is read instead."""
        state = self._current()
        if state.loaded or state.version is None:
            return
        if saved_version(self.path) == state.version:
            try:
                state.store  # noqa: B018 -- read now, outside the read lock
                return
            except CorruptIndexError:
                if saved_version(self.path) == state.version:
                    raise  # really damaged, not replaced under us
        # Another process saved: it holds the write lock file, so no update of ours is
        # running (our commits keep the version current); never wait for one here.
        if self._updating.acquire(blocking=False):
            try:
                self._refresh()
            finally:
                self._updating.release()

    def _current(self) -> IndexState:
        if self._broken is not None:
            raise self._broken
        return self._state

