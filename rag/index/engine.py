"""The seam between an index kept in a database (:class:`rag.index.backend_engine.EngineBackend`)
and the database engine that holds it.

Such an index keeps everything in the engine: the chunks (a vector store), the record of
indexed sources, its configuration and the lexical side of hybrid search. The backend is
written once, against :class:`IndexEngine`; each engine
(PostgreSQL + pgvector: :mod:`rag.index.engine_pgvector`; Milvus:
:mod:`rag.index.engine_milvus`) says where those four things live and how concurrent
updates are kept apart. An engine is registered as a store backend with
``index_engine="module:Class"`` (see :mod:`rag.index.registry`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, ContextManager, Optional, Protocol, Sequence

from rag.documents import Document
from rag.errors import ValidationError
from rag.index.registry import store_backend, store_names
from rag.index.state import SourceRecord

if TYPE_CHECKING:
    from rag.embeddings.base import Embeddings
    from stores.base import VectorStore

__all__ = ["SourceRecord", "IndexEngine", "open_engine", "engine_name_for_uri", "local_folder"]


class IndexEngine(Protocol):
    """Where a shared index's parts live in one engine. Constructed as
    ``Engine(uri, collection=NAME, token=TOKEN)``; connects at once."""

    #: The registered store backend name (``pgvector``, ``milvus``), saved in the config.
    store_name: str
    #: What ``info()`` reports as the store, e.g. ``"PGVector + PostgreSQL full-text search"``.
    description: str
    #: Whether the lexical side ranks by BM25 (False: the database's own full-text rank).
    exact_bm25: bool
    #: What the index can do beyond the common operations (see :mod:`rag.index.backend`).
    capabilities: frozenset[str]

    @property
    def where(self) -> str:
        """The engine's URI without credentials and the collection: safe to print."""

    def read_config(self) -> Optional[dict[str, Any]]:
        """The saved configuration (:meth:`IndexConfig.to_json`), None when there is no index."""

    def open_store(self, embeddings: Embeddings) -> VectorStore:
        """The vector store holding the chunks, over ``embeddings`` (checked against the
        model the collection was built with)."""

    def records(self) -> dict[str, SourceRecord]:
        """source -> its record, as every update finished so far left them."""

    def save_record(self, source: str, record: SourceRecord) -> None:
        """Remember ``source`` (replacing its earlier record)."""

    def held_chunk_ids(self, source: str, record: SourceRecord) -> list[str]:
        """The ids of the chunks of ``source`` (recorded as ``record``) the engine holds:
        what a change of the source must replace or delete."""

    def forget_record(self, source: str) -> None:
        """Forget ``source`` (its chunks are deleted before)."""

    def updating(self) -> ContextManager[None]:
        """Held for the whole of an update: what it excludes (PostgreSQL: every other
        update of the index; Milvus: nothing) is the engine's to say."""

    def transaction(self) -> ContextManager[None]:
        """Around one commit's chunk writes and records: all or nothing where the engine
        can (PostgreSQL: one transaction); Milvus: no transaction (its write stamps order
        the writes instead)."""

    def chunks_changing(self) -> None:
        """Called before each write or delete of chunks: the lexical side learns (or the
        engine remembers) that the chunks are changing, in case the writer dies before
        :meth:`chunks_changed`."""

    def chunks_changed(self) -> None:
        """Called after each write or delete of chunks, before the record that names them:
        the lexical side catches up (or learns that it must)."""

    def save_config(self, config: dict[str, Any]) -> None:
        """Save the configuration (after an update that left chunks)."""

    def lexical_search(self, query: str, k: int, filter: Any) -> list[tuple[Document, float]]:
        """The ``k`` best lexical matches of ``query``, ``(chunk, score)``, best first;
        ``filter`` in the stores' dict language (or None)."""

    def lexical_scores(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        """chunk id -> the lexical score of ``query`` for each chunk of ``ids`` that
        :meth:`lexical_search` would report (0: no query term; unknown ids may be left
        out), in one round trip."""

    def size_bytes(self) -> int:
        """Bytes the index takes in the engine (0 when the engine does not say)."""

    def close(self) -> None:
        """Disconnect (the index stays in the engine)."""


_SERVERS = {"milvus": "Milvus", "pgvector": "PostgreSQL"}


def engine_name_for_uri(uri: str) -> str:
    """The engine a URI names (see :func:`rag.index.backend.parse_target`): ``milvus`` for
    ``http(s)://``, ``tcp://`` or ``grpc://`` (Milvus's proxy), else ``pgvector``
    (``postgresql://...`` and libpq's other forms)."""
    from rag.index.backend import parse_target

    kind = parse_target(str(uri))[0]
    return "pgvector" if kind == "folder" else kind


def local_folder(kind: str, where: str, collection: str) -> Path:
    """A folder on this machine for what belongs to the index ``collection`` on the server
    ``where`` (a URI without credentials): ``kind`` is ``chats``, ``milvus-bm25``..."""
    from rag.embeddings._model_files import cache_dir

    key = hashlib.sha256(f"{where}\0{collection}".encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return cache_dir() / kind / f"{collection[:40]}-{key}"


def open_engine(uri: str, *, collection: str, store: Optional[str] = None, token: Optional[str] = None) -> IndexEngine:
    """The engine holding the shared index ``collection`` at ``uri``: the one ``store``
    names, else the one the URI's scheme names. ``token`` (Milvus only): the server's
    token, ``user:password`` or an API key."""
    from rag.index.registry import _resolve

    name = store if store is not None else engine_name_for_uri(uri)
    backend = store_backend(name)
    if backend.index_engine is None:
        shared = [n for n in store_names() if store_backend(n).index_engine is not None]
        raise ValidationError(f"store {name!r} keeps an index in a folder, not at a URI; a shared index needs "
                              f"--store {' or --store '.join(shared)}")
    if store is not None and engine_name_for_uri(uri) != name:
        from stores._uri import redact_uri

        raise ValidationError(f"--store {name} cannot use the URI {redact_uri(str(uri))!r:.80}: it names a "
                              f"{_SERVERS[engine_name_for_uri(uri)]} server")
    backend.cls()  # a missing extra is named before anything connects
    return _resolve(backend.index_engine)(uri, collection=collection, token=token)
