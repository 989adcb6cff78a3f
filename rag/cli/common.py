"""What the command line's handlers share: its own error class, and the index the arguments
name (a folder, or a shared index in PostgreSQL)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Optional

from rag.errors import RagError

__all__ = ["RagCliError", "index_path", "store_uri", "open_index"]


class RagCliError(RagError):
    """A user error found by the command line itself."""


def index_path(args: argparse.Namespace) -> Path:
    from rag.index import default_index_path

    return args.index if args.index is not None else default_index_path()


def store_uri(args: argparse.Namespace) -> Optional[str]:
    """The database URI when the index is shared (--store-uri, or $RAG_STORE_URI with
    --store pgvector); None for a folder index."""
    import os

    uri = args.store_uri or ((os.environ.get("RAG_STORE_URI") or None) if getattr(args, "store", None) == "pgvector" else None)
    if uri is None and getattr(args, "store", None) == "pgvector":
        raise RagCliError("--store pgvector keeps the index in PostgreSQL: give --store-uri URI (or $RAG_STORE_URI)")
    if uri is None and args.collection is not None:
        raise RagCliError("--collection names a shared index: give --store-uri URI too")
    if uri is not None and args.index is not None:
        raise RagCliError("--index is a folder index and --store-uri a shared one: give one of them")
    return uri


def open_index(args: argparse.Namespace, *, warm_up: bool = False) -> Any:
    """The index the arguments name; ``warm_up``: the command embeds a query next, so a
    folder index loads its local model while it is read."""
    from rag.index import Index

    uri = store_uri(args)
    if uri is not None:
        from rag.index.shared import DEFAULT_COLLECTION, SharedIndex

        return SharedIndex.open(uri, collection=args.collection or DEFAULT_COLLECTION)
    return Index.open(index_path(args), warm_up=warm_up)
