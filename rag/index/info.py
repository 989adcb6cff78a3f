"""What an index holds, as ``Index.info()`` and ``rag info`` report it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

__all__ = ["IndexInfo"]


@dataclass(frozen=True)
class IndexInfo:
    """What an index holds (``size_on_disk_bytes``: for a folder index, the manifest plus
    the files it names, with the sizes it gives them (no walk of the folder, which a
    concurrent commit changes under it); 0 before a save)."""

    index: str
    embeddings: str
    model_id: Optional[str]
    dimension: Optional[int]
    store: str
    sources: int
    chunks: int
    bm25: bool
    chunk_size: int
    chunk_overlap: int
    size_on_disk_bytes: int
    roots: list[str]
    hybrid: dict[str, Any]
    saved_at: Optional[str]

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)
