"""Embedding fanned out to other processes: local workers or a Dask cluster.

An update has one writer (the process that runs it: it loads, splits, commits and keeps
the record); only the embedding moves. Batches of :data:`EMBED_BATCH`
chunk texts go out, float32 vectors come back, and the writer puts them in place by
position, so a batch computed twice (a lost worker's work retried elsewhere) is still
committed once. A worker builds the index's embedding model from its spec (``local``,
``hashing``...) the first time it needs it and keeps it for the rest of its life.

What crosses the process boundary or the network: the spec string, the chunk texts, and
the vectors with the worker's model id (checked against the index's, so a worker with
another model version cannot mix its vectors in). Nothing a user loads from disk is
unpickled here: the pickles are the pool's and Dask's own messages between our processes.

Local workers use the ``spawn`` start method (a fresh interpreter, safe with onnxruntime's
threads), which imports the caller's main module again in each worker: a script that
calls ``Index.update(..., workers=N)`` must do so under ``if __name__ == "__main__":``
(the ``rag`` command does).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any, Callable, Mapping, Optional, Protocol, Sequence

import numpy as np

from rag.embeddings.base import Embeddings, embed_texts, model_id_of
from rag.errors import ClusterConnectionError, EmbeddingMismatchError, ValidationError, WorkerLostError

__all__ = ["Embedder", "InlineEmbedder", "ProcessEmbedder", "DaskEmbedder", "make_embedder", "embed_batch",
           "embed_in_batches", "length_order", "with_runtime", "EMBED_BATCH"]

Progress = Callable[[str, int, int], None]

#: Texts per embedding call (the embeddings object batches further inside).
EMBED_BATCH = 64

#: Seconds to reach a cluster's scheduler before giving up.
CONNECT_TIMEOUT = 5.0

_models: dict[tuple[str, Optional[int], tuple[tuple[str, Any], ...]], Embeddings] = {}
_models_lock = threading.Lock()


def embed_batch(spec: str, texts: Sequence[str], threads: Optional[int] = None,
                runtime: Optional[Mapping[str, Any]] = None) -> tuple[str, np.ndarray]:
    """Run in a worker: ``(model id, float32 vectors)`` of ``texts`` with the model ``spec``
    names, built on the first call in this process (``threads``: onnxruntime intra-op
    threads for a local model, None: its default; ``runtime``: the ``device`` and
    ``batch_size`` a local model runs with, see :func:`with_runtime`)."""
    from rag.index.registry import make_embeddings

    key = (spec, threads, tuple(sorted((runtime or {}).items())))
    with _models_lock:  # a Dask worker runs tasks on several threads
        model = _models.get(key)
        if model is None:
            model = with_runtime(make_embeddings(spec), spec, threads=threads, **(runtime or {}))
            _models[key] = model
    return model_id_of(model), embed_texts(model, list(texts))


def with_runtime(embeddings: Embeddings, spec: str, *, device: Optional[str] = None,
                 batch_size: Optional[int] = None, threads: Optional[int] = None) -> Embeddings:
    """``embeddings`` set to run on ``device`` with ``batch_size`` texts per call and
    ``threads`` threads (None: unchanged). Only a local model has such settings: asking
    them of another (hashing, a server's) is a ValidationError naming it; ``threads`` alone
    leaves such a model as it is."""
    from rag.embeddings._device import check_device
    from rag.embeddings.base import _check_int

    if device is not None:
        check_device(device)
    _check_int("batch_size", batch_size, allow_none=True)
    _check_int("threads", threads, allow_none=True)
    if device is None and batch_size is None and threads is None:
        return embeddings
    configure = getattr(embeddings, "with_runtime", None)
    if not callable(configure) and device is None and batch_size is None:
        return embeddings  # threads only: a model without threads of its own runs as it is
    if not callable(configure):
        raise ValidationError(f"device and batch size set how a local model runs; this index embeds with {spec!r}")
    configured: Embeddings = configure(device=device, batch_size=batch_size, threads=threads)
    return configured


def length_order(texts: Sequence[str]) -> list[int]:
    """Positions of ``texts``, longest first (by characters, a proxy for tokens): the texts
    of a checkpoint are cut into model calls in this order, so a model that batches inside
    a call pads little even across calls."""
    return sorted(range(len(texts)), key=lambda position: -len(texts[position]))


def embed_in_batches(embeddings: Embeddings, texts: list[str], dimension: Optional[int],
                     progress: Optional[Progress] = None) -> np.ndarray:
    """``texts`` embedded :data:`EMBED_BATCH` at a time, longest first (:func:`length_order`),
    into one float32 matrix in the order of ``texts``."""
    if not texts:
        return np.empty((0, dimension or 0), dtype=np.float32)
    order = length_order(texts)
    vectors: Optional[np.ndarray] = None
    for start in range(0, len(texts), EMBED_BATCH):
        rows = order[start:start + EMBED_BATCH]
        part = embed_texts(embeddings, [texts[row] for row in rows], dimension=dimension)
        if vectors is None:
            dimension = part.shape[1]
            vectors = np.empty((len(texts), dimension), dtype=np.float32)
        vectors[rows] = part
        if progress is not None:
            progress("embed", min(start + EMBED_BATCH, len(texts)), len(texts))
    assert vectors is not None
    return vectors


class Embedder(Protocol):
    """Turns chunk texts into float32 vectors for one update."""

    def embed(self, texts: list[str], dimension: Optional[int], progress: Optional[Progress]) -> np.ndarray: ...

    def close(self) -> None: ...


class InlineEmbedder:
    """The embeddings object in this process (the default)."""

    def __init__(self, embeddings: Embeddings) -> None:
        self.embeddings = embeddings

    def embed(self, texts: list[str], dimension: Optional[int], progress: Optional[Progress]) -> np.ndarray:
        return embed_in_batches(self.embeddings, texts, dimension, progress)

    def close(self) -> None:
        pass


class _Pending(Protocol):
    """A batch sent out: a pool's :class:`~concurrent.futures.Future` or a Dask future."""

    def result(self) -> tuple[str, np.ndarray]: ...


class _FanOut:
    """Sends every batch at once, then collects the vectors in order."""

    def __init__(self, spec: str, model_id: str, threads: Optional[int],
                 runtime: Optional[Mapping[str, Any]] = None) -> None:
        self.spec, self.model_id, self.threads = spec, model_id, threads
        self.runtime = dict(runtime or {})  # device and batch size in the workers

    def _submit(self, texts: list[str]) -> _Pending:
        raise NotImplementedError

    def _result(self, future: _Pending) -> tuple[str, np.ndarray]:
        return future.result()

    def embed(self, texts: list[str], dimension: Optional[int], progress: Optional[Progress]) -> np.ndarray:
        if not texts:
            return np.empty((0, dimension or 0), dtype=np.float32)
        order = length_order(texts)  # batches of similar lengths: little padding in a worker
        positions = [order[start:start + EMBED_BATCH] for start in range(0, len(texts), EMBED_BATCH)]
        batches = [[texts[position] for position in rows] for rows in positions]
        futures = [self._submit(batch) for batch in batches]
        parts, done = [], 0
        for batch, future in zip(batches, futures):
            model_id, vectors = self._result(future)
            if model_id != self.model_id:
                raise EmbeddingMismatchError(
                    f"a worker embeds with {model_id!r} but the index was built with {self.model_id!r}; "
                    "install the same model package version on every worker")
            vectors = np.asarray(vectors, dtype=np.float32)
            if vectors.ndim != 2 or vectors.shape[0] != len(batch) or (dimension and vectors.shape[1] != dimension):
                raise EmbeddingMismatchError(f"a worker returned vectors of shape {vectors.shape} for {len(batch)} "
                                             f"texts (expected dimension {dimension})")
            dimension = vectors.shape[1]
            parts.append(vectors)
            done += len(batch)
            if progress is not None:
                progress("embed", done, len(texts))
        vectors = np.empty((len(texts), parts[0].shape[1]), dtype=np.float32)  # one dimension, checked above
        for rows, part in zip(positions, parts):
            vectors[rows] = part
        return vectors


class ProcessEmbedder(_FanOut):
    """``workers`` local processes, each with ``cores / workers`` onnxruntime threads."""

    def __init__(self, spec: str, model_id: str, workers: int, runtime: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__(spec, model_id, max(1, (os.cpu_count() or 1) // workers), runtime)
        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"))

    def _submit(self, texts: list[str]) -> Future[tuple[str, np.ndarray]]:
        try:
            return self.pool.submit(embed_batch, self.spec, texts, self.threads, self.runtime)
        except BrokenProcessPool as exc:
            raise _lost_worker() from exc

    def _result(self, future: _Pending) -> tuple[str, np.ndarray]:
        try:
            return future.result()
        except BrokenProcessPool as exc:  # a worker killed (by a signal, or out of memory)
            raise _lost_worker() from exc

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def _lost_worker() -> WorkerLostError:
    return WorkerLostError("a worker process died while embedding (killed, or out of memory); the checkpoints "
                           "committed so far are kept: run the same command again to continue")


class DaskEmbedder(_FanOut):
    """The workers of a Dask ``distributed`` cluster (scheduler at ``address``). A task
    lost with its worker is run again on another (Dask's own rescheduling)."""

    def __init__(self, spec: str, model_id: str, address: str, *, timeout: float = CONNECT_TIMEOUT,
                 runtime: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__(spec, model_id, None, runtime)
        from rag._optional import require_installed

        require_installed(["distributed"], feature="--cluster", extra="cluster", packages=["distributed"])
        from distributed import Client
        from distributed.comm import resolve_address

        try:
            resolve_address(address)
        except ValueError as exc:
            # Checked before Client: it would raise a bare ValueError, then stall the
            # interpreter's exit closing itself.
            raise ValidationError(f"cluster must be a scheduler address such as tcp://127.0.0.1:8786, got "
                                  f"{address!r} ({exc})") from exc
        except OSError as exc:  # a host name that does not resolve
            raise ClusterConnectionError(f"cannot reach the Dask scheduler at {address} ({exc})") from exc
        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ClusterConnectionError(f"cannot reach the Dask scheduler at {address} within {timeout:g} s "
                                         f"({type(exc).__name__}); is it running?") from exc
        try:
            # A scheduler without workers would take the batches and never answer.
            self.client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError) as exc:
            self.client.close()
            raise ClusterConnectionError(f"the Dask scheduler at {address} has no workers (none joined within "
                                         f"{timeout:g} s); start some with: dask worker {address}") from exc

    def _submit(self, texts: list[str]) -> _Pending:
        # pure=False: two batches with equal texts are still two tasks (each position needs its vectors).
        return self.client.submit(embed_batch, self.spec, texts, None, self.runtime, pure=False, retries=2)

    def close(self) -> None:
        self.client.close()


def make_embedder(embeddings: Embeddings, spec: str, *, workers: Optional[int] = None,
                  cluster: Optional[str] = None, device: Optional[str] = None,
                  batch_size: Optional[int] = None) -> Embedder:
    """The embedder an update uses: ``workers`` local processes, the Dask cluster at
    ``cluster`` (``tcp://HOST:PORT``), or ``embeddings`` in this process; a local model
    runs on ``device`` with ``batch_size`` texts per call (None: its defaults; see
    :func:`with_runtime`). Connects (and fails) before anything is read or written; so
    does an index folder's server model that nobody allowed (:mod:`rag.index.remote`),
    before a text is sent anywhere."""
    from rag.index.remote import NotAllowedEmbeddings

    if isinstance(embeddings, NotAllowedEmbeddings):
        raise embeddings.error()
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValidationError(f"workers must be a number of processes, an integer >= 1, got {workers!r}")
    if cluster is not None and (not isinstance(cluster, str) or not cluster.strip()):
        raise ValidationError(f"cluster must be a scheduler address such as tcp://127.0.0.1:8786, got {cluster!r}")
    if workers is not None and cluster is not None:
        raise ValidationError("give workers or cluster, not both")
    configured = with_runtime(embeddings, spec, device=device, batch_size=batch_size)  # checked here, once
    runtime = {name: value for name, value in (("device", device), ("batch_size", batch_size)) if value is not None}
    if workers is not None:
        return ProcessEmbedder(spec, model_id_of(embeddings), workers, runtime)
    if cluster is not None:
        return DaskEmbedder(spec, model_id_of(embeddings), cluster.strip(), runtime=runtime)
    return InlineEmbedder(configured)
