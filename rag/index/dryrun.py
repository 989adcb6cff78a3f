"""What an update would index, without indexing: files, bytes, estimated chunks and
embedding time per file type."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from rag.embeddings.base import Embeddings
from rag.index.config import IndexConfig
from rag.index.sources import PreviousRead, Root, folder_selection, unchanged_since
from rag.index.workers import embed_in_batches

__all__ = ["TypeEstimate", "DryRun", "dry_run"]

#: Chunks embedded to measure the model's rate (texts of the sources themselves).
_SAMPLE_CHUNKS = 32


@dataclass
class TypeEstimate:
    """One file type (suffix, ``""`` for none): ``files``, ``bytes``, estimated ``chunks``
    and embedding ``seconds`` at the measured rate."""

    suffix: str
    files: int
    bytes: int
    chunks: int
    seconds: float


@dataclass
class DryRun:
    """What an update would read. ``rate``: chunks embedded per second, measured on a
    sample of the sources (0 when there was nothing to measure); ``skipped``: ``(path,
    reason)`` of every file left out; ``not_estimated``: roots whose contents are only
    known by fetching them (URLs); ``unchanged`` (files) and ``unchanged_bytes``: files
    the index holds as they are now, which the update would not read (not in ``types``)."""

    types: list[TypeEstimate] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    unchanged: int = 0
    unchanged_bytes: int = 0
    not_estimated: list[str] = field(default_factory=list)
    rate: float = 0.0

    @property
    def files(self) -> int:
        return sum(t.files for t in self.types)

    @property
    def chunks(self) -> int:
        return sum(t.chunks for t in self.types)

    @property
    def seconds(self) -> float:
        return sum(t.seconds for t in self.types)

    def to_json(self) -> dict[str, Any]:
        return {
            "types": [t.__dict__ for t in self.types], "files": self.files, "chunks": self.chunks,
            "seconds": round(self.seconds, 1), "rate": round(self.rate, 2),
            "skipped": [{"source": s, "reason": r} for s, r in self.skipped], "not_estimated": self.not_estimated,
            "unchanged": self.unchanged, "unchanged_bytes": self.unchanged_bytes,
        }


def dry_run(roots: Sequence[Root], config: IndexConfig, embeddings: Embeddings, *, glob: Optional[str] = None,
            excludes: Sequence[str] = (), index_folder: Optional[Path] = None,
            previous: PreviousRead = lambda source: None) -> DryRun:
    """Select the files of ``roots`` as an update would and estimate the work: chunks from
    the bytes (``bytes / (chunk_size - chunk_overlap)``, an upper bound for markup, whose
    text is shorter than its file) and time from ``embeddings``' rate on a sample. Files
    unchanged since ``previous`` read them (see :func:`~rag.index.sources.iter_root`) are
    counted apart: the update would not read them."""
    report = DryRun()
    files: list[Path] = []
    for root in roots:
        if root.kind == "file":
            candidates = [(Path(root.key), root.key)]
        elif root.kind == "folder":
            selection = folder_selection(root, glob, excludes, index_folder)
            candidates = [(path, str(path.resolve())) for path in selection.files]
            report.skipped.extend(selection.skipped)
        else:
            report.not_estimated.append(root.key)
            continue
        for path, source in candidates:
            size = unchanged_since(path, previous(source))
            if size is None:
                files.append(path)
            else:
                report.unchanged += 1
                report.unchanged_bytes += size
    report.rate = _measure_rate(files, config, embeddings)
    step = max(1, config.chunk_size - config.chunk_overlap)
    by_suffix: dict[str, list[int]] = {}  # suffix -> [files, bytes, chunks]
    for path in files:
        entry = by_suffix.setdefault(path.suffix.lower(), [0, 0, 0])
        entry[0] += 1
        try:
            size = path.stat().st_size
        except OSError:
            continue  # gone or unreadable: the update will report it
        entry[1] += size
        entry[2] += -(-size // step)  # each file's chunks, rounded up
    for suffix, (count, size, chunks) in sorted(by_suffix.items(), key=lambda item: -item[1][1]):
        report.types.append(TypeEstimate(suffix, count, size, chunks, chunks / report.rate if report.rate else 0.0))
    return report


def _measure_rate(files: Sequence[Path], config: IndexConfig, embeddings: Embeddings) -> float:
    """Chunks per second of ``embeddings`` on up to :data:`_SAMPLE_CHUNKS` chunks of the
    first readable files (the model loads before the clock starts)."""
    texts: list[str] = []
    step = max(1, config.chunk_size - config.chunk_overlap)
    for path in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        texts.extend(text[start:start + config.chunk_size] for start in range(0, len(text), step))
        if len(texts) >= _SAMPLE_CHUNKS:
            break
    texts = [t for t in texts if t.strip()][:_SAMPLE_CHUNKS]
    if not texts:
        return 0.0
    embed_in_batches(embeddings, texts[:1], None)  # warm up: model load, first-call costs
    began = time.perf_counter()
    embed_in_batches(embeddings, texts, None)
    return len(texts) / max(time.perf_counter() - began, 1e-9)
