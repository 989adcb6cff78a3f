"""Run managers: what a LangChain-style component receives as ``run_manager``.

A retriever written for LangChain implements ``_get_relevant_documents(self, query, *,
run_manager)``; the run manager is its run, bound: ``run_manager.get_child()`` gives the
callbacks for whatever it calls (those runs then nest under the retriever's run, as
``config={"callbacks": run_manager.get_child()}``), and ``run_manager.on_text(...)`` sends
an event to the handlers. The names follow ``langchain_core.callbacks``, so only the
import line of such code changes.

>>> from rag.callbacks import BaseCallbackHandler
>>> class Texts(BaseCallbackHandler):
...     def on_text(self, text, **kwargs):
...         print("text:", text)
>>> from rag._callbacks import start_run
>>> run = start_run({"callbacks": [Texts()]}, "retriever", "demo", "query")
>>> CallbackManagerForRetrieverRun(run).on_text("looked it up")
text: looked it up
"""

from __future__ import annotations

import uuid
from typing import Any, Optional

from rag._callbacks import ChildCallbacks, Run

__all__ = ["CallbackManagerForRetrieverRun", "AsyncCallbackManagerForRetrieverRun", "ChildCallbacks"]


class _RunManagerBase:
    """The ids, handlers, tags and metadata of one started run (LangChain's attribute names)."""

    def __init__(self, run: Run, metadata: Optional[dict[str, Any]] = None) -> None:
        self._run = run
        self.metadata: dict[str, Any] = dict(metadata or {})

    @property
    def run_id(self) -> uuid.UUID:
        return self._run.run_id

    @property
    def parent_run_id(self) -> Optional[uuid.UUID]:
        return self._run.parent_run_id

    @property
    def handlers(self) -> list[Any]:
        return list(self._run.handlers)

    # Every handler reaches nested runs here: there are no local-only handlers.
    inheritable_handlers = handlers

    @property
    def tags(self) -> list[str]:
        return list(self._run.tags)

    inheritable_tags = tags

    def get_child(self, tag: Optional[str] = None) -> ChildCallbacks:
        """Callbacks for a call made inside this run: pass them as
        ``config={"callbacks": ...}``; that call's run nests under this one. ``tag`` is
        added to the child's tags."""
        tags = self.tags + ([tag] if tag is not None and tag not in self._run.tags else [])
        return ChildCallbacks(self._run.handlers, parent_run_id=self._run.run_id, tags=tags,
                              metadata=self.metadata)


class CallbackManagerForRetrieverRun(_RunManagerBase):
    """A retriever's run, handed to ``_get_relevant_documents(query, *, run_manager)``.

    The retriever's ``invoke`` starts and ends the run; the body may add events
    (:meth:`on_text`, :meth:`on_retry`) and pass :meth:`get_child` to what it calls.
    """

    def on_text(self, text: str, **kwargs: Any) -> None:
        """Send ``on_text(text, run_id=..., parent_run_id=...)`` to the handlers."""
        self._run.event("on_text", text, **kwargs)

    def on_retry(self, retry_state: Any, **kwargs: Any) -> None:
        """Send ``on_retry(retry_state, ...)`` to the handlers."""
        self._run.event("on_retry", retry_state, **kwargs)

    def on_retriever_end(self, documents: Any, **kwargs: Any) -> None:
        """End the run with ``documents`` (the retriever's ``invoke`` does this itself)."""
        self._run.end(documents, **kwargs)

    def on_retriever_error(self, error: BaseException, **kwargs: Any) -> None:
        """End the run with ``error`` (the retriever's ``invoke`` does this itself)."""
        self._run.error(error, **kwargs)


class AsyncCallbackManagerForRetrieverRun(_RunManagerBase):
    """The async twin, handed to ``_aget_relevant_documents(query, *, run_manager)``:
    its events are awaited; :meth:`get_sync` gives the sync manager of the same run."""

    def get_sync(self) -> CallbackManagerForRetrieverRun:
        return CallbackManagerForRetrieverRun(self._run, self.metadata)

    async def on_text(self, text: str, **kwargs: Any) -> None:
        await self._run.aevent("on_text", text, **kwargs)

    async def on_retry(self, retry_state: Any, **kwargs: Any) -> None:
        await self._run.aevent("on_retry", retry_state, **kwargs)

    async def on_retriever_end(self, documents: Any, **kwargs: Any) -> None:
        await self._run.aend(documents, **kwargs)

    async def on_retriever_error(self, error: BaseException, **kwargs: Any) -> None:
        await self._run.aerror(error, **kwargs)
