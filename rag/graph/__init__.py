"""State graphs with persistence and human-in-the-loop (LangGraph's ``langgraph.graph``).

Names follow LangGraph 1.2 so code moves over: ``from langgraph.graph import StateGraph``
becomes ``from rag.graph import StateGraph``; ``langgraph.types`` is ``rag.graph.types``,
``langgraph.checkpoint.memory`` / ``.sqlite`` are ``rag.graph.checkpoint.memory`` / ``.sqlite``.

>>> import operator
>>> from typing import Annotated, TypedDict
>>> class State(TypedDict):
...     total: int
...     steps: Annotated[list, operator.add]
>>> graph = StateGraph(State)
>>> _ = graph.add_node("double", lambda s: {"total": s["total"] * 2, "steps": ["double"]})
>>> _ = graph.add_edge(START, "double").add_edge("double", END)
>>> graph.compile().invoke({"total": 21})
{'total': 42, 'steps': ['double']}
"""

from rag.graph.constants import END, START
from rag.graph.errors import GraphRecursionError, InvalidUpdateError
from rag.graph.message import MessagesState, RemoveMessage, add_messages
from rag.graph.pregel import CompiledStateGraph
from rag.graph.state_graph import StateGraph
from rag.graph.types import Command, Interrupt, Send, StateSnapshot, interrupt

__all__ = [
    "StateGraph",
    "CompiledStateGraph",
    "START",
    "END",
    "add_messages",
    "MessagesState",
    "RemoveMessage",
    "Command",
    "Send",
    "Interrupt",
    "StateSnapshot",
    "interrupt",
    "GraphRecursionError",
    "InvalidUpdateError",
]
