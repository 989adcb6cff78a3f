"""The ``stream_mode="messages"`` stream, with LangGraph's payloads: ``(message, metadata)``
for each model token a node's chat model streams, for each message a node returns, and
for each message :func:`rag.graph.message.push_message` sends.

One :class:`MessagesHandler` serves a root run and the subgraphs run inside its nodes
(they find it among the callbacks of their config), so a message is streamed once per
run: a message id already seen (streamed, or in the input of a node as it starts) is not
streamed again when a node returns it (as LangGraph's de-duplication). A subgraph's
messages are streamed only with ``stream(..., subgraphs=True)``, under its namespace.

Metadata: a node's run metadata (``langgraph_step``, ``langgraph_node``,
``langgraph_triggers``, ``langgraph_path``, ``langgraph_checkpoint_ns``, the run's own
metadata and configurable ids) with ``ls_integration="langgraph"`` for messages a node
returned or pushed; a model's tokens carry the model's run metadata, with the run's user
tags under ``"tags"``.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any, Iterable, Mapping, Optional, Sequence

from rag.graph._effects import Emit
from rag.graph._subgraphs import NS_SEP, Nested
from rag.graph.types import Command
from rag.messages import BaseMessage

__all__ = ["MessagesHandler", "LiveSink", "PUSHED", "handler_in", "push", "pushed_writes", "graph_namespace"]

#: The key of a task's configurable holding what push_message wrote: a list of (key, message).
PUSHED = "__rag_pushed_messages"
#: Tags of LangGraph's own (``graph:step:N``, ``seq:step:N``, ``langsmith:...``) left out of a
#: token's ``"tags"`` metadata, which shows the user's tags only (as LangGraph's).
_INTERNAL_TAG_PREFIXES = ("seq:step:", "graph:step:", "langsmith:")
_HIDDEN, _NOSTREAM = "langsmith:hidden", "nostream"


class LangChainHandler:
    """The attributes LangChain's callback managers read on a handler (a LangChain model or
    tool called in a node reaches the stream handlers too): none ignored, errors logged,
    called inline (in the model's thread, so chunks keep their order), as LangGraph's."""

    raise_error = False
    run_inline = True
    ignore_llm = ignore_chain = ignore_agent = ignore_retriever = ignore_chat_model = False
    ignore_retry = ignore_custom_event = False


class LiveSink:
    """Where chunks made while nodes run go; the driver points ``sink`` at its queue."""

    def __init__(self) -> None:
        self.sink: Any = lambda item: None


def graph_namespace(metadata: Mapping[str, Any]) -> tuple[str, ...]:
    """The namespace of the graph a node runs in, from its run metadata (its own
    ``node:task_id`` level dropped): ``()`` for the root graph's nodes."""
    ns = str(metadata.get("langgraph_checkpoint_ns") or "")
    return tuple(ns.split(NS_SEP)[:-1]) if ns else ()


class MessagesHandler(LiveSink, LangChainHandler):
    """A callback handler turning model tokens into ``(chunk, metadata)`` chunks (a model
    called without streaming gives its whole message at the end); the loop hands it the
    messages nodes return (:meth:`node_finished`). ``subgraphs``: whether the messages of
    subgraphs' nodes are streamed too; ``parent_ns``: the namespace of the graph this
    handler streams when that graph runs inside a node (its own nodes' messages are
    streamed, as its chunks). ``streams_model_tokens`` makes
    :meth:`BaseChatModel.invoke` stream while it listens."""

    streams_model_tokens = True  # rag._callbacks.wants_model_tokens: models stream inside invoke

    def __init__(self, subgraphs: bool = False, parent_ns: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.subgraphs = subgraphs
        self.parent_ns = parent_ns
        self._runs: dict[Any, tuple[tuple[str, ...], dict[str, Any]]] = {}
        self._streamed: set[Any] = set()
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def _namespace(self, metadata: Optional[Mapping[str, Any]]) -> Optional[tuple[str, ...]]:
        """The namespace chunks with this metadata go under, or None: not streamed."""
        if not metadata or "langgraph_node" not in metadata:
            return None
        ns = graph_namespace(metadata)
        if ns == self.parent_ns:
            return ()  # the nodes of the graph it streams
        return ns if self.subgraphs else None

    def emit(self, ns: tuple[str, ...], message: BaseMessage, metadata: dict[str, Any], *, dedupe: bool) -> None:
        """Stream ``message``; with ``dedupe``, only if its id was not seen before."""
        with self._lock:
            if dedupe and message.id is not None and message.id in self._seen:
                return
            if message.id is None:  # as LangGraph's: the id that marks it seen is the one it keeps
                message.id = str(uuid.uuid4())
            self._seen.add(message.id)
        self.sink(Nested(ns, "messages", (message, metadata)) if ns else Emit("messages", (message, metadata)))

    # -- nodes --------------------------------------------------------------------------
    def node_started(self, metadata: Mapping[str, Any], value: Any) -> None:
        """A node starts on ``value``: the messages in it count as seen (not streamed again
        when the node returns them)."""
        if self._namespace(metadata) is None:
            return
        ids = [m.id for m in _messages_in_values(value) if m.id is not None]
        if ids:
            with self._lock:
                self._seen.update(ids)

    def node_finished(self, metadata: dict[str, Any], output: Any) -> None:
        """A node returned ``output`` (an update, a Command, a list of them): its messages
        not seen yet are streamed."""
        ns = self._namespace(metadata)
        if ns is None:
            return
        shown = {**metadata, "ls_integration": "langgraph"}
        for message in _messages_in_output(output):
            self.emit(ns, message, shown, dedupe=True)

    # -- chat model callbacks -------------------------------------------------------------
    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: Any, metadata: Optional[dict] = None,
                            tags: Optional[list] = None, **kwargs: Any) -> None:
        ns = self._namespace(metadata)
        if ns is None or _NOSTREAM in (tags or []):
            return
        user_tags = [tag for tag in tags or [] if not tag.startswith(_INTERNAL_TAG_PREFIXES)]
        shown = dict(metadata or {})
        if user_tags:
            shown["tags"] = user_tags
        self._runs[run_id] = (ns, shown)

    def on_llm_new_token(self, token: str, *, chunk: Any = None, run_id: Any = None, **kwargs: Any) -> None:
        run = self._runs.get(run_id)
        if run is None or chunk is None:
            return
        self._streamed.add(run_id)
        self.emit(run[0], chunk, run[1], dedupe=False)

    def on_llm_end(self, response: Any, *, run_id: Any = None, **kwargs: Any) -> None:
        run = self._runs.pop(run_id, None)
        if run is None or run_id in self._streamed:
            self._streamed.discard(run_id)
            return
        for candidates in getattr(response, "generations", None) or []:
            for generation in candidates[:1]:
                message = getattr(generation, "message", None)
                if message is not None:
                    self.emit(run[0], message, run[1], dedupe=True)

    def on_llm_error(self, error: BaseException, *, run_id: Any = None, **kwargs: Any) -> None:
        self._runs.pop(run_id, None)
        self._streamed.discard(run_id)


def handler_in(config: Optional[Mapping[str, Any]]) -> Optional[MessagesHandler]:
    """The messages handler among ``config``'s callbacks (a run streaming "messages"), or None."""
    callbacks = (config or {}).get("callbacks")
    handlers = getattr(callbacks, "handlers", callbacks)  # a callback manager or a list
    if isinstance(handlers, list):
        for handler in handlers:
            if isinstance(handler, MessagesHandler):
                return handler
    return None


def push(config: dict[str, Any], message: BaseMessage, state_key: Optional[str]) -> None:
    """push_message's work: stream ``message`` now (when "messages" is streamed) with the
    running node's metadata, and keep ``(state_key, message)`` for the node's update."""
    handler = handler_in(config)
    metadata = config.get("metadata") or {}
    ns = handler._namespace(metadata) if handler is not None else None
    if handler is not None and ns is not None:
        handler.emit(ns, message, {**metadata, "ls_integration": "langgraph"}, dedupe=False)
    if state_key:
        pushed = (config.get("configurable") or {}).get(PUSHED)
        if pushed is None:
            raise RuntimeError("push_message(state_key=...) writes to the state of a running graph node; "
                               "call it inside a node (or pass state_key=None to only stream)")
        pushed.append((state_key, message))


def pushed_writes(config: Mapping[str, Any]) -> Optional[dict[str, list[BaseMessage]]]:
    """The state update the node's push_message calls make (``{key: [message...]}``), or None."""
    pushed = (config.get("configurable") or {}).get(PUSHED)
    if not pushed:
        return None
    update: dict[str, list[BaseMessage]] = {}
    for key, message in pushed:
        update.setdefault(key, []).append(message)
    return update


def _messages_in_values(value: Any) -> Iterable[BaseMessage]:
    """Messages held by a node's input or update: a value that is a message or a list of them."""
    if isinstance(value, dict):
        values: Iterable[Any] = value.values()
    elif hasattr(value, "model_fields") or hasattr(value, "__dataclass_fields__"):
        names = getattr(type(value), "model_fields", None) or getattr(value, "__dataclass_fields__", {})
        values = [getattr(value, name, None) for name in names]
    else:
        return
    for item in values:
        if isinstance(item, BaseMessage):
            yield item
        elif isinstance(item, (list, tuple)):
            yield from (m for m in item if isinstance(m, BaseMessage))


def _messages_in_output(output: Any) -> Iterable[BaseMessage]:
    if isinstance(output, Command):
        output = output.update
    if isinstance(output, BaseMessage):
        yield output
    elif isinstance(output, Sequence) and not isinstance(output, str):
        for item in output:
            if isinstance(item, BaseMessage):
                yield item
            else:
                yield from _messages_in_output(item) if isinstance(item, Command) else _messages_in_values(item)
    else:
        yield from _messages_in_values(output)
