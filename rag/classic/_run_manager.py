"""A classic chain's run as its ``_call`` receives it: ``run_manager``.

Built on the retriever's run managers (:mod:`rag.callbacks.manager`): the same ids, tags
and ``get_child()``, plus the events a chain or an agent sends during its run
(``on_text``, ``on_agent_action``, ``on_agent_finish``). The names follow
``langchain_core.callbacks``, so a chain written for LangChain keeps its body.
"""

from __future__ import annotations

from typing import Any

from rag.callbacks.manager import _RunManagerBase

__all__ = ["CallbackManagerForChainRun", "AsyncCallbackManagerForChainRun", "child_config"]


def child_config(run_manager: Any) -> Any:
    """``{"callbacks": run_manager.get_child()}`` for a call made inside the run, or None
    when nobody listens (LangChain's own models fail on an empty callbacks list)."""
    if run_manager is None or not run_manager.handlers:
        return None
    return {"callbacks": run_manager.get_child()}


class CallbackManagerForChainRun(_RunManagerBase):
    """The run of one chain call. ``get_child()`` gives the callbacks to pass as
    ``config={"callbacks": ...}`` to whatever the chain calls, so those runs nest under it."""

    def on_text(self, text: str, **kwargs: Any) -> None:
        self._run.event("on_text", text, **kwargs)

    def on_agent_action(self, action: Any, **kwargs: Any) -> None:
        """Tell the handlers the agent chose ``action`` (an AgentAction)."""
        self._run.event("on_agent_action", action, **kwargs)

    def on_agent_finish(self, finish: Any, **kwargs: Any) -> None:
        """Tell the handlers the agent finished with ``finish`` (an AgentFinish)."""
        self._run.event("on_agent_finish", finish, **kwargs)

    def on_retry(self, retry_state: Any, **kwargs: Any) -> None:
        self._run.event("on_retry", retry_state, **kwargs)


class AsyncCallbackManagerForChainRun(_RunManagerBase):
    """The async twin: events are awaited; :meth:`get_sync` gives the sync manager."""

    def get_sync(self) -> CallbackManagerForChainRun:
        return CallbackManagerForChainRun(self._run, self.metadata)

    async def on_text(self, text: str, **kwargs: Any) -> None:
        await self._run.aevent("on_text", text, **kwargs)

    async def on_agent_action(self, action: Any, **kwargs: Any) -> None:
        await self._run.aevent("on_agent_action", action, **kwargs)

    async def on_agent_finish(self, finish: Any, **kwargs: Any) -> None:
        await self._run.aevent("on_agent_finish", finish, **kwargs)

    async def on_retry(self, retry_state: Any, **kwargs: Any) -> None:
        await self._run.aevent("on_retry", retry_state, **kwargs)
