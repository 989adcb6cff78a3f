"""The runnable a graph node made from a function becomes (``add_node("name", fn)``)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from rag.runnables import RunnableLambda

__all__ = ["NodeRunnable"]


class NodeRunnable(RunnableLambda):
    """A :class:`RunnableLambda` that is a graph node (or a diagram's ``__start__``): it
    runs as one; ``get_graph().to_json()`` names it by LangGraph's class for the same
    wrapper, so tools reading LangGraph's diagrams read ours alike."""

    @classmethod
    def lc_id(cls) -> list[str]:
        """LangGraph's serialised id of a function node (``RunnableCallable``)."""
        return ["langgraph", "_internal", "_runnable", "RunnableCallable"]

    #: The callable given to ``add_node`` (``func`` is it wrapped to read and write the state).
    given: Any = None

    @property
    def runnable(self) -> Any:
        """LangGraph's ``builder.nodes[name].runnable``: its ``func`` is the callable given
        to ``add_node`` (tests and tools read a node's own object through it)."""
        return SimpleNamespace(func=self.func if self.given is None else self.given, name=self.name)
