"""The ids an index gives its chunks, and what they say about where a chunk sits.

A chunk's id is ``<stem>-<n>``: ``stem`` is the first 16 hex digits of the SHA-1 of its
source (path or URL), ``n`` its position in that source (from 0, at least five digits).
Ids are therefore stable across runs for unchanged sources, and a chunk's neighbours in
its document can be named without reading the index's record.
"""

from __future__ import annotations

import hashlib
import re
from typing import Optional

from rag.documents import Document
from rag.errors import CorruptIndexError

__all__ = ["chunk_ids", "chunk_position", "around", "stored_id"]

_ID = re.compile(r"^([0-9a-f]{16})-(\d{5,})$")


def chunk_ids(source: str, count: int) -> list[str]:
    """The ids of the ``count`` chunks of ``source``, in document order.

    >>> chunk_ids("a.html", 2)[1].endswith("-00001")
    True
    """
    stem = hashlib.sha1(source.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return [f"{stem}-{n:05d}" for n in range(count)]


def chunk_position(chunk_id: object) -> Optional[tuple[str, int]]:
    """``(stem, n)`` of an index's chunk id; None for any other id (a store filled by
    hand, ids of another scheme)."""
    found = _ID.match(chunk_id) if isinstance(chunk_id, str) else None
    return (found.group(1), int(found.group(2))) if found else None


def around(stem: str, n: int, window: int) -> list[str]:
    """The ids of chunks ``n - window`` to ``n + window`` of a document (from chunk 0;
    ids past its last chunk name nothing and are skipped by a store's ``get_by_ids``)."""
    return [f"{stem}-{i:05d}" for i in range(max(0, n - window), n + window + 1)]


def stored_id(chunk: Document) -> str:
    """The id of a chunk read back from an index's store, which gives every chunk one
    (``Document.id`` is optional only for documents not stored yet)."""
    if chunk.id is None:
        raise CorruptIndexError(f"the index's store returned a chunk without an id: {chunk.page_content[:60]!r}")
    return chunk.id
