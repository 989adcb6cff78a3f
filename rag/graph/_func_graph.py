"""What ``@entrypoint`` compiles to: a one-node graph on the graph's own loop.

The state has three channels, LangGraph's: ``__start__`` (the input), ``__end__`` (the
return value) and ``__previous__`` (the value saved for the thread's next run, what
``previous`` receives). The node is the decorated function; the tasks it calls are
recorded with its step (:mod:`rag.graph._calls`), so a resumed step replays them. The
compiled object is a :class:`~rag.graph.pregel.CompiledStateGraph` whose input, output,
stream chunks and snapshots are the return value itself rather than that state dict.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any, AsyncIterator, Callable, Iterator, Optional, Sequence

from rag import _callbacks
from rag.graph._calls import CALL_KEY, Caller, caller_of, is_async_callable
from rag.graph.constants import END, INTERRUPT, START
from rag.graph.errors import GraphInterrupt
from rag.graph.pregel import CompiledStateGraph
from rag.graph.types import CURRENT_TASK, Command, StateSnapshot, StateUpdate, TaskScope
from rag.runnables import Runnable, RunnableConfig

__all__ = ["EntrypointGraph", "EntrypointNode", "PREVIOUS", "Final"]

PREVIOUS = "__previous__"  #: the channel of the value ``previous`` receives (LangGraph's name)


class Final:
    """Marker base of ``entrypoint.final`` (defined in :mod:`rag.graph.func`)."""

    value: Any
    save: Any


class _Written(dict):
    """The entrypoint node's update, told apart in the "updates" stream from task results
    (which may use any name): shown there as the return value alone."""


def _merged(first: Sequence[Any], second: Sequence[Any]) -> tuple[Any, ...]:
    """Interrupts of both, each id once, in order."""
    seen: dict[str, Any] = {}
    for pause in (*first, *second):
        seen.setdefault(pause.id, pause)
    return tuple(seen.values())


class EntrypointNode(Runnable[dict, dict]):
    """The graph node running an ``@entrypoint`` function: its input from ``__start__``,
    ``previous`` from ``__previous__``, what it declares (``config``, ``runtime``,
    ``store``, ``writer``) injected; returns the writes of ``__end__`` and ``__previous__``.

    It waits for every task it started; if a task paused and the function went on anyway
    (or paused itself), the step pauses with all the pending interrupts (as LangGraph's)."""

    def __init__(self, func: Callable[..., Any], name: str) -> None:
        self.func = func
        self.name = name
        self.is_async = is_async_callable(func)

    def _arguments(self, state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        from rag.graph._inject import injected_params, runtime_of

        names = injected_params(self.func)
        if not names:
            return {}
        previous = state.get(PREVIOUS)
        values: dict[str, Any] = {"config": config, "previous": previous}
        if set(names) & {"runtime", "store", "writer"}:
            runtime = runtime_of(config)
            if runtime.previous is not previous:  # the run's runtime knows no previous: this thread's
                runtime = runtime.override(previous=previous)
            values.update(runtime=runtime, store=runtime.store, writer=runtime.stream_writer)
        return {name: values[name] for name in names}

    @staticmethod
    def _caller(config: RunnableConfig) -> Caller:
        caller = caller_of(config)
        assert caller is not None, "the graph loop gives every node a caller"
        return caller

    @staticmethod
    def _written(output: Any) -> "_Written":
        if isinstance(output, Final):
            return _Written({END: output.value, PREVIOUS: output.save})
        return _Written({END: output, PREVIOUS: output})

    def _finish(self, caller: Caller, error: Optional[BaseException]) -> None:
        """After the function: a pause of its own or of a task it called pauses the step."""
        pauses = caller.pauses()
        if isinstance(error, GraphInterrupt):
            raise GraphInterrupt(_merged(pauses, error.interrupts)) from None
        if error is not None:
            raise error
        if pauses:
            raise GraphInterrupt(_merged(pauses, ()))

    def _run(self, state: dict[str, Any], config: RunnableConfig) -> Any:
        caller = self._caller(config)
        caller.restart()
        try:
            output = self.func(state.get(START), **self._arguments(state, config))
        except Exception as exc:
            caller.join()
            self._finish(caller, exc)
        caller.join()
        self._finish(caller, None)
        return self._written(output)

    def invoke(self, input: dict[str, Any], config: Optional[RunnableConfig] = None, **kwargs: Any) -> dict[str, Any]:
        if self.is_async:
            raise TypeError(f"entrypoint {self.name!r} is an async function: run it with ainvoke or astream")
        return self._call_traced(self._run, input, config)

    async def ainvoke(self, input: dict[str, Any], config: Optional[RunnableConfig] = None,
                      **kwargs: Any) -> dict[str, Any]:
        async def body(state: dict[str, Any], child: RunnableConfig) -> Any:
            if not self.is_async:  # a sync function runs in a thread; its tasks use threads too
                return await asyncio.to_thread(self._run, state, child)
            caller = self._caller(child)
            caller.restart()
            try:
                output = await self.func(state.get(START), **self._arguments(state, child))
            except Exception as exc:
                await caller.ajoin()
                self._finish(caller, exc)
            await caller.ajoin()
            self._finish(caller, None)
            return self._written(output)

        return await self._acall_traced(body, input, config)


class EntrypointGraph(CompiledStateGraph):
    """An ``@entrypoint`` function compiled (LangGraph's ``Pregel`` for the functional
    API): ``invoke(input, config)`` returns what the function returns (or
    ``{"__interrupt__": [...]}`` when paused); ``stream`` yields ``{task name: result}``
    as tasks finish and ``{entrypoint name: return value}`` last ("updates", the default),
    or the return value ("values"); ``get_state(config).values`` is the last return value;
    ``update_state(config, value)`` sets it (and ``previous`` for the next run)."""

    live_modes = frozenset({"custom", "updates"})
    #: Channels the "tasks"/"debug" streams leave out of a task's result (LangGraph streams __end__ only).
    unstreamed = frozenset({PREVIOUS})

    def __init__(self, builder: Any, checkpointer: Any, *, node: str, store: Any = None,
                 input_type: Any = Any, output_type: Any = Any, name: str = "LangGraph") -> None:
        super().__init__(builder, checkpointer, (), (), name=name)
        self.triggers = {node: (START,)}  # LangGraph's: the input channel starts the entrypoint
        self.node = node
        self.store = store
        self.input_type = input_type
        self.output_type = output_type

    # -- shapes ---------------------------------------------------------------------------------
    @staticmethod
    def _graph_input(input: Any) -> Any:
        return input if input is None or isinstance(input, Command) else {START: input}

    @staticmethod
    def _returned(values: Any) -> Any:
        """The return value shown for the state ``values`` (with a pause's interrupts, as LangGraph's)."""
        if not isinstance(values, dict):
            return values
        value = values.get(END)
        if INTERRUPT in values:
            return {**value, INTERRUPT: values[INTERRUPT]} if isinstance(value, dict) else {INTERRUPT: values[INTERRUPT]}
        return value

    def _shown(self, values: Any) -> Any:
        """The state as the "checkpoints"/"debug" streams show it: the return value (None before it returns)."""
        return self._returned(values)

    def _visible_chunk(self, emit: Any) -> Any:
        """The entrypoint's own chunks as LangGraph's: "values" its return value, "updates"
        what it (or a @task) returned (streamed and printed alike; a subgraph's chunks are
        its own)."""
        chunk = super()._visible_chunk(emit)
        if emit.mode == "values":
            return self._returned(chunk)
        if emit.mode == "updates" and isinstance(chunk, dict):
            return {name: value.get(END) if isinstance(value, _Written) else value for name, value in chunk.items()}
        return chunk

    def _output(self, loop: Any) -> Any:  # type: ignore[override]
        if loop.interrupts:
            return self._returned({**loop.state(), INTERRUPT: list(loop.interrupts)})
        return loop.state().get(END)

    # -- running ------------------------------------------------------------------------------------
    def _inline(self, input: Any, config: Optional[RunnableConfig]) -> Optional[tuple[Any, dict, TaskScope]]:
        """Inside a running node or task, an entrypoint without its own checkpointer runs as
        part of the caller (as LangGraph's subgraph sharing its parent's checkpointer): its
        task calls are numbered under the caller's, so a resumed parent replays them too.
        Returns ``(node, state, config)`` to run it with, or None to run it on its own."""
        scope = CURRENT_TASK.get()
        if self.checkpointer is not None or scope is None or input is None or isinstance(input, Command):
            return None
        parent = caller_of(scope.config)
        if parent is None:
            return None
        base = dict(config or _callbacks.current_config() or scope.config or {})
        nested = parent.nested(self.node, quiet=True)
        inner = {**base, "configurable": {**(base.get("configurable") or {}), CALL_KEY: nested}}
        return {START: input, PREVIOUS: None}, inner, dataclasses.replace(scope, config=inner)

    def _node(self) -> EntrypointNode:
        return self.builder.nodes[self.node]

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:  # type: ignore[override]
        inline = self._inline(input, config)
        if inline is None:
            return super().invoke(self._graph_input(input), config, **kwargs)
        state, inner, scope = inline
        outer, token = CURRENT_TASK.get(), CURRENT_TASK.set(scope)
        try:
            return self._node().invoke(state, inner)[END]
        finally:
            CURRENT_TASK.reset(token)
            outer.calls = scope.calls  # interrupt() calls made inside count in the caller's order

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:  # type: ignore[override]
        inline = self._inline(input, config)
        if inline is None:
            return await super().ainvoke(self._graph_input(input), config, **kwargs)
        state, inner, scope = inline
        outer, token = CURRENT_TASK.get(), CURRENT_TASK.set(scope)
        try:
            return (await self._node().ainvoke(state, inner))[END]
        finally:
            CURRENT_TASK.reset(token)
            outer.calls = scope.calls

    def stream(self, input: Any, config: Optional[RunnableConfig] = None, *, stream_mode: Any = "updates",
               **kwargs: Any) -> Iterator[Any]:
        yield from super().stream(self._graph_input(input), config, stream_mode=stream_mode, **kwargs)

    async def astream(self, input: Any, config: Optional[RunnableConfig] = None, *, stream_mode: Any = "updates",
                      **kwargs: Any) -> AsyncIterator[Any]:
        async for chunk in super().astream(self._graph_input(input), config, stream_mode=stream_mode, **kwargs):
            yield chunk

    # -- state ----------------------------------------------------------------------------------
    def _snapshot(self, saved: Any, config: Any, *, pending: bool = False) -> StateSnapshot:
        snapshot = super()._snapshot(saved, config, pending=pending)
        if saved is None:
            return snapshot
        return dataclasses.replace(snapshot, values=snapshot.values.get(END))

    def _as_writes(self, supersteps: Sequence[Sequence[Any]]) -> list[list[StateUpdate]]:
        """``update_state(config, value)``: ``value`` becomes the return value and the next
        run's ``previous``, as if the entrypoint had returned it."""
        steps = []
        for step in supersteps:
            updates = []
            for update in step:
                values, as_node = update[0], update[1] if len(update) > 1 else None
                if as_node in (None, self.node, END):
                    values = {END: values, PREVIOUS: values}
                updates.append(StateUpdate(values, self.node if as_node is None else as_node))
            steps.append(updates)
        return steps

    def bulk_update_state(self, config: RunnableConfig, supersteps: Sequence[Sequence[Any]]) -> dict[str, Any]:
        return super().bulk_update_state(config, self._as_writes(supersteps))

    async def abulk_update_state(self, config: RunnableConfig, supersteps: Sequence[Sequence[Any]]) -> dict[str, Any]:
        return await super().abulk_update_state(config, self._as_writes(supersteps))

    # -- schemas ----------------------------------------------------------------------------------
    @staticmethod
    def _type_schema(hint: Any) -> dict[str, Any]:
        if hint is Any:
            return {}
        from pydantic import TypeAdapter

        schema = TypeAdapter(hint).json_schema()
        schema.pop("title", None)
        return schema

    def _input_jsonschema(self) -> dict[str, Any]:
        return self._type_schema(self.input_type)

    def _output_jsonschema(self) -> dict[str, Any]:
        return self._type_schema(self.output_type)
