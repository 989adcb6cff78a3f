"""A served index follows ``rag index`` runs: :class:`IndexWatcher`.

Every ``interval`` seconds (default 0.5) a background thread asks the index to catch up
with the newest committed version (:meth:`rag.index.Index.refresh`): for a folder, one read
of the small manifest; when it changed, the new version is read in that thread while
requests keep being answered from the one in memory, then swapped in at once (searches in
flight finish on the version they started with). So a commit is served within about
``interval`` plus the time to read the new version, and no request waits for the read.

If the new version cannot be read (damaged, or replaced again while read), the server
keeps serving the one it has and logs why, once per distinct reason; it retries with a
growing pause (up to 5 s), so a damaged save does not cost a full read twice a second.

A database index (PostgreSQL, Milvus) is read live by every search: a commit is served
as soon as the database shows it (PostgreSQL: at the transaction's commit; Milvus: within
its consistency window, about 200 ms). The watcher then only picks up a new configuration
(``Index.configure``) from another process.

:func:`rag.serve.index_app.index_app` runs one for its index (``refresh_seconds``); by
hand::

    watcher = IndexWatcher(Index.open("my-index"), interval=0.5)
    watcher.start()   # ... serve ...
    watcher.stop()
"""

from __future__ import annotations

import logging
import threading
from typing import Optional

from rag.errors import ValidationError
from rag.index.core import Index

__all__ = ["IndexWatcher", "DEFAULT_REFRESH_SECONDS"]

logger = logging.getLogger("rag.serve")

#: Default seconds between two checks for a newer committed version.
DEFAULT_REFRESH_SECONDS = 0.5
# The longest pause between retries after the newest version could not be read.
_MAX_BACKOFF_SECONDS = 5.0


class IndexWatcher:
    """Keeps ``index`` at its newest committed version while a server runs (see the module
    docstring). ``interval``: seconds between checks (> 0, default 0.5).

    :meth:`start` and :meth:`stop` run the background thread (both idempotent);
    :meth:`check` is one check, for a caller with its own schedule. ``reloads`` counts the
    versions taken; ``failure`` is why the newest one could not be read (None when the
    index is current)."""

    def __init__(self, index: Index, *, interval: float = DEFAULT_REFRESH_SECONDS) -> None:
        if not interval > 0:
            raise ValidationError(f"the refresh interval must be > 0 seconds, got {interval}")
        self.index, self.interval = index, float(interval)
        self.reloads = 0
        self.failure: Optional[str] = None
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._stopped = False
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"IndexWatcher({self.index.where!r}, interval={self.interval:g}, reloads={self.reloads})"

    def check(self) -> bool:
        """Take the newest committed version if there is one; True if it was taken. Never
        raises for a version that cannot be read: that is logged (once per reason) and the
        index keeps the version it has."""
        try:
            changed = self.index.refresh()
        except Exception as exc:  # any failure to read it: the version in memory stays served
            reason = f"{type(exc).__name__}: {exc}"
            if reason != self.failure:
                logger.warning("rag serve: still serving the version read before; the newest version of %s "
                               "cannot be read: %s", self.index.where, reason)
            self.failure = reason
            return False
        if self.failure is not None:
            logger.warning("rag serve: %s reads again; serving its newest version", self.index.where)
            self.failure = None
        if changed:
            self.reloads += 1
            logger.info("rag serve: now serving the version of %s committed last", self.index.where)
        return changed

    def start(self) -> None:
        """Check in a daemon thread every ``interval`` seconds until :meth:`stop`."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._stop.clear()
            self._stopped = False
            self._thread = threading.Thread(target=self._run, name="rag-serve-watcher", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the thread (waiting up to ``timeout`` seconds for a read in progress)."""
        with self._lock:
            thread, self._thread = self._thread, None
            self._stopped = True
        self._stop.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    @property
    def running(self) -> bool:
        """Whether the thread is checking."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def stopped(self) -> bool:
        """Whether :meth:`stop` was called since the last :meth:`start` (a server shutting
        down: a late request must not start it again)."""
        return self._stopped

    def _run(self) -> None:
        pause = self.interval
        while not self._stop.wait(pause):
            self.check()
            # After a failure, wait longer each time (a damaged save is read whole each try).
            pause = min(pause * 2, _MAX_BACKOFF_SECONDS) if self.failure is not None else self.interval
