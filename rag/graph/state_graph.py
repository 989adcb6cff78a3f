"""StateGraph: the builder. Nodes, edges, conditional edges; ``compile()`` checks them.

>>> import operator
>>> from typing import Annotated, TypedDict
>>> class State(TypedDict):
...     count: int
...     seen: Annotated[list, operator.add]
>>> graph = StateGraph(State)
>>> graph.add_node("step", lambda s: {"count": s["count"] + 1, "seen": [s["count"]]})  # doctest: +ELLIPSIS
<...StateGraph object at ...>
>>> graph.add_edge(START, "step").add_conditional_edges("step", lambda s: "step" if s["count"] < 3 else END)  # doctest: +ELLIPSIS
<...>
>>> graph.compile().invoke({"count": 0})
{'count': 3, 'seen': [0, 1, 2]}
"""


import copy
import inspect
import warnings
from typing import Any, Callable, Hashable, Optional, Sequence, Union

from rag.errors import ValidationError
from rag.graph._branch import Branch, literal_ends
from rag.graph._error_handlers import handler_name, handler_runnable
from rag.graph._inject import with_injection
from rag.graph._node_options import graph_input, node_options
from rag.graph._schemas import StateShape, merge_channels, node_input_schema, node_output_schema, shape_of, wrap_node
from rag.graph.constants import END, START
from rag.graph.errors import InvalidCheckpointerError
from rag.graph.pregel import CompiledStateGraph
from rag.graph.retry import RetryPolicy
from rag.graph.state import Channel, channels_of
from rag.graph.types import CachePolicy
from rag.graph._node_runnable import NodeRunnable
from rag.runnables import Runnable

__all__ = ["StateGraph", "Branch"]

_RESERVED = (START, END)


class StateGraph:
    """A graph whose nodes read the state (a TypedDict) and return updates to it.

    ``add_node(name, fn)``: ``fn(state)`` or ``fn(state, config)``, sync or async, or any
    Runnable; it returns a dict of updates (only keys of the state), a
    :class:`~rag.graph.types.Command`, or None. Keys annotated with a reducer
    (``Annotated[list, operator.add]``, ``Annotated[list, add_messages]``) combine updates;
    other keys are overwritten. Builder methods return the graph, so calls chain.
    ``context_schema``: the type of the run's context (``invoke(..., context=...)``), which
    nodes read as ``runtime.context`` by declaring a ``runtime`` parameter (see
    :mod:`rag.graph._inject` for every injected parameter); ``config_schema`` is its
    deprecated LangGraph name (a ``DeprecationWarning``; used when ``context_schema`` is not given).
    """

    def __init__(self, state_schema: type, context_schema: Optional[type] = None, *,
                 input_schema: Optional[type] = None, output_schema: Optional[type] = None,
                 config_schema: Optional[type] = None) -> None:
        if config_schema is not None:
            warnings.warn("`config_schema` is deprecated and will be removed. Please use `context_schema` instead.",
                          DeprecationWarning, stacklevel=2)
            context_schema = context_schema or config_schema
        self.context_schema = context_schema
        self.state_schema = state_schema
        self.channels: dict[str, Channel] = channels_of(state_schema)
        # Every state type LangGraph takes (rag.graph._schemas): the input keeps the input
        # schema's keys, the graph returns the output schema's.
        self.shape: StateShape = shape_of(state_schema)
        self.input_shape = shape_of(input_schema) if input_schema is not None else self.shape
        self.output_shape = shape_of(output_schema) if output_schema is not None else self.shape
        self.input_schema, self.output_schema = input_schema or state_schema, output_schema or state_schema
        merge_channels(self.channels, self.input_shape)
        merge_channels(self.channels, self.output_shape)
        self.node_metadata: dict[str, dict[str, Any]] = {}
        self.destinations: dict[str, dict[str, Optional[str]]] = {}
        self.deferred: set[str] = set()
        self.nodes: dict[str, Runnable] = {}
        self.edges: list[tuple[str, str]] = []
        self.joins: list[tuple[tuple[str, ...], str]] = []
        self.branches: dict[str, list[Branch]] = {}
        self.retry_policies: dict[str, list[RetryPolicy]] = {}
        self.cache_policies: dict[str, CachePolicy] = {}
        self.error_handlers: dict[str, Runnable] = {}  # node -> its error handler (rag.graph._error_handlers)

    def graph_input(self, value: Any) -> Any:
        """The graph's input as a dict update (see :func:`rag.graph._node_options.graph_input`)."""
        return graph_input(self.input_shape, self.channels, value)

    # -- building ---------------------------------------------------------------------------
    def add_node(self, node: Union[str, Callable[..., Any], Runnable],
                 action: Optional[Union[Callable[..., Any], Runnable]] = None, *,
                 retry_policy: Union[RetryPolicy, Sequence[RetryPolicy], None] = None,
                 cache_policy: Optional[CachePolicy] = None, input_schema: Optional[type] = None,
                 defer: bool = False, destinations: Union[dict[str, str], tuple[str, ...], None] = None,
                 metadata: Optional[dict[str, Any]] = None, error_handler: Any = None,
                 **kwargs: Any) -> "StateGraph":
        """Add ``action`` under the name ``node`` (or ``add_node(fn)``: named ``fn.__name__``).
        ``retry_policy``: a :class:`~rag.graph.retry.RetryPolicy` (or several: the first
        that retries an error applies) to run the node again when it raises;
        ``cache_policy``: a :class:`~rag.graph.types.CachePolicy` to reuse the node's
        result for an input seen before (with ``compile(cache=...)``); ``input_schema``: the
        schema the node reads (default: its first parameter's annotation when that is a schema,
        else the state), whose keys join the state as private channels; ``destinations``: the
        nodes a node returning ``Command(goto=...)`` may go to (a tuple, or a dict from node to
        edge label), for drawings (also read from a ``-> Command[Literal["a", "b"]]``
        annotation); ``defer``: run the node only when nothing else is due (after fan-outs
        of uneven length); ``metadata``: kept with the node (``graph.builder.node_metadata``)
        and shown on its drawing; ``error_handler``: a function (or Runnable) run in the node's
        place when it raises, see :mod:`rag.graph._error_handlers`."""
        if cache_policy is not None and not isinstance(cache_policy, CachePolicy):
            raise ValidationError(f"cache_policy must be a CachePolicy, got {cache_policy!r:.80}")
        policies = [] if retry_policy is None else (
            [retry_policy] if isinstance(retry_policy, RetryPolicy) else list(retry_policy))
        if not all(isinstance(policy, RetryPolicy) for policy in policies):
            raise ValidationError(f"retry_policy must be a RetryPolicy or a list of them, got {retry_policy!r:.80}")
        if kwargs:
            raise ValidationError(f"add_node does not take {sorted(kwargs)}; pass a name and a function or Runnable")
        if action is None:
            action, node = node, getattr(node, "name", None) or getattr(node, "__name__", None) or (  # type: ignore[assignment]
                type(node).__name__ if callable(node) and not isinstance(node, Runnable) else None)  # an object: its class
        if not isinstance(node, str) or not node:
            raise ValidationError(f"a node needs a non-empty str name, got {node!r}")
        if node in _RESERVED:
            raise ValidationError(f"{node!r} is reserved (START/END); choose another node name")
        if node in self.nodes:
            raise ValidationError(f"node {node!r} is already in the graph")
        if isinstance(action, Runnable):
            runnable = action
        elif callable(action):
            runnable = self._runnable(node, action, input_schema)
        else:
            raise ValidationError(f"node {node!r} needs a function or a Runnable, got {type(action).__name__}")
        if error_handler is not None:
            self.error_handlers[node] = handler_runnable(
                node, error_handler, lambda fn: self._runnable(handler_name(node), fn, input_schema))
        self.nodes[node] = runnable
        if policies:
            self.retry_policies[node] = policies
        if cache_policy is not None:
            self.cache_policies[node] = cache_policy
        self._node_options(node, action, defer, destinations, metadata)
        return self

    def _runnable(self, name: str, action: Callable[..., Any], input_schema: Optional[type]) -> Runnable:
        """A node function as a Runnable: its injected parameters filled in, the state read
        and written as its schema says."""
        # An object with an async __call__: its bound method is what RunnableLambda must await.
        is_async_object = not inspect.isroutine(action) and inspect.iscoroutinefunction(
            getattr(action, "__call__", None))
        reads = self._reads(action, input_schema)
        written = node_output_schema(action)
        if written is not None:
            merge_channels(self.channels, shape_of(written))
        func = with_injection(action.__call__ if is_async_object else action)
        if not (reads.plain and self.shape.plain and set(reads.keys) >= set(self.channels)):
            func = wrap_node(func, reads, self.shape)
        node = NodeRunnable(func, name=name)
        node.given = action
        return node

    def _reads(self, action: Any, input_schema: Optional[type]) -> StateShape:
        """The shape ``action`` reads: ``input_schema``, its first parameter's schema (private
        state: its keys join the channels), or the state (with its private keys, as LangGraph's)."""
        schema = input_schema if input_schema is not None else node_input_schema(action)
        if schema is None or schema is self.state_schema:
            return self.shape
        shape = shape_of(schema)
        merge_channels(self.channels, shape)
        return shape

    def _node_options(self, node: str, action: Any, defer: Any, destinations: Any, metadata: Any) -> None:
        options = node_options(node, action, defer, destinations, metadata)
        if options.metadata:
            self.node_metadata[node] = options.metadata
        if options.defer:
            self.deferred.add(node)
        if options.destinations:
            self.destinations[node] = options.destinations

    def add_edge(self, start_key: Union[str, Sequence[str]], end_key: str) -> "StateGraph":
        """Run ``end_key`` after ``start_key``; with a list of sources, after all of them ran."""
        if isinstance(start_key, str):
            if start_key == END:
                raise ValidationError("END cannot be the start of an edge")
            if end_key == START:
                raise ValidationError("START cannot be the end of an edge")
            self.edges.append((start_key, end_key))
        else:
            sources = tuple(start_key)
            if not sources or not all(isinstance(s, str) for s in sources):
                raise ValidationError(f"add_edge needs a node name or a list of them, got {start_key!r}")
            self.joins.append((sources, end_key))
        return self

    def add_conditional_edges(self, source: str, path: Union[Callable[..., Any], Runnable],
                              path_map: Optional[Union[dict[Hashable, str], list[str]]] = None) -> "StateGraph":
        """After ``source``, run the node(s) ``path(state)`` names (through ``path_map``)."""
        if not callable(path) and not isinstance(path, Runnable):
            raise ValidationError(f"add_conditional_edges needs a function as path, got {type(path).__name__}")
        if isinstance(path_map, list):
            path_map = {name: name for name in path_map}
        elif path_map is not None and not isinstance(path_map, dict):
            raise ValidationError(f"path_map must be a dict or a list of node names, got {type(path_map).__name__}")
        ends = tuple(path_map.values()) if path_map else literal_ends(path)
        reads = self._reads(path, None) if callable(path) and not isinstance(path, Runnable) else self.shape
        reader = None if reads.plain and self.shape.plain and set(reads.keys) >= set(self.channels) else reads.read
        self.branches.setdefault(source, []).append(Branch(source, path, path_map, ends, reader))
        return self

    def add_sequence(self, nodes: Sequence[Union[Callable[..., Any], tuple[str, Any]]]) -> "StateGraph":
        """Add nodes joined one after another (names from functions, or ``(name, fn)`` pairs)."""
        if not nodes:
            raise ValidationError("add_sequence needs at least one node, got an empty sequence")
        previous = None
        for item in nodes:
            name, action = item if isinstance(item, tuple) else (getattr(item, "__name__", None), item)
            self.add_node(name, action)
            if previous is not None:
                self.add_edge(previous, name)
            previous = name
        return self

    def set_entry_point(self, key: str) -> "StateGraph":
        return self.add_edge(START, key)

    def set_conditional_entry_point(self, path: Callable[..., Any],
                                    path_map: Optional[Union[dict[Hashable, str], list[str]]] = None) -> "StateGraph":
        return self.add_conditional_edges(START, path, path_map)

    def set_finish_point(self, key: str) -> "StateGraph":
        return self.add_edge(key, END)

    # -- checking and compiling ---------------------------------------------------------------
    def _check_node(self, name: str, where: str, *, allow: tuple[str, ...]) -> None:
        if name not in self.nodes and name not in allow:
            raise ValidationError(f"{where} names {name!r}, which is not a node; nodes are {list(self.nodes)}")

    def validate(self, interrupt: Sequence[str] = ()) -> None:
        """Raise naming the edge and the node for anything ``compile()`` cannot run."""
        for source, target in self.edges:
            if source != START and source not in self.nodes:  # LangGraph's wording, then ours
                raise ValidationError(f"Found edge starting at unknown node {source!r}: edge {source!r} -> {target!r}; "
                                      f"nodes are {list(self.nodes)}")
            self._check_node(target, f"edge {source!r} -> {target!r}", allow=(END,))
        for sources, target in self.joins:
            for source in sources:
                self._check_node(source, f"edge {list(sources)!r} -> {target!r}", allow=())
            self._check_node(target, f"edge {list(sources)!r} -> {target!r}", allow=(END,))
        for source, branches in self.branches.items():
            self._check_node(source, "a conditional edge", allow=(START,))
            for branch in branches:
                for target in branch.path_map.values() if branch.path_map else ():
                    self._check_node(target, f"the path_map of the conditional edge from {source!r}", allow=(END,))
        if not any(s == START for s, _ in self.edges) and START not in self.branches:
            raise ValidationError(
                "the graph has no entry point: add_edge(START, 'first_node') or set_entry_point('first_node')"
            )
        for name in interrupt:
            self._check_node(name, "interrupt_before/interrupt_after", allow=())

    def compile(self, checkpointer: Any = None, *, interrupt_before: Union[str, Sequence[str], None] = None,
                interrupt_after: Union[str, Sequence[str], None] = None, debug: bool = False,
                name: Optional[str] = None, store: Any = None, cache: Any = None) -> CompiledStateGraph:
        """A runnable graph. ``checkpointer``: a saver (e.g. ``InMemorySaver()``) to keep
        state per ``thread_id``; ``interrupt_before``/``interrupt_after``: node names (or
        ``"*"``: all) to pause at; ``name``: the run's name in traces (default "LangGraph");
        ``cache``: a :class:`~rag.graph.cache.BaseCache` (``InMemoryCache()``,
        ``SqliteCache(path=...)``) for the nodes added with a ``cache_policy``."""
        from rag.graph.cache.base import BaseCache
        from rag.graph.checkpoint.base import BaseCheckpointSaver
        if cache is not None and not isinstance(cache, BaseCache):
            raise ValidationError(f"cache must be a BaseCache such as InMemoryCache() or SqliteCache(path=...), got "
                                  f"{type(cache).__name__}")
        # True/False: a subgraph's "keep my state in my parent's saver" / "never checkpoint" (rag.graph._subgraphs)
        if checkpointer not in (None, True, False) and not isinstance(checkpointer, BaseCheckpointSaver):
            raise InvalidCheckpointerError(
                f"Invalid checkpointer provided: checkpointer must be a saver such as InMemorySaver() or "
                f"SqliteSaver(...), got {type(checkpointer).__name__}"
            )
        from rag.graph.store.base import BaseStore
        if store is not None and not isinstance(store, BaseStore):
            raise ValidationError(f"store must be a BaseStore such as InMemoryStore() or SqliteStore(...), got "
                                  f"{type(store).__name__}")
        before = self._interrupt_names(interrupt_before)
        after = self._interrupt_names(interrupt_after)
        self.validate([*before, *after])
        # A snapshot: nodes or edges added to this builder later do not change the compiled graph.
        frozen = copy.copy(self)
        frozen.nodes, frozen.edges, frozen.joins = dict(self.nodes), list(self.edges), list(self.joins)
        frozen.branches = {source: list(branches) for source, branches in self.branches.items()}
        frozen.retry_policies = {name: list(policies) for name, policies in self.retry_policies.items()}
        frozen.cache_policies = dict(self.cache_policies)
        frozen.error_handlers = dict(self.error_handlers)
        compiled = CompiledStateGraph(frozen, checkpointer, before, after, name=name or "LangGraph")
        compiled.store = store  # long-term memory: each run's Runtime (and get_store()) hands it to nodes
        compiled.cache = cache
        return compiled

    def _interrupt_names(self, names: Union[str, Sequence[str], None]) -> tuple[str, ...]:
        if names is None:
            return ()
        if names == "*":
            return tuple(self.nodes)
        if isinstance(names, str):
            return (names,)
        return tuple(names)


