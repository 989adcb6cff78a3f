"""What an update would index, without indexing: files, bytes, estimated chunks and
embedding time per file type, and how good the estimate is.

The estimate comes from the files themselves: a sample of each type is loaded by the
loader an update uses and split by its splitter, and each type's chunks are estimated as
its bytes times the sample's chunks per byte (a ratio estimator). Markup (HTML's tags, a
PDF's structure) makes a file's bytes a poor guide to its text, which is why dividing
bytes by the chunk step (the former estimate) overshot HTML about threefold; the sample
measures each type's own ratio. With every file of a type sampled the count is exact;
otherwise the 95% margin is ``1.96 * N * sqrt((1 - n/N) * s2 / n)``, with ``s2`` the
variance of the sample's chunks around the ratio's prediction (n sampled files of N).

Measured by ``benchmarks/dry_run_estimate.py`` (chunks predicted, then made by an update):
PostgreSQL 15's HTML manual, 1,168 files: 9,495 +/- 1,657 for 9,247 (+2.7%; bytes over
the chunk step said 20,171, +118%); git's documentation, 294 files: 4,427 +/- 757 for
4,843 (-8.6%; formerly 12,006, +148%). The sample costs well under a second there.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from rag.embeddings.base import Embeddings
from rag.index.config import IndexConfig
from rag.index.sources import PreviousRead, Root, folder_selection, unchanged_since
from rag.index.workers import embed_in_batches

__all__ = ["TypeEstimate", "DryRun", "dry_run"]

#: Chunks embedded to measure the model's rate (chunks of the sampled files).
_SAMPLE_CHUNKS = 32
#: Files loaded and split per file type, at most (spread evenly over the type's files).
SAMPLE_FILES_PER_TYPE = 32
#: Bytes loaded for the samples of all types together, at most (a type's first sample
#: file is loaded whatever its size, so that every type is measured).
SAMPLE_BYTES = 16 * 1024 * 1024
_Z95 = 1.96


@dataclass
class TypeEstimate:
    """One file type (suffix, ``""`` for none): ``files``, ``bytes``, estimated ``chunks``
    and embedding ``seconds`` at the measured rate; ``sampled``: files loaded and split
    to estimate it; ``margin``: the 95% margin of ``chunks`` (0 when every file was
    sampled: exact; None when one file of several was, too few to say)."""

    suffix: str
    files: int
    bytes: int
    chunks: int
    seconds: float
    sampled: int = 0
    margin: Optional[float] = 0.0


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

    @property
    def sampled_files(self) -> int:
        return sum(t.sampled for t in self.types)

    @property
    def chunks_margin(self) -> Optional[float]:
        """The 95% margin of :attr:`chunks` (types are sampled independently: their
        variances add); 0 when exact, None when some type's cannot be told."""
        if any(t.margin is None for t in self.types):
            return None
        return math.sqrt(sum((t.margin or 0.0) ** 2 for t in self.types))

    def to_json(self) -> dict[str, Any]:
        margin = self.chunks_margin
        return {
            "types": [t.__dict__ for t in self.types], "files": self.files, "chunks": self.chunks,
            "chunks_margin": None if margin is None else round(margin, 1), "sampled_files": self.sampled_files,
            "seconds": round(self.seconds, 1), "rate": round(self.rate, 2),
            "skipped": [{"source": s, "reason": r} for s, r in self.skipped], "not_estimated": self.not_estimated,
            "unchanged": self.unchanged, "unchanged_bytes": self.unchanged_bytes,
        }


def dry_run(roots: Sequence[Root], config: IndexConfig, embeddings: Embeddings, *, glob: Optional[str] = None,
            excludes: Sequence[str] = (), index_folder: Optional[Path] = None,
            previous: PreviousRead = lambda source: None) -> DryRun:
    """Select the files of ``roots`` as an update would and estimate the work from a
    sample of each type loaded and split as the update would (see the module
    docstring), and time from ``embeddings``' rate on the sample's chunks. Files
    unchanged since ``previous`` read them (see :func:`~rag.index.sources.iter_root`)
    are counted apart: the update would not read them."""
    report = DryRun()
    by_suffix: dict[str, list[tuple[Path, int]]] = {}
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
            if size is not None:
                report.unchanged += 1
                report.unchanged_bytes += size
                continue
            try:
                size = path.stat().st_size
            except OSError:
                size = 0  # gone or unreadable: the update will report it
            by_suffix.setdefault(path.suffix.lower(), []).append((path, size))
    sampler = _Sampler(config)
    estimates = [(suffix, files, sampler.estimate(files)) for suffix, files in by_suffix.items()]
    report.rate = _measure_rate(sampler.texts, embeddings)
    for suffix, files, (chunks, sampled, margin) in sorted(estimates, key=lambda e: -sum(s for _, s in e[1])):
        report.types.append(TypeEstimate(suffix, len(files), sum(size for _, size in files), round(chunks),
                                         chunks / report.rate if report.rate else 0.0, sampled, margin))
    return report


class _Sampler:
    """Loads and splits sample files as an update would, within :data:`SAMPLE_BYTES`."""

    def __init__(self, config: IndexConfig) -> None:
        from loaders import DirectoryLoader
        from splitters import RecursiveCharacterTextSplitter

        self.splitter = RecursiveCharacterTextSplitter(chunk_size=config.chunk_size,
                                                       chunk_overlap=config.chunk_overlap, add_start_index=True)
        self.loader_class = DirectoryLoader
        self.budget = SAMPLE_BYTES
        self.texts: list[str] = []  # the first chunks met, to time the model on

    def chunks_of(self, path: Path) -> int:
        """The chunks an update would make of ``path`` (0 when it fails or is skipped, as
        the update would store none)."""
        try:
            documents = self.loader_class(str(path.parent), silent_errors=True).load_path(path)
        except Exception:  # noqa: BLE001 -- the update reports it as failed: no chunks
            return 0
        if not documents:
            return 0
        chunks = self.splitter.split_documents(documents)
        if len(self.texts) < _SAMPLE_CHUNKS:
            self.texts.extend(c.page_content for c in chunks[:_SAMPLE_CHUNKS - len(self.texts)] if c.page_content.strip())
        return len(chunks)

    def estimate(self, files: list[tuple[Path, int]]) -> tuple[float, int, Optional[float]]:
        """``(chunks, files sampled, 95% margin)`` for one type's ``files`` (path, bytes)."""
        ordered = sorted(files)
        count = min(len(ordered), SAMPLE_FILES_PER_TYPE)
        # Evenly spread over the sorted paths (folders of a site differ), deterministic.
        picks = [ordered[(n * len(ordered)) // count] for n in range(count)]
        sample: list[tuple[int, int]] = []  # (bytes, chunks)
        for path, size in picks:
            if sample and size > self.budget:
                continue  # over the budget: the type is measured already
            self.budget -= size
            sample.append((size, self.chunks_of(path)))
        total_bytes = sum(size for _, size in files)
        sampled_bytes = sum(size for size, _ in sample)
        if len(sample) == len(files):
            return float(sum(chunks for _, chunks in sample)), len(sample), 0.0
        ratio = sum(chunks for _, chunks in sample) / sampled_bytes if sampled_bytes else 0.0
        estimate = ratio * total_bytes
        n, population = len(sample), len(files)
        if n < 2:
            return estimate, n, None
        spread = sum((chunks - ratio * size) ** 2 for size, chunks in sample) / (n - 1)
        margin = _Z95 * population * math.sqrt((1 - n / population) * spread / n)
        return estimate, n, margin


def _measure_rate(texts: Sequence[str], embeddings: Embeddings) -> float:
    """Chunks per second of ``embeddings`` on the sample's chunks (the model loads
    before the clock starts)."""
    if not texts:
        return 0.0
    embed_in_batches(embeddings, list(texts[:1]), None)  # warm up: model load, first-call costs
    began = time.perf_counter()
    embed_in_batches(embeddings, list(texts), None)
    return len(texts) / max(time.perf_counter() - began, 1e-9)
