"""The same names from rag.graph and from LangGraph 1.2, for differential graph tests,
and a normal form that compares their outputs (messages, interrupts, snapshots)."""

from __future__ import annotations

import operator
from types import SimpleNamespace
from typing import Annotated, Any, TypedDict

import langchain_core.messages as lc_messages
import langgraph.checkpoint.memory as lg_memory
import langgraph.config as lg_config
import langgraph.errors as lg_errors
import langgraph.graph as lg_graph
import langgraph.types as lg_types

import rag.graph as our_graph
import rag.graph.checkpoint.memory as our_memory
import rag.graph.config as our_config
import rag.graph.errors as our_errors
import rag.graph.types as our_types
import rag.messages as our_messages

OURS = SimpleNamespace(
    name="rag", StateGraph=our_graph.StateGraph, START=our_graph.START, END=our_graph.END,
    add_messages=our_graph.add_messages, MessagesState=our_graph.MessagesState, RemoveMessage=our_graph.RemoveMessage,
    InMemorySaver=our_memory.InMemorySaver, interrupt=our_types.interrupt, Command=our_types.Command, Send=our_types.Send,
    get_stream_writer=our_config.get_stream_writer,
    Interrupt=our_types.Interrupt, GraphRecursionError=our_errors.GraphRecursionError,
    HumanMessage=our_messages.HumanMessage, AIMessage=our_messages.AIMessage, ToolMessage=our_messages.ToolMessage,
)
LANGGRAPH = SimpleNamespace(
    name="langgraph", StateGraph=lg_graph.StateGraph, START=lg_graph.START, END=lg_graph.END,
    add_messages=lg_graph.add_messages, MessagesState=lg_graph.MessagesState,
    RemoveMessage=lc_messages.RemoveMessage, InMemorySaver=lg_memory.InMemorySaver, interrupt=lg_types.interrupt,
    Send=lg_types.Send, get_stream_writer=lg_config.get_stream_writer,
    Command=lg_types.Command, Interrupt=lg_types.Interrupt, GraphRecursionError=lg_errors.GraphRecursionError,
    HumanMessage=lc_messages.HumanMessage, AIMessage=lc_messages.AIMessage, ToolMessage=lc_messages.ToolMessage,
)


class LoopState(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def normal(value: Any) -> Any:
    """Library-neutral data: messages as (type, content), interrupts as ("interrupt", value)."""
    if isinstance(value, (our_types.Interrupt, lg_types.Interrupt)):
        return ("interrupt", normal(value.value))
    if isinstance(value, (our_messages.BaseMessage, lc_messages.BaseMessage)):
        kind = "ai" if value.type in ("ai", "AIMessageChunk") else value.type
        return (kind, value.content)
    if isinstance(value, dict):
        return {k: normal(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normal(v) for v in value]
    return value


def snapshot_shape(snapshot: Any) -> tuple:
    """What a state snapshot says, without ids and times."""
    return (normal(snapshot.values), tuple(snapshot.next), snapshot.metadata and
            {k: snapshot.metadata[k] for k in ("source", "step")},
            [normal(i) for i in snapshot.interrupts])


def loop_graph(lib: SimpleNamespace, *, limit_n: int = 3):
    """a -> (b if n < limit_n else END), b -> a: the two-node loop of the issue."""
    graph = lib.StateGraph(LoopState)
    graph.add_node("a", lambda s: {"n": s["n"] + 1, "log": ["a"]})
    graph.add_node("b", lambda s: {"log": ["b"]})
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", lambda s: "b" if s["n"] < limit_n else lib.END, ["b", lib.END])
    graph.add_edge("b", "a")
    return graph


def steps_of(chunks):
    """Per step: the "updates" chunks as a sorted list (LangGraph emits a step's updates as
    its threads finish, in any order), then the state after the step."""
    steps, pending = [], []
    for mode, chunk in chunks:
        if mode == "updates":
            pending.append(repr(chunk))
        else:
            steps.append((sorted(pending), chunk))
            pending = []
    return steps + ([(sorted(pending), None)] if pending else [])
