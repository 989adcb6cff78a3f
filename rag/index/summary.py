"""What an update did (:class:`UpdateSummary`) and where its time went."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, TypeVar

__all__ = ["UpdateSummary", "timed"]

T = TypeVar("T")


@dataclass
class UpdateSummary:
    """What an update did. Counts are of sources (files, pages, BEIR documents) except
    ``documents`` (documents loaded), ``chunks`` (chunks embedded) and ``total_chunks``
    (in the index after the update). ``failed`` and ``skipped_files`` are ``(source,
    reason)`` pairs: a failed source is left as it was; a skipped file is not text.
    ``empty_roots``: roots that gave no source at all (an empty folder, a glob matching
    nothing), so that a caller can say so rather than report an empty index as success."""

    documents: int = 0
    chunks: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped_files: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    total_chunks: int = 0
    embeddings: str = ""
    empty_roots: list[str] = field(default_factory=list)
    #: Seconds per phase: ``read`` (loading files), ``split`` (boilerplate, splitting,
    #: queueing), ``embed`` (the model, overlapped with the rest), ``wait`` (reading blocked
    #: on the model), ``commit`` (writing checkpoints).
    phases: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "documents": self.documents, "chunks": self.chunks, "added": self.added, "updated": self.updated,
            "unchanged": self.unchanged, "deleted": self.deleted, "seconds": round(self.seconds, 3),
            "failed": [{"source": s, "reason": r} for s, r in self.failed],
            "skipped_files": [{"source": s, "reason": r} for s, r in self.skipped_files],
            "total_chunks": self.total_chunks, "embeddings": self.embeddings, "empty_roots": self.empty_roots,
            "phases": {name: round(seconds, 3) for name, seconds in self.phases.items()},
        }


def timed(items: Iterable[T], phases: dict[str, float], phase: str) -> Iterator[T]:
    """``items``, the seconds spent producing each (for an update's sources: reading and
    parsing files) added to ``phases[phase]``, measured with :func:`time.monotonic`."""
    iterator = iter(items)
    while True:
        began = time.monotonic()
        try:
            item = next(iterator)
        except StopIteration:
            phases[phase] += time.monotonic() - began
            return
        phases[phase] += time.monotonic() - began
        yield item
