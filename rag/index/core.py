"""The index: the operations the command line, the server and agents share, written once
over the backend that keeps it (a folder, PostgreSQL or Milvus; :mod:`rag.index.backend`)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

from rag.documents import Document
from rag.errors import ValidationError
from rag.hybrid import HybridConfig
from rag.index.backend import IndexBackend, Target
from rag.index.changing import IndexChanges
from rag.index.config import ANSWER_K, IndexConfig
from rag.index.info import IndexInfo
from rag.index.locks import ReadWriteLock
from rag.index.request import SearchRequest
from rag.search_types import SearchType
import rag.index

if TYPE_CHECKING:  # for the type checker: at run time rag and rag.index import these on first access
    import rag.embeddings
    import rag.index.answer
    import rag.index.chat
    import rag.runnables

# The answerer (chains), like the updater and the dry run (:mod:`rag.index.changing`), is
# imported by the methods that use it: opening and searching an index (``rag search``, a
# server answering searches) never loads them. Type hints name their classes
# by module (rag.index.answer.Answer), which rag.index imports on first attribute access.

__all__ = ["Index", "IndexInfo"]

#: The collection an index takes in a database when none is named.
DEFAULT_COLLECTION = "rag"


class Index(IndexChanges):
    """An index, opened: search it, answer from it, update it incrementally. Kept in a
    folder (the default) or in a database named by URI (``postgresql://...`` for
    PostgreSQL + pgvector, ``http://host:19530`` for Milvus), with the same operations.

    Safe to share between threads: searches run concurrently with each other and with
    one update; an update loads and embeds without blocking searches, and commits in
    checkpoints while this process's searches wait, so each of them sees the index wholly
    as of one commit. An update of fewer than ``checkpoint_chunks`` new chunks (default
    512) commits once, at its end. Updates from several processes are serialised by the
    backend where it can (a lock file beside a folder; an advisory lock in PostgreSQL;
    Milvus cannot lock). Nothing is printed.

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

    def __init__(self, backend: IndexBackend) -> None:
        """Use :meth:`open`, :meth:`create` or :meth:`open_or_create`."""
        self.backend = backend
        self._rw = ReadWriteLock()
        self._updating = threading.Lock()  # one update at a time in this process
        #: Commit after this many new chunks, or about this many seconds of work (see
        #: Updater; ``float("inf")``: by count only).
        self.checkpoint_chunks, self.checkpoint_seconds = 512, 5.0

    # ------------------------------------------------------------------ opening

    @staticmethod
    def exists(target: Target, *, collection: str = DEFAULT_COLLECTION, token: Optional[str] = None) -> bool:
        """True when ``target`` (a folder, or a URI with ``collection``) holds an index."""
        from rag.index.opening import backend_exists

        return backend_exists(target, collection=collection, token=token)

    @classmethod
    def open(cls, target: Target, *, embeddings: Optional[str] = None, collection: str = DEFAULT_COLLECTION,
             token: Optional[str] = None, warm_up: bool = False, _for_update: bool = False) -> "Index":
        """The index at ``target``: a folder path, or a database URI holding it as
        ``collection`` (default ``rag``; ``token``: Milvus's ``user:password`` or API key,
        never printed). ``embeddings``, when given, must be the spec it was built with
        (an EmbeddingMismatchError says how to rebuild otherwise). ``warm_up``: load a
        local embedding model while a folder index is read (for a process that searches
        next, such as ``rag search``)."""
        from rag.index.opening import open_backend

        return cls(open_backend(target, embeddings=embeddings, collection=collection, token=token, warm_up=warm_up,
                                lazy=_for_update))

    @classmethod
    def create(
        cls, target: Target, *, embeddings: Optional[str] = None, store: Optional[str] = None, chunk_size: int = 1000,
        chunk_overlap: int = 200, hybrid: Optional[HybridConfig] = None, collection: str = DEFAULT_COLLECTION,
        token: Optional[str] = None,
    ) -> "Index":
        """A new, empty index at ``target`` (a folder path, or a database URI and
        ``collection``), written by the first :meth:`update`.

        ``embeddings``: a spec from the registry (default: ``local`` when its extra is
        installed, else ``hashing``; never a server unless named); ``store``: for a folder,
        a registered in-process backend (default ``faiss``, cosine; a URI names its own);
        chunks of ``chunk_size`` characters (default 1000) overlapping by
        ``chunk_overlap`` (default 200); ``hybrid``: the fusion settings. Refuses a target
        that already holds an index (or, for a folder, other files).
        """
        from rag.index.opening import create_backend

        return cls(create_backend(target, embeddings=embeddings, store=store, chunk_size=chunk_size,
                                  chunk_overlap=chunk_overlap, hybrid=hybrid, collection=collection, token=token))

    @classmethod
    def open_or_create(cls, target: Target, *, embeddings: Optional[str] = None, store: Optional[str] = None,
                       chunk_size: Optional[int] = None, chunk_overlap: Optional[int] = None,
                       collection: str = DEFAULT_COLLECTION, token: Optional[str] = None) -> "Index":
        """:meth:`open` when ``target`` holds an index (``embeddings``, ``store``,
        ``chunk_size`` and ``chunk_overlap``, when given, must be what it was built with),
        else :meth:`create` with them. To re-chunk an index, give the new chunk settings to
        :meth:`update`, which re-chunks every source."""
        from rag.index.opening import open_or_create_backend

        return cls(open_or_create_backend(target, embeddings=embeddings, store=store, chunk_size=chunk_size,
                                          chunk_overlap=chunk_overlap, collection=collection, token=token))

    def close(self) -> None:
        """Release the backend's connections (a database index); the index stays where it is."""
        self.backend.close()

    def __enter__(self) -> "Index":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ facts

    @property
    def where(self) -> str:
        """The folder, or the database (URI without password) and collection: safe to print."""
        return self.backend.where

    @property
    def path(self) -> Optional[Path]:
        """The index's folder (None for an index kept in a database)."""
        return getattr(self.backend, "path", None)

    @property
    def config(self) -> IndexConfig:
        return self.backend.config

    @property
    def embeddings(self) -> rag.embeddings.Embeddings:
        """The embeddings object the index searches with (the model it was built with)."""
        return self.backend.embeddings

    @property
    def chats_folder(self) -> Path:
        """Where :meth:`chat` keeps its sessions: ``<folder>/chats`` for a folder index, a
        folder under the user's cache (``$RAG_CACHE_DIR``) for a database index."""
        return self.backend.chats_folder

    def __len__(self) -> int:
        return self.backend.chunk_count

    def info(self) -> IndexInfo:
        from rag.embeddings.base import model_id_of

        with self._rw.reading():
            backend = self.backend
            config, record, facts = backend.config, backend.record, backend.facts()
            return IndexInfo(
                index=backend.where, embeddings=config.embeddings, model_id=model_id_of(backend.embeddings),
                dimension=backend.dimension, store=facts.store, sources=len(record),
                chunks=sum(len(r.chunk_ids) for r in record.values()), bm25=facts.bm25,
                chunk_size=config.chunk_size, chunk_overlap=config.chunk_overlap, size_on_disk_bytes=facts.size_bytes,
                roots=sorted({r.root for r in record.values()}), hybrid=config.hybrid.to_json(),
                saved_at=facts.saved_at,
            )

    def sources(self) -> dict[str, list[str]]:
        """Every indexed source and the ids of its chunks."""
        with self._rw.reading():
            return {source: list(record.chunk_ids) for source, record in self.backend.record.items()}

    # ------------------------------------------------------------------ searching

    def search(self, query: str, *, k: int = 4, search_type: Union[SearchType, str] = "hybrid", filter: Any = None,
               threshold: Optional[float] = None, fetch_k: Optional[int] = None,
               lambda_mult: Optional[float] = None) -> list[tuple[Document, float]]:
        """``(chunk, score)`` pairs, best first, at most ``k`` (>= 1, default 4).

        ``search_type``: ``hybrid`` (default; dense + lexical fused by reciprocal rank
        with the index's saved settings, score = fusion score), ``similarity`` (relevance
        in [0, 1]), ``mmr`` (diversified; relevance), ``threshold`` (relevance >=
        ``threshold``, 0 to 1; LangChain's ``similarity_score_threshold`` also accepted) or
        ``bm25`` (the lexical score). ``filter``: a metadata filter (``{"source": {"$ne":
        ...}}``) applied before ranking, so ``k`` results come back whenever ``k`` match.
        ``fetch_k``/``lambda_mult``: MMR's candidates and balance for this search (default:
        the index's saved settings; ``fetch_k`` also taken by similarity and threshold).
        Every argument is checked by :class:`~rag.index.request.SearchRequest`.
        """
        return self.search_request(SearchRequest(query, k, search_type, filter, threshold, fetch_k, lambda_mult))

    def search_request(self, request: SearchRequest) -> list[tuple[Document, float]]:
        """:meth:`search` for a request built (and checked) already."""
        from rag.index.search import run_search

        if not isinstance(request, SearchRequest):
            raise ValidationError(f"search_request takes a SearchRequest, got {type(request).__name__}")
        self.backend.before_read()
        with self._rw.reading():
            return run_search(self.backend, request)

    def as_retriever(self, search_type: Union[SearchType, str] = "hybrid",
                     search_kwargs: Optional[dict[str, Any]] = None) -> rag.index.answer.IndexRetriever:
        """A retriever Runnable over this index, as LangChain's ``as_retriever``:
        ``search_kwargs`` may hold ``k`` and ``filter``, ``score_threshold`` (threshold /
        ``similarity_score_threshold``), ``fetch_k`` (similarity, threshold, mmr) and
        ``lambda_mult`` (mmr), checked now: an unknown key is refused, not dropped."""
        from rag.index.answer import IndexRetriever

        return IndexRetriever(self, request=SearchRequest.from_search_kwargs("", search_type, search_kwargs))

    def get_by_ids(self, ids: Sequence[str]) -> list[Document]:
        """The stored chunks with these ids (ids not in the index are skipped), as a vector
        store's ``get_by_ids``."""
        self.backend.before_read()
        with self._rw.reading():
            return self.backend.store.get_by_ids(list(ids))

    def chain(self, *, k: int = ANSWER_K, llm: Optional[rag.runnables.Runnable] = None,
              search_type: Union[SearchType, str] = "hybrid", filter: Any = None,
              window: int = 1, openings: int = 2, contents: int = 1, named: int = 1
              ) -> rag.runnables.Runnable[dict[str, Any], dict[str, Any]]:
        """The retrieval chain ``{"input": question} -> {"input", "context", "answer"}``:
        the best ``k`` chunks (default 6), each widened by the ``window`` chunks around it
        in its document (default 1), the ``openings`` best documents by their opening
        chunks (default 2), the section the ``contents`` best contents lists name for
        the question (default 1) and the ``named`` pages the question names by file name
        (default 1), merged into numbered passages and answered offline
        (extractive, cited ``[n]``) or by ``llm``, a chat model Runnable such as
        ``ChatOpenAI(model=...)``. Stream it with ``.stream`` for the answer as it is
        produced. See :func:`rag.index.answer.answer_chain`."""
        from rag.index.answer import IndexRetriever, answer_chain

        retriever = IndexRetriever(self, request=SearchRequest("", k=k, search_type=search_type, filter=filter))
        return answer_chain(retriever, self.embeddings, llm, get_by_ids=self.get_by_ids, window=window,
                            openings=openings, contents=contents, named=named)

    def ask(self, question: str, *, k: int = ANSWER_K, llm: Optional[rag.runnables.Runnable] = None,
            config: Optional[rag.runnables.RunnableConfig] = None,
            window: int = 1, openings: int = 2, contents: int = 1, named: int = 1) -> rag.index.answer.Answer:
        """Answer ``question`` from the best ``k`` chunks and their context, with its
        numbered sources (see :meth:`chain`; ``config``: a run config, e.g.
        ``{"callbacks": [...]}``)."""
        from rag.index.answer import Answer

        return Answer.from_result(self.chain(k=k, llm=llm, window=window, openings=openings, contents=contents,
                                             named=named).invoke({"input": question}, config))

    def chat(self, session: str = "default", *, llm: Optional[rag.runnables.Runnable] = None,
             k: int = ANSWER_K) -> rag.index.chat.ChatSession:
        """A :class:`~rag.index.chat.ChatSession`: a conversation kept in
        :attr:`chats_folder` as ``<session>.jsonl`` (surviving updates), follow-ups understood."""
        from rag.index.chat import ChatSession

        return ChatSession(self, session, llm=llm, k=k)
