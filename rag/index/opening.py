"""Which backend an index target names, opened or created: the one place that tells a
folder from a database (:func:`rag.index.backend.parse_target`) and builds its backend, for
:class:`rag.index.Index`'s ``exists``, ``open``, ``create`` and ``open_or_create``."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from rag.errors import ValidationError
from rag.hybrid import HybridConfig
from rag.index.backend import IndexBackend, Target, parse_target

__all__ = ["backend_exists", "open_backend", "create_backend", "open_or_create_backend"]


def backend_exists(target: Target, *, collection: str, token: Optional[str]) -> bool:
    """True when ``target`` (a folder, or a URI with ``collection``) holds an index."""
    kind, where = parse_target(target)
    if kind == "folder":
        from rag.index.backend_folder import FolderBackend

        return FolderBackend.exists(Path(where))
    from rag.index.engine import open_engine

    engine = open_engine(str(where), collection=collection, store=kind, token=token)
    try:
        return engine.read_config() is not None
    finally:
        engine.close()


def open_backend(target: Target, *, embeddings: Optional[str], collection: str, token: Optional[str],
                 warm_up: bool = False, lazy: bool = False) -> IndexBackend:
    """The backend of the index at ``target`` (see :meth:`rag.index.Index.open`). ``lazy``:
    a folder's vectors and texts are read only once a change needs them, under the write
    lock (for an update: no other commit replaces them in between)."""
    kind, where = parse_target(target)
    if kind == "folder":
        from rag.index.backend_folder import FolderBackend

        return FolderBackend.open(Path(where), embeddings=embeddings, warm_up=warm_up, lazy=lazy)
    from rag.index.backend_engine import EngineBackend

    return EngineBackend.open(str(where), create=False, collection=collection, embeddings=embeddings, store=kind,
                              token=token)


def create_backend(target: Target, *, embeddings: Optional[str], store: Optional[str], chunk_size: int,
                   chunk_overlap: int, hybrid: Optional[HybridConfig], collection: str,
                   token: Optional[str], must_be_new: bool = True) -> IndexBackend:
    """A backend for a new index at ``target`` (see :meth:`rag.index.Index.create`); with
    ``must_be_new=False``, a database index that exists already is opened instead."""
    kind, where = parse_target(target)
    if kind == "folder":
        from rag.index.backend_folder import FolderBackend

        return FolderBackend.create(Path(where), embeddings=embeddings, store=store, chunk_size=chunk_size,
                                    chunk_overlap=chunk_overlap, hybrid=hybrid)
    from rag.index.backend_engine import EngineBackend

    return EngineBackend.open(str(where), create=True, must_be_new=must_be_new, collection=collection,
                              embeddings=embeddings, store=store, chunk_size=chunk_size, chunk_overlap=chunk_overlap,
                              hybrid=hybrid, token=token)


def open_or_create_backend(target: Target, *, embeddings: Optional[str], store: Optional[str],
                           chunk_size: Optional[int], chunk_overlap: Optional[int], collection: str,
                           token: Optional[str]) -> IndexBackend:
    """The backend of the index at ``target``, or of a new one (see
    :meth:`rag.index.Index.open_or_create`): ``embeddings``, ``store`` and the chunking,
    when given, must be what an existing index was built with."""
    from rag.index.registry import check_embedding_spec, store_backend

    if embeddings is not None:
        check_embedding_spec(embeddings)
    if store is not None:
        store_backend(store)
    kind, where = parse_target(target)
    # For a new index: the chunking asked for, else the defaults.
    new_size, new_overlap = 1000 if chunk_size is None else chunk_size, 200 if chunk_overlap is None else chunk_overlap
    if kind != "folder" or not backend_exists(target, collection=collection, token=token):
        backend = create_backend(target, embeddings=embeddings, store=store if kind != "folder" else store or "faiss",
                                 chunk_size=new_size, chunk_overlap=new_overlap, hybrid=None, collection=collection,
                                 token=token, must_be_new=False)
        if kind == "folder":
            return backend
    else:
        backend = open_backend(target, embeddings=embeddings, collection=collection, token=token, lazy=True)
        if store is not None and store != backend.config.store:
            raise ValidationError(f"the index at {where} uses --store {backend.config.store}; drop --store, or "
                                  "rebuild with a new --index folder")
    config = backend.config
    asked = config.with_chunking(chunk_size, chunk_overlap)
    if asked != config:
        backend.close()
        raise ValidationError(
            f"the index at {backend.where} chunks by {config.chunk_size}/{config.chunk_overlap} "
            f"(chunk_size/chunk_overlap), not {asked.chunk_size}/{asked.chunk_overlap}; open it without them, "
            "or re-chunk it with update(SOURCES, chunk_size=..., chunk_overlap=...) naming every root")
    return backend
