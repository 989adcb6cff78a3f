"""What the command line's handlers share: its own error class, and the index the arguments
name (a folder, or an index kept in PostgreSQL or Milvus)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Union

from rag.errors import RagError

if TYPE_CHECKING:
    from rag.index import Index

__all__ = ["RagCliError", "add_index_arguments", "add_allow_embeddings", "index_path", "store_uri", "store_token", "IndexTarget",
           "index_target", "open_index"]

#: Where --store pgvector|milvus finds its URI when --store-uri is not given, in order.
_URI_VARIABLES = {"pgvector": ("RAG_STORE_URI",), "milvus": ("RAG_STORE_URI", "MILVUS_URI")}
_WHAT = {"pgvector": "PostgreSQL", "milvus": "Milvus"}


class RagCliError(RagError):
    """A user error found by the command line itself."""


def add_index_arguments(sub: argparse.ArgumentParser, *, index_help: str = "index folder (default ./.rag, or "
                        "$RAG_INDEX)") -> None:
    """``--index DIR``, ``--store-uri URI`` and ``--collection NAME``: where a command's index is."""
    sub.add_argument("--index", type=Path, default=None, help=index_help)
    sub.add_argument("--store-uri", metavar="URI", default=None,
                     help="an index kept in a database instead of a folder: PostgreSQL + pgvector "
                          "(postgresql://user@host/db, postgresql://user@/db?host=/socket/dir) or Milvus "
                          "(http://milvus-host:19530) (default $RAG_STORE_URI, or $MILVUS_URI with --store milvus; "
                          "PostgreSQL passwords from $PGPASSWORD or ~/.pgpass, Milvus's token from $MILVUS_TOKEN)")
    sub.add_argument("--collection", metavar="NAME", default=None,
                     help="the index's name in the database (default rag)")


def add_allow_embeddings(sub: argparse.ArgumentParser) -> None:
    """``--embeddings SPEC``: the model server an index folder's queries may be sent to
    (see :mod:`rag.index.remote`; read by :func:`open_index`)."""
    sub.add_argument("--embeddings", dest="query_embeddings", metavar="openai:MODEL",
                     help="allow the embeddings server the index was built with (an index folder never sends a "
                     "query to a server you did not name here or in $RAG_ALLOW_EMBEDDINGS)")


def index_path(args: argparse.Namespace) -> Path:
    from rag.index import default_index_path

    return args.index if args.index is not None else default_index_path()


def store_uri(args: argparse.Namespace) -> Optional[str]:
    """The database URI when the index is shared (--store-uri; with --store pgvector also
    $RAG_STORE_URI, with --store milvus $RAG_STORE_URI or $MILVUS_URI; for commands without
    --store, $RAG_STORE_URI unless --index is given); None for a folder index."""
    import os

    store: Optional[str] = getattr(args, "store", None)
    variables = _URI_VARIABLES.get(store, ()) if store is not None else ()
    uri = args.store_uri or next((os.environ[v] for v in variables if os.environ.get(v)), None)
    if uri is None and args.index is None and not hasattr(args, "store"):
        # search, ask, info, chat name no --store: $RAG_STORE_URI, as `rag index` reads it,
        # is their shared index unless --index names a folder (the engine is in the URI).
        uri = os.environ.get("RAG_STORE_URI") or None
    if uri is None and store is not None and variables:
        raise RagCliError(f"--store {store} keeps the index in {_WHAT[store]}: give --store-uri URI (or "
                          f"{' or '.join('$' + v for v in variables)})")
    if uri is None and args.collection is not None:
        raise RagCliError("--collection names a shared index: give --store-uri URI too")
    if uri is not None and args.index is not None:
        raise RagCliError("--index is a folder index and --store-uri a shared one: give one of them")
    return uri


@dataclass(frozen=True)
class IndexTarget:
    """Where the arguments' index is, as ``Index.open``'s arguments: ``target`` (a database
    URI, or the folder) with the ``collection`` and ``token`` that go with a URI (for a
    folder, ``Index.open``'s defaults, which it ignores)."""

    target: Union[str, Path]
    collection: str = "rag"
    token: Optional[str] = None


def index_target(args: argparse.Namespace) -> IndexTarget:
    """The :class:`IndexTarget` the arguments name."""
    uri = store_uri(args)
    if uri is None:
        return IndexTarget(index_path(args))
    return IndexTarget(uri, args.collection or "rag", store_token(uri))


def open_index(args: argparse.Namespace, *, warm_up: bool = False) -> Index:
    """The index the arguments name; ``warm_up``: the command embeds a query next, so a
    folder index loads its local model while it is read (and an embeddings server the
    folder names but nobody allowed is refused at once). ``--embeddings`` (where the
    command has it) allows a folder's embeddings server (see :mod:`rag.index.remote`)."""
    from rag.index import Index

    from rag.index.remote import NotAllowedEmbeddings

    where = index_target(args)
    index = Index.open(where.target, warm_up=warm_up, collection=where.collection, token=where.token,
                       embeddings=getattr(args, "query_embeddings", None))
    if warm_up and isinstance(index.embeddings, NotAllowedEmbeddings):
        # A command about to embed (a server above all) stops now, not at every request.
        raise index.embeddings.error()
    return index


def store_token(uri: str) -> Optional[str]:
    """Milvus's token from $MILVUS_TOKEN when ``uri`` names a Milvus server (never from
    the command line, where ps shows it); None otherwise."""
    import os

    from rag.index.backend import parse_target

    return (os.environ.get("MILVUS_TOKEN") or None) if parse_target(uri)[0] == "milvus" else None
