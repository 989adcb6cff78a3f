"""The background writer: finished run trees go to the trace store in batches, off the
traced program's path.

Nothing starts at import: the thread starts with the first tree handed over
(:meth:`BatchWriter.submit`), and an ``atexit`` hook, registered then, flushes what is
queued for at most ``exit_timeout_s`` before the interpreter exits (the thread is a daemon,
so a stuck disk never holds the exit). A process forked after the writer started gets a
writer of its own on its first submit. Failures never reach the traced program: the
first one is logged as a single warning naming the file, and tracing stops.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import sqlite3
import threading
import time
from contextlib import closing
from dataclasses import dataclass
from typing import Any, Callable, Optional

from rag.tracing.store import TraceStore, _is_full

__all__ = ["BatchWriter"]

logger = logging.getLogger("rag.tracing")

_STOP = object()


@dataclass
class _Flush:
    done: threading.Event


class BatchWriter:
    """Writes what :meth:`submit` is given into ``store``, up to ``batch_size`` trees per
    transaction (default 256), converting each with ``to_rows`` in the writer thread.

    ``max_queue``: trees waiting at most (default 10000; beyond, new ones are dropped
    with one warning rather than the program's memory growing); ``prune_every_s``: how
    often retention runs (default 60 s; also once at start) with ``max_age_days`` and
    ``max_bytes``; ``exit_timeout_s``: how long the exit waits for the queue (default 5 s).
    """

    def __init__(self, store: TraceStore, to_rows: Callable[[Any], Any], *, batch_size: int = 256,
                 max_queue: int = 10_000, max_age_days: float = 30.0, max_bytes: int = 1 << 30,
                 prune_every_s: float = 60.0, exit_timeout_s: float = 5.0) -> None:
        self.store, self.to_rows = store, to_rows
        self.batch_size, self.max_queue = batch_size, max_queue
        self.max_age_days, self.max_bytes, self.prune_every_s = max_age_days, max_bytes, prune_every_s
        self.exit_timeout_s = exit_timeout_s
        self.stopped_reason: Optional[str] = None  # set when a failure turned tracing off
        self.written = 0  # runs written by this process
        self.dropped = 0  # trees dropped because the queue was full
        self._lock = threading.Lock()
        self._queue: Optional[queue.Queue[Any]] = None
        self._thread: Optional[threading.Thread] = None
        self._pid: Optional[int] = None
        self._exit_hook = False

    def __repr__(self) -> str:
        return f"BatchWriter({self.store!r}, written={self.written}, stopped={self.stopped_reason is not None})"

    def _ready_queue(self) -> queue.Queue[Any]:
        current = self._queue
        if current is not None and self._pid == os.getpid():
            return current
        with self._lock:
            if self._queue is None or self._pid != os.getpid():
                # A fresh queue after a fork: the parent's may have been locked by its thread.
                self._queue = queue.Queue(self.max_queue)
                self._pid = os.getpid()
                self._thread = threading.Thread(target=self._run, args=(self._queue,), name="rag-trace-writer",
                                                daemon=True)
                self._thread.start()
                if not self._exit_hook:
                    atexit.register(self._at_exit)
                    self._exit_hook = True
            return self._queue

    def submit(self, tree: Any) -> None:
        """Queue ``tree`` for writing; returns at once (dropped when tracing has stopped)."""
        if self.stopped_reason is not None:
            return
        try:
            self._ready_queue().put_nowait(tree)
        except queue.Full:
            self.dropped += 1
            if self.dropped == 1:
                logger.warning("the trace writer for %s is behind (%d traces queued): dropping traces until it "
                               "catches up", self.store.path, self.max_queue)

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Wait until everything submitted so far is written (True), or ``timeout_s`` passed."""
        if self._queue is None or self._pid != os.getpid() or self._thread is None or not self._thread.is_alive():
            return self._queue is None or self._queue.empty()
        marker = _Flush(threading.Event())
        try:
            self._queue.put(marker, timeout=timeout_s)
        except queue.Full:
            return False
        return marker.done.wait(timeout_s)

    def _at_exit(self) -> None:
        if self._pid == os.getpid() and not self.flush(self.exit_timeout_s):
            logger.warning("exiting before every trace was written to %s (waited %.0f s)", self.store.path,
                           self.exit_timeout_s)

    def _stop(self, exc: BaseException) -> None:
        reason = (f"the disk holding {self.store.path} is full" if _is_full(exc)
                  else f"cannot write to the trace database {self.store.path}")
        self.stopped_reason = f"{reason} ({type(exc).__name__}: {exc})"
        logger.warning("tracing stopped: %s; the program goes on without it", self.stopped_reason)

    def _run(self, pending: queue.Queue[Any]) -> None:
        connection: Optional[sqlite3.Connection] = None
        last_prune = 0.0
        while True:
            item = pending.get()
            batch: list[Any] = []
            flushes: list[_Flush] = []
            stop = False
            while True:
                if item is _STOP:
                    stop = True
                elif isinstance(item, _Flush):
                    flushes.append(item)
                else:
                    batch.append(item)
                if len(batch) >= self.batch_size:
                    break
                try:
                    item = pending.get_nowait()
                except queue.Empty:
                    break
            if batch and self.stopped_reason is None:
                try:
                    if connection is None:
                        connection = self.store.connect()
                    self.written += self.store.write(connection, [self.to_rows(tree) for tree in batch])
                    if time.monotonic() - last_prune > self.prune_every_s:
                        last_prune = time.monotonic()
                        self.store.prune(connection, max_age_days=self.max_age_days, max_bytes=self.max_bytes)
                except Exception as exc:  # never the traced program's problem: one warning, then off
                    self._stop(exc)
                    if connection is not None:
                        with closing(connection):
                            connection = None
            for marker in flushes:
                marker.done.set()
            if stop:
                if connection is not None:
                    connection.close()
                return

    def close(self, timeout_s: float = 10.0) -> None:
        """Write what is queued, then stop the thread (a later submit starts a new one)."""
        if self._queue is None or self._pid != os.getpid() or self._thread is None:
            return
        self._queue.put(_STOP)
        self._thread.join(timeout_s)
        with self._lock:
            self._queue, self._thread, self._pid = None, None, None
