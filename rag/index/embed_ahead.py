"""Embedding one checkpoint while the next one is read and split.

An update alternates two kinds of work: reading and splitting sources (Python, one core)
and embedding chunks (the model, every core it is given). Done one after the other, the
model waits while a batch of files is parsed, and the parser waits while the model runs.
:class:`EmbedAhead` runs each checkpoint's embedding in one background thread (the model
releases the GIL while it computes) while the update's own thread reads the next sources,
and commits the checkpoints in the order they were made, from the update's thread (the
backend's commits and reads never run concurrently with each other).

At most one checkpoint is embedding while the next is being prepared: memory holds two
checkpoints' chunks at most (each at most ``checkpoint_chunks``, default 512), whatever the
corpus size. A checkpoint is committed as soon as its vectors are ready
(:meth:`EmbedAhead.poll` after each source) or, at the latest, before the next one starts
embedding, so a crash loses at most the checkpoint in flight, as before. If the update's
thread fails, the checkpoint in flight is still committed when its vectors arrive (it was
complete when it was handed over); if its embedding fails, that error is raised by the
next call into this object and nothing of that checkpoint is written.

A text met again within an update is not embedded again: the vectors of the texts embedded
last are kept by digest, up to 32 MiB (:class:`RecentVectors`).

``phases`` accumulates where the time went, in seconds: ``embed`` (the model, in its
thread), ``commit`` (writing checkpoints) and ``wait`` (the update's thread blocked until
the model finished a checkpoint: the part of the embedding the reading did not hide).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from rag.index.segments import Batch
from rag.index.workers import Embedder, Progress

__all__ = ["EmbedAhead", "RecentVectors", "serialized", "text_digest"]


@dataclass
class _InFlight:
    batch: Batch
    to_embed: list[int]  # rows of the batch the model embeds
    reused: dict[int, np.ndarray]  # rows whose stored vector is reused
    vectors: "Future[np.ndarray]"
    final: bool


def serialized(progress: Optional[Progress]) -> Optional[Progress]:
    """``progress`` behind a lock: the update's thread reports loading while the model's
    thread reports embedding, and a progress printer is not expected to be thread-safe."""
    if progress is None:
        return None
    lock = threading.Lock()

    def report(stage: str, done: int, total: int) -> None:
        with lock:
            progress(stage, done, total)

    return report


def text_digest(text: str) -> bytes:
    """A 16-byte digest of ``text`` (maps keyed by it hold no texts)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class RecentVectors:
    """The vectors of the texts embedded last, by text digest, up to ``budget`` bytes of
    vectors (default 32 MiB: 21,845 vectors of 384 floats): equal texts have equal vectors,
    so a text met again (a manual repeats whole passages across its pages: 9 % of git's
    chunks) is not embedded again. The oldest are forgotten first."""

    def __init__(self, budget: int = 32 << 20) -> None:
        self.budget = budget
        self._vectors: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._bytes = 0

    def embed(self, texts: list[str], embed: Callable[[list[str]], np.ndarray]) -> np.ndarray:
        """``embed(texts)``'s float32 matrix, calling ``embed`` only with the distinct
        texts not kept here."""
        keys = [text_digest(text) for text in texts]
        missing: dict[bytes, str] = {}
        for key, text in zip(keys, texts):
            if key not in self._vectors:
                missing.setdefault(key, text)
        fresh = embed(list(missing.values())) if missing or not texts else None
        if not texts:
            assert fresh is not None
            return fresh
        known = {key: vector for key, vector in zip(missing, fresh)} if fresh is not None else {}
        out = np.stack([known[key] if key in known else self._vectors[key] for key in keys]).astype(np.float32)
        for key, vector in known.items():
            self._remember(key, vector)
        return out

    def _remember(self, key: bytes, vector: np.ndarray) -> None:
        self._vectors[key] = vector = vector.copy()  # a row of its own, not a view keeping the batch alive
        self._bytes += vector.nbytes
        while self._bytes > self.budget and self._vectors:
            _, dropped = self._vectors.popitem(last=False)
            self._bytes -= dropped.nbytes


class EmbedAhead:
    """Embeds checkpoints in a background thread, commits them in order.

    ``commit(batch, final)`` writes a checkpoint (called from the thread that calls
    :meth:`put`, :meth:`poll` and :meth:`drain`); ``committed(batch)`` is told after each
    write. ``dimension()`` gives the index's vector length (None before its first vectors).
    ``clock``: seconds, monotonic, for the rate and ``phases`` (default :func:`time.monotonic`).
    """

    def __init__(self, embedder: Embedder, commit: Callable[[Batch, bool], None],
                 committed: Callable[[Batch], None], dimension: Callable[[], Optional[int]],
                 progress: Optional[Progress] = None, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.embedder, self.commit, self.committed, self.dimension = embedder, commit, committed, dimension
        self.progress, self.clock = progress, clock
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="rag-embed")
        self._in_flight: Optional[_InFlight] = None
        self._recent = RecentVectors()  # touched by one thread at a time (see put)
        self._embedded = 0  # chunks embedded so far, for progress
        #: Seconds per chunk of the last checkpoint embedded (None before the first).
        self.seconds_per_chunk: Optional[float] = None
        #: Seconds spent per phase (see the module's docstring).
        self.phases: dict[str, float] = {"embed": 0.0, "commit": 0.0, "wait": 0.0}

    def put(self, batch: Batch, to_embed: list[int], reused: dict[int, np.ndarray], *, final: bool,
            upcoming: int = 0) -> None:
        """Hand over a checkpoint: ``to_embed`` rows of ``batch`` need vectors, ``reused``
        rows have theirs; ``upcoming``: chunks already found that later checkpoints will
        bring (the rest of a large file), counted in the progress total. The previous
        checkpoint is committed first; a final one (nothing left to read) is embedded and
        committed before this returns."""
        self.drain()
        texts = [batch.texts[row] for row in to_embed]
        dimension = self.dimension() if batch.ids else None
        inline = final or not texts
        if inline:
            vectors: Future[np.ndarray] = Future()
            vectors.set_result(self._embed(texts, dimension, upcoming))
        else:
            vectors = self._executor.submit(self._embed, texts, dimension, upcoming)
        self._in_flight = _InFlight(batch, to_embed, reused, vectors, final)
        if inline:
            self.drain()

    @property
    def busy(self) -> bool:
        """Whether a checkpoint is in flight (embedding, or embedded and not committed)."""
        return self._in_flight is not None

    def poll(self) -> None:
        """Commit the checkpoint in flight if its vectors are ready (never waits)."""
        if self._in_flight is not None and self._in_flight.vectors.done():
            self.drain()

    def drain(self) -> None:
        """Wait for the checkpoint in flight, if any, and commit it."""
        pending, self._in_flight = self._in_flight, None
        if pending is None:
            return
        began = self.clock()
        embedded = pending.vectors.result()  # raises the model's error: nothing of it is written
        self.phases["wait"] += self.clock() - began
        batch = pending.batch
        dimension = embedded.shape[1] if len(pending.to_embed) else (self.dimension() or 0)
        vectors = np.empty((len(batch.ids), dimension), dtype=np.float32)
        if pending.to_embed:
            vectors[pending.to_embed] = embedded
        for row, vector in pending.reused.items():
            vectors[row] = vector
        batch.vectors = vectors
        if batch or pending.final:
            began = self.clock()
            self.commit(batch, pending.final)
            self.phases["commit"] += self.clock() - began
            self.committed(batch)

    def close(self, *, failed: bool = False) -> None:
        """Finish: commit the checkpoint in flight and stop the thread. ``failed``: the
        caller is raising an error of its own, which an embedding error must not hide."""
        try:
            self.drain()
        except Exception:
            if not failed:
                raise
        finally:
            self._executor.shutdown(wait=True)

    def _embed(self, texts: list[str], dimension: Optional[int], upcoming: int) -> np.ndarray:
        began = self.clock()
        embedded, count = self._embedded, len(texts)

        def report(stage: str, done: int, total: int) -> None:
            # Counted in chunks (the model may see fewer: texts met before are not sent)
            # against every chunk found so far: those embedded before, this checkpoint's,
            # and the rest of a large file being checkpointed. Files not read yet are unknown.
            if self.progress is not None:
                self.progress("embed", embedded + (count if done >= total else done * count // max(total, 1)),
                              embedded + count + upcoming)

        vectors = self._recent.embed(texts, lambda new: self.embedder.embed(new, dimension, report))
        self._embedded = embedded + count
        if texts and self.progress is not None:
            self.progress("embed", self._embedded, self._embedded + upcoming)
        seconds = self.clock() - began
        self.phases["embed"] += seconds
        if texts:
            self.seconds_per_chunk = seconds / len(texts)
        return vectors
