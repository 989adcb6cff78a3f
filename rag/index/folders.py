"""Checks on an index folder before it is opened or created: what kind of folder it is, and
which embeddings built it (read from its manifest, without loading anything else)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from rag.errors import EmbeddingMismatchError, RagError, StorageError, ValidationError
from rag.index.registry import check_embedding_spec
from rag.index.segments import read_manifest
from rag.index.state import KIND

__all__ = ["check_kind", "check_spec_matches", "saved_manifest"]


def saved_manifest(path: Path) -> dict[str, Any]:
    """The manifest at ``path``, or {} when it cannot be read (loading then says why)."""
    try:
        return read_manifest(path)
    except (OSError, RagError):
        return {}


def check_kind(path: Path) -> None:
    """Refuse a folder saved by a bare store (``FAISS.save_local``, ``dump``, the former
    ``rag demo``), saying how to get on, before anything reads or replaces it."""
    kind = saved_manifest(path).get("store_class")
    if isinstance(kind, str) and kind != KIND:
        raise StorageError(
            f"{path} holds a {kind} index, not a RagIndex (a store saved on its own, e.g. by {kind}.save_local or "
            f"the former rag demo); choose another --index folder, or delete {path} if you no longer need it"
        )


def check_spec_matches(path: Path, spec: str) -> None:
    """Refuse ``spec`` unless it is the embeddings spec the index at ``path`` was built with."""
    check_embedding_spec(spec)
    saved = (saved_manifest(path).get("config") or {}).get("embedding_spec")
    if saved is None:
        return  # loading reports what is wrong with the folder
    if saved != spec:
        raise EmbeddingMismatchError(
            f"the index at {path} was built with --embeddings {saved}, not {spec}; drop --embeddings (embeddings=) "
            f"to use {saved}, or rebuild it: delete {path} (or choose a new --index folder) and index again"
        )


def check_excludes(exclude: Sequence[str]) -> tuple[str, ...]:
    """The gitignore-style ``exclude`` patterns of an update, checked: a list of non-empty
    strings (a single string is refused, not read as one pattern per character)."""
    if isinstance(exclude, str) or not all(isinstance(pattern, str) and pattern for pattern in exclude):
        raise ValidationError(f"exclude must be a list of glob patterns such as ['*.txt', 'drafts/'], got {exclude!r}")
    return tuple(exclude)
