"""CompiledStateGraph: a StateGraph ready to run, with its state API.

``invoke``/``stream``/``batch`` and their async forms run the graph (see
:mod:`rag.graph._loop` for what a step does); ``get_state``, ``get_state_history`` and
``update_state`` read and edit a thread's checkpoints (time travel: pass the config of
a past checkpoint to ``invoke(None, ...)`` or ``update_state`` to fork from it).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any, AsyncIterator, Iterator, Optional, Sequence, Union

from rag.errors import ValidationError
from rag.graph._drive import LiveSink, MessagesHandler, adrive, drive
from rag.graph._loop import INTERRUPT, Loop
from rag.graph._subgraphs import (NS_SEP, Nested, arelay, child_config, graph_for_namespace, link_of, nested_sink, out_chunk,
                                  relay, saver_of, subgraphs_of, task_states)
from rag.graph._drawing import draw_graph
from rag.graph._edges import node_triggers
from rag.graph._durability import run_options
from rag.graph._run_modes import STREAM_MODES, StreamMode, print_chunk, print_modes, stream_modes
from rag.graph._shown import shown, visible, visible_chunk
from rag.graph._snapshot import snapshot
from rag.graph._stream_tools import ToolsHandler, with_handler
from rag.graph._time_travel import root_config, with_checkpoint_map
from rag.graph._update import asave_superstep, check_supersteps, save_superstep
from rag.graph.constants import END
from rag.graph.errors import CheckpointerRequiredError
from rag.graph.types import Interrupt, StateSnapshot, StateUpdate
from rag.runnables import Runnable, RunnableConfig
from rag.runnables.config import merge_configs
from rag.runnables.graph import Graph

import rag.graph  # type hints: rag.graph.state_graph imports this module

__all__ = ["CompiledStateGraph", "STREAM_MODES"]


class CompiledStateGraph(Runnable[Any, dict]):
    """A compiled graph: a Runnable from a state dict (or a :class:`~rag.graph.types.Command`,
    or None to resume) to the final state.

    ``config`` keys: ``configurable.thread_id`` (needed with a checkpointer),
    ``configurable.checkpoint_id`` (run from that checkpoint), ``recursion_limit``
    (supersteps per invocation, default 25), plus the usual callbacks/tags/metadata.
    """

    @classmethod
    def lc_id(cls) -> list[str]:
        """LangGraph's serialised id of a compiled graph (``get_graph().to_json()`` shows it)."""
        return ["langgraph", "graph", "state", "CompiledStateGraph"]

    #: Seconds one step may run (None: no limit, the default); past it the run raises
    #: ``TimeoutError`` and async nodes still running are cancelled (threads cannot be).
    step_timeout: Optional[float] = None

    #: Streamed modes whose chunks are made while nodes run, so nodes run beside the stream;
    #: the functional API adds "updates" (each @task result as it finishes).
    live_modes = frozenset({"custom"})

    def __init__(self, builder: rag.graph.state_graph.StateGraph, checkpointer: Any, interrupt_before: tuple[str, ...],
                 interrupt_after: tuple[str, ...], *, name: str = "LangGraph") -> None:
        self.builder = builder
        self.checkpointer = checkpointer
        self.interrupt_before_nodes = interrupt_before
        self.interrupt_after_nodes = interrupt_after
        self.name = name
        self.config: RunnableConfig = {}  # defaults under each call's config (with_config)
        self.edges_from: dict[str, list[str]] = {}
        for source, target in builder.edges:
            self.edges_from.setdefault(source, []).append(target)
        self.joins_from: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for sources, target in builder.joins:
            for source in sources:
                self.joins_from.setdefault(source, []).append((sources, target))
        self.triggers = node_triggers(builder.nodes, builder.joins)  # each node's tasks' (rag.graph._edges)

    # -- running ----------------------------------------------------------------------------
    @property
    def nodes(self) -> dict[str, Any]:
        """The graph's nodes by name (what ``add_node`` was given), as LangGraph's ``graph.nodes``."""
        return dict(self.builder.nodes)

    def with_config(self, config: Optional[RunnableConfig] = None, **options: Any) -> "CompiledStateGraph":
        """A copy of this graph whose calls run with ``config`` (and ``options``) merged
        under their own config, as LangGraph's: still a graph (``get_state`` and the rest
        work), unlike the generic Runnable binding."""
        clone = copy.copy(self)
        clone.config = merge_configs(self.config, config, options)
        return clone

    def _with_defaults(self, config: Optional[RunnableConfig]) -> Optional[RunnableConfig]:
        return merge_configs(self.config, config) if self.config else config

    @staticmethod
    def _check_options(options: dict[str, Any], config: Optional[RunnableConfig]) -> Optional[RunnableConfig]:
        """LangGraph's run options checked; ``config`` with ``durability`` (rag.graph._durability)."""
        return run_options(options, config)  # type: ignore[return-value]

    def _loop(self, config: Optional[RunnableConfig], modes: frozenset[str], interrupt_before: Any,
              interrupt_after: Any, context: Any = None, control: Any = None,
              subgraphs: bool = False) -> tuple[Loop, Optional[LiveSink]]:
        link = link_of(self)  # run inside a parent's node: rag.graph._subgraphs
        if link is not None:
            config = child_config(link, config)
            if link.forward is not None:  # the parent streams with subgraphs=True
                modes = modes | (link.parent.modes - {"messages", "tools"})  # the root's handlers serve it
        elif config and self.checkpointer not in (None, True, False):  # a subgraph's checkpoint config:
            config = root_config(config)  # the root travels to its checkpoint_map
        parent_ns = tuple(link.ns.split(NS_SEP)) if link is not None else ()
        handler = MessagesHandler(subgraphs, parent_ns) if "messages" in modes else None
        live = handler or (LiveSink() if modes & self.live_modes or subgraphs or "tools" in modes else None)
        if "tools" in modes:  # the nodes' tools reach it through their callbacks (rag.graph._stream_tools)
            config = with_handler(config, ToolsHandler(live, subgraphs, parent_ns))
        before = self.interrupt_before_nodes if interrupt_before is None else self.builder._interrupt_names(interrupt_before)
        after = self.interrupt_after_nodes if interrupt_after is None else self.builder._interrupt_names(interrupt_after)
        loop = Loop(self, dict(config or {}), modes, interrupt_before=before, interrupt_after=after,
                    messages=handler, live=live, context=context, control=control, link=link)
        if subgraphs and link is None:
            loop.nested = nested_sink(live)
        return loop, live

    def stream(self, input: Any, config: Optional[RunnableConfig] = None, *, context: Any = None, control: Any = None,
               stream_mode: StreamMode = "updates", interrupt_before: Any = None, interrupt_after: Any = None,
               **kwargs: Any) -> Iterator[Any]:
        """Chunks as the graph runs: ``"values"`` (the state after each step), ``"updates"``
        (``{node: update}`` per node), ``"messages"`` (``(message chunk, metadata)`` for
        every model token in a node), ``"custom"`` (what nodes pass to
        :func:`~rag.graph.config.get_stream_writer`'s writer), ``"checkpoints"``, ``"tasks"``
        and ``"debug"`` (LangGraph's payloads, see :mod:`rag.graph._debug_stream`); a list of
        modes yields ``(mode, chunk)`` pairs. ``subgraphs=True``: subgraphs' chunks too, each
        item prefixed with its namespace (``()`` for this graph's own). ``context``: the run's context, given to nodes as
        ``runtime.context`` (a dict becomes the graph's dataclass or pydantic
        ``context_schema``); ``control``: a :class:`~rag.graph.runtime.RunControl` through
        which the caller (or a node) can ask the run to stop after the step under way."""
        config = self._check_options(kwargs, config)
        modes, single = stream_modes(stream_mode)
        printed = print_modes(kwargs)  # print_mode=: rag.graph._run_modes
        subgraphs = bool(kwargs.get("subgraphs"))

        def body(value: Any, child: RunnableConfig) -> Iterator[Any]:
            loop, handler = self._loop(child, modes | printed, interrupt_before, interrupt_after, context, control,
                                       subgraphs)
            for emit in relay(loop, drive(self, loop.run(value), handler)):
                if printed:
                    print_chunk(self, emit, printed, subgraphs)
                if emit.mode in modes:
                    chunk = self._visible_chunk(emit) if type(emit) is not Nested else emit.chunk
                    yield out_chunk(emit, chunk, single, subgraphs)

        return self._stream_traced(body, input, self._with_defaults(config))

    async def astream(self, input: Any, config: Optional[RunnableConfig] = None, *, context: Any = None,
                      control: Any = None,
                      stream_mode: StreamMode = "updates", interrupt_before: Any = None,
                      interrupt_after: Any = None, **kwargs: Any) -> AsyncIterator[Any]:
        """Async :meth:`stream`; async nodes run on the event loop, sync ones in threads."""
        config = self._check_options(kwargs, config)
        modes, single = stream_modes(stream_mode)
        printed = print_modes(kwargs)  # print_mode=: rag.graph._run_modes
        subgraphs = bool(kwargs.get("subgraphs"))

        async def body(value: Any, child: RunnableConfig) -> AsyncIterator[Any]:
            loop, handler = self._loop(child, modes | printed, interrupt_before, interrupt_after, context, control,
                                       subgraphs)
            async for emit in arelay(loop, adrive(self, loop.run(value), handler)):
                if printed:
                    print_chunk(self, emit, printed, subgraphs)
                if emit.mode in modes:
                    chunk = self._visible_chunk(emit) if type(emit) is not Nested else emit.chunk
                    yield out_chunk(emit, chunk, single, subgraphs)

        async for chunk in self._astream_traced(body, input, self._with_defaults(config)):
            yield chunk

    @staticmethod
    def _output(loop: Loop) -> dict[str, Any]:
        output = loop.shown if loop.shown is not None else loop.state()
        if loop.interrupts:
            output[INTERRUPT] = list(loop.interrupts)
        return loop.graph._shown(output)

    def _visible_chunk(self, emit: Any) -> Any:
        """A stream chunk as the caller sees it (:func:`rag.graph._shown.visible_chunk`)."""
        return visible_chunk(self, emit)

    def _visible(self, values: Any) -> Any:
        """The channel values as the "values" stream and snapshots show them (:func:`rag.graph._shown.visible`)."""
        return visible(self, values)

    def _shown(self, values: Any) -> Any:
        """What ``invoke`` returns of the channel values (:func:`rag.graph._shown.shown`)."""
        return shown(self, values)

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, *, context: Any = None, control: Any = None,
               interrupt_before: Any = None, interrupt_after: Any = None, **kwargs: Any) -> dict[str, Any]:
        """Run to the end (or a pause) and return the state; a pause by ``interrupt()``
        adds ``"__interrupt__": [Interrupt(...)]``. ``context``, ``control``: as in :meth:`stream`.
        ``stream_mode`` other than "values" (LangGraph's): the list of :meth:`stream`'s chunks."""
        stream_mode = kwargs.pop("stream_mode", "values")
        if stream_mode != "values":
            return list(self.stream(input, config, context=context, control=control, stream_mode=stream_mode,  # type: ignore[return-value]
                                    interrupt_before=interrupt_before, interrupt_after=interrupt_after, **kwargs))
        config = self._check_options(kwargs, config)
        printed = print_modes(kwargs)

        def body(value: Any, child: RunnableConfig) -> dict[str, Any]:
            loop, live = self._loop(child, printed, interrupt_before, interrupt_after, context, control)
            for emit in relay(loop, drive(self, loop.run(value), live)):
                if printed:
                    print_chunk(self, emit, printed, False)
            return self._output(loop)

        return self._call_traced(body, input, self._with_defaults(config))

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, *, context: Any = None,
                      control: Any = None,
                      interrupt_before: Any = None, interrupt_after: Any = None, **kwargs: Any) -> dict[str, Any]:
        stream_mode = kwargs.pop("stream_mode", "values")
        if stream_mode != "values":
            return [chunk async for chunk in self.astream(  # type: ignore[return-value]
                input, config, context=context, control=control, stream_mode=stream_mode,
                interrupt_before=interrupt_before, interrupt_after=interrupt_after, **kwargs)]
        config = self._check_options(kwargs, config)
        printed = print_modes(kwargs)

        async def body(value: Any, child: RunnableConfig) -> dict[str, Any]:
            loop, live = self._loop(child, printed, interrupt_before, interrupt_after, context, control)
            async for emit in arelay(loop, adrive(self, loop.run(value), live)):
                if printed:
                    print_chunk(self, emit, printed, False)
            return self._output(loop)

        return await self._acall_traced(body, input, self._with_defaults(config))

    # -- schemas (rag.runnables.schema; LangGraph 1.2 fails here for typing.TypedDict on 3.11) --
    def get_input_jsonschema(self, config: Optional[RunnableConfig] = None) -> dict[str, Any]:
        """The input schema's JSON Schema as LangGraph gives it (see :func:`rag.graph._schemas.json_schema`)."""
        from rag.graph._schemas import json_schema

        if type(self)._input_jsonschema is not Runnable._input_jsonschema:  # the functional API's own
            return super().get_input_jsonschema(config)
        return json_schema(self.builder.input_shape, self._schema_title("Input"))

    def get_output_jsonschema(self, config: Optional[RunnableConfig] = None) -> dict[str, Any]:
        """The output schema's JSON Schema (default: the state schema's), as LangGraph gives it."""
        from rag.graph._schemas import json_schema

        if type(self)._output_jsonschema is not Runnable._output_jsonschema:
            return super().get_output_jsonschema(config)
        return json_schema(self.builder.output_shape, self._schema_title("Output"))

    # -- node cache -------------------------------------------------------------------------
    #: The node cache (``compile(cache=...)``), or None.
    cache: Any = None

    def clear_cache(self, nodes: Optional[Sequence[str]] = None) -> None:
        """Forget the cached results of ``nodes`` (default: every node). Raises
        ``ValueError`` when the graph has no cache, or naming a node it does not have
        (LangGraph skips unknown names)."""
        from rag.graph._node_cache import namespaces

        if self.cache is None:
            raise ValidationError("No cache is set for this graph. Cannot clear cache: compile(cache=InMemoryCache())")
        self.cache.clear(namespaces(self, None if nodes is None else list(nodes)))

    async def aclear_cache(self, nodes: Optional[Sequence[str]] = None) -> None:
        """Async :meth:`clear_cache`."""
        from rag.graph._node_cache import namespaces

        if self.cache is None:
            raise ValidationError("No cache is set for this graph. Cannot clear cache: compile(cache=InMemoryCache())")
        await self.cache.aclear(namespaces(self, None if nodes is None else list(nodes)))

    @property
    def context_schema(self) -> Optional[type]:
        """The builder's ``context_schema`` (None when it has none)."""
        return getattr(self.builder, "context_schema", None)

    def get_context_jsonschema(self) -> Optional[dict[str, Any]]:
        """The JSON schema of ``context_schema`` (a dataclass, TypedDict or pydantic model),
        or None when the graph has none (as LangGraph's)."""
        if self.context_schema is None:
            return None
        from pydantic import TypeAdapter

        return TypeAdapter(self.context_schema).json_schema()

    # -- state API --------------------------------------------------------------------------
    def _need_saver(self, what: str) -> Any:
        if self.checkpointer is True:  # a subgraph's own state is read through its parent (get_subgraphs)
            saver_of(self, None)
        if self.checkpointer is None or self.checkpointer is False:
            raise CheckpointerRequiredError(
                f"{what} reads saved threads, but this graph has no checkpointer: compile(checkpointer=InMemorySaver())"
            )
        return self.checkpointer

    def _snapshot(self, saved: Any, config: Any, *, pending: bool = False) -> StateSnapshot:
        """``saved`` as a snapshot (see :func:`rag.graph._snapshot.snapshot`)."""
        return snapshot(self, saved, config, pending=pending)

    def get_state(self, config: RunnableConfig, *, subgraphs: bool = False) -> StateSnapshot:
        """The thread's newest checkpoint (or the one ``configurable.checkpoint_id`` names);
        an empty snapshot for a thread never run. A task that ran a subgraph carries in
        ``state`` the config that reads the subgraph's state (``subgraphs=True``: its
        snapshot). A config whose ``checkpoint_ns`` names a subgraph reads that subgraph's."""
        saver = self._need_saver("get_state")
        graph = graph_for_namespace(self, config)
        snapshot = graph._snapshot(saver.get_tuple(config), config, pending=_newest(config))
        return replace(snapshot, tasks=task_states(graph, saver, config, snapshot.tasks, subgraphs))

    async def aget_state(self, config: RunnableConfig, *, subgraphs: bool = False) -> StateSnapshot:
        import asyncio

        return await asyncio.to_thread(self.get_state, config, subgraphs=subgraphs)

    def get_subgraphs(self, *, namespace: Optional[str] = None, recurse: bool = False) -> Iterator[tuple[str, Any]]:
        """``(namespace, graph)`` for each node that is a compiled graph (LangGraph's):
        ``namespace`` keeps only the one it names, ``recurse`` adds theirs (``"a|b"``)."""
        return subgraphs_of(self, namespace, recurse)

    async def aget_subgraphs(self, *, namespace: Optional[str] = None,
                             recurse: bool = False) -> AsyncIterator[tuple[str, Any]]:
        for item in subgraphs_of(self, namespace, recurse):
            yield item

    def get_state_history(self, config: RunnableConfig, *, filter: Optional[dict[str, Any]] = None,
                          before: Optional[RunnableConfig] = None, limit: Optional[int] = None) -> Iterator[StateSnapshot]:
        """The thread's checkpoints, newest first (``filter`` on metadata, e.g. ``{"step": 2}``)."""
        saver = self._need_saver("get_state_history")
        plain = {"configurable": {k: v for k, v in (config.get("configurable") or {}).items() if k != "checkpoint_id"}}
        graph = graph_for_namespace(self, config)
        for saved in saver.list(plain, filter=filter, before=before, limit=limit):
            snapshot = graph._snapshot(saved, config)
            yield replace(snapshot, tasks=task_states(graph, saver, saved.config, snapshot.tasks, False))

    async def aget_state_history(self, config: RunnableConfig, *, filter: Optional[dict[str, Any]] = None,
                                 before: Optional[RunnableConfig] = None,
                                 limit: Optional[int] = None) -> AsyncIterator[StateSnapshot]:
        saver = self._need_saver("aget_state_history")
        plain = {"configurable": {k: v for k, v in (config.get("configurable") or {}).items() if k != "checkpoint_id"}}
        graph = graph_for_namespace(self, config)  # a subgraph's namespace: read with its keys
        async for saved in saver.alist(plain, filter=filter, before=before, limit=limit):
            snapshot = graph._snapshot(saved, config)  # its subgraph tasks' state configs as get_state_history's
            yield replace(snapshot, tasks=task_states(graph, saver, saved.config, snapshot.tasks, False))

    def update_state(self, config: RunnableConfig, values: Optional[dict[str, Any]], as_node: Optional[str] = None) -> dict[str, Any]:
        """Apply ``values`` through the reducers as if node ``as_node`` had returned them
        (default: the node that ran last), save a new checkpoint (source "update") whose
        ``next`` follows ``as_node``'s edges (nodes already due stay due), and return its
        config. From a past checkpoint (its config) this forks the thread: later
        invocations continue from the fork. ``as_node="__copy__"`` saves a copy of the
        checkpoint beside it (source "fork"); ``as_node=END`` leaves nothing to run."""
        return self.bulk_update_state(config, [[StateUpdate(values, as_node)]])

    async def aupdate_state(self, config: RunnableConfig, values: Optional[dict[str, Any]],
                            as_node: Optional[str] = None) -> dict[str, Any]:
        return await self.abulk_update_state(config, [[StateUpdate(values, as_node)]])

    def bulk_update_state(self, config: RunnableConfig, supersteps: Sequence[Sequence[StateUpdate]]) -> dict[str, Any]:
        """Several supersteps of updates (each a list of ``StateUpdate(values, as_node)``
        applied together), one checkpoint each; returns the last one's config."""
        saver = self._need_saver("bulk_update_state")
        graph = graph_for_namespace(self, config, saver=saver, for_update=True)
        for updates in check_supersteps(supersteps):  # each a checkpoint, its updates as task results
            config = save_superstep(saver, graph, saver.get_tuple(config), config, updates)
        return config

    async def abulk_update_state(self, config: RunnableConfig,
                                 supersteps: Sequence[Sequence[StateUpdate]]) -> dict[str, Any]:
        saver = self._need_saver("abulk_update_state")
        graph = graph_for_namespace(self, config, saver=saver, for_update=True)
        for updates in check_supersteps(supersteps):
            config = await asave_superstep(saver, graph, await saver.aget_tuple(config), config, updates)
        return config

    # -- drawing ----------------------------------------------------------------------------
    def get_graph(self, config: Optional[RunnableConfig] = None, *, xray: Union[bool, int] = False) -> Graph:
        """The graph's diagram: ``__start__``, the nodes, ``__end__``; conditional edges
        are marked (dotted in Mermaid). ``draw_ascii()`` and ``draw_mermaid()`` draw it;
        ``xray``: compiled-graph nodes drawn as their own diagrams (an int: that many levels)."""
        return draw_graph(self, xray=xray, config=config)


def _newest(config: Any) -> bool:
    """Whether ``config`` asks for a thread's newest checkpoint (no ``checkpoint_id``)."""
    return not ((config or {}).get("configurable") or {}).get("checkpoint_id")
