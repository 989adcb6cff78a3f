"""Assemble the agent graph with middleware (called by :func:`rag.agents.create_agent`)."""

from __future__ import annotations

import copy
import typing
from dataclasses import replace
from typing import Any, Optional, Sequence

from rag.agents.middleware._build import (
    AgentToolNode, achain_model_wrappers, add_hook_edge, after_model_route, after_tools_route, chain_model_wrappers,
    check_middleware, hook_node, merged_state_schema, model_update, structured_route, system_message_of,
)
from rag.agents.structured_output import ProviderStrategy, ToolStrategy
from rag.agents.structured_output import resolve as resolve_response_format
from rag.agents.middleware.cap import ModelCallCapMiddleware, with_defaults
from rag.graph._inject import runtime_of
from rag.agents.middleware.types import ModelRequest, ModelResponse, can_jump_to, overrides
from rag.agents.tool_node import HandleToolErrors, ToolNode, as_tools
from rag.errors import InvalidTypeError
from rag.graph import END, START, Command, StateGraph
from rag.graph.pregel import CompiledStateGraph
from rag.models.base import BaseChatModel
from rag.runnables import RunnableConfig, RunnableLambda

__all__ = ["build_agent", "AgentGraph"]


class AgentGraph(CompiledStateGraph):
    """The compiled agent: keys marked ``PrivateStateAttr``/``OmitFromOutput`` stay out of
    what ``invoke`` returns, keys marked ``PrivateStateAttr``/``OmitFromInput`` are dropped
    from a run's input (as LangChain's input schema leaves them out), and keys marked
    ``UntrackedValue`` start each run at their
    type's empty value (``0``, ``{}``; else None), as LangGraph's untracked channels,
    which checkpoints do not keep. (Here they are kept, and overwritten at the next run.)"""

    private: frozenset[str] = frozenset()
    no_input: frozenset[str] = frozenset()
    per_run: dict[str, Any] = {}
    #: The middleware the agent runs with, the default cap included (first).
    middleware: list[Any] = []

    @classmethod
    def of(cls, compiled: CompiledStateGraph, private: frozenset[str], per_run: dict[str, Any],
           no_input: frozenset[str] = frozenset()) -> "AgentGraph":
        agent = copy.copy(compiled)
        agent.__class__ = cls  # same fields; only the methods below differ
        agent.private, agent.per_run, agent.no_input = private, per_run, no_input
        return agent  # type: ignore[return-value]

    def _loop(self, config: Any, modes: Any, interrupt_before: Any, interrupt_after: Any, *more: Any) -> Any:
        loop, live = super()._loop(config, modes, interrupt_before, interrupt_after, *more)  # more: the run's context
        if self.per_run or self.no_input:
            run = loop.run
            loop.run = lambda value: run(self._fresh(value))  # type: ignore[method-assign]
        return loop, live

    def _fresh(self, value: Any) -> Any:
        reset = {key: make() for key, make in self.per_run.items()}
        if isinstance(value, dict):
            return {**{key: item for key, item in value.items() if key not in self.no_input}, **reset}
        if isinstance(value, Command) and value.update is None:
            return replace(value, update=reset)
        return value

    def _output(self, loop: Any) -> dict[str, Any]:  # type: ignore[override]
        output = CompiledStateGraph._output(loop)
        return {key: value for key, value in output.items() if key not in self.private}


def _empty_of(annotation: Any) -> Any:
    kind = typing.get_origin(annotation) or annotation
    try:
        kind()
        return kind
    except Exception:  # no empty value: start at None
        return lambda: None


def _tools(tools: Any, middleware: Sequence[Any], handle_tool_errors: HandleToolErrors
           ) -> tuple[Optional[ToolNode], list[Any]]:
    if isinstance(tools, ToolNode):
        tools = list(tools.tools_by_name.values())
    if tools is not None and (isinstance(tools, (str, dict)) or not isinstance(tools, Sequence)):
        raise InvalidTypeError(f"create_agent needs a list of tools, got {type(tools).__name__}: {tools!r:.60}")
    every = [*(tools or ()), *(t for m in middleware for t in m.tools)]
    provider = [t for t in every if isinstance(t, dict)]
    runnable = as_tools([t for t in every if not isinstance(t, dict)], where="create_agent")
    wrappers = [m for m in middleware if overrides(m, "wrap_tool_call")]
    node = AgentToolNode(runnable, middleware=wrappers, handle_tool_errors=handle_tool_errors) if runnable else None
    return node, [*runnable, *provider]


def build_agent(model: Any, tools: Any, system_prompt: Any, middleware: Sequence[Any], *, checkpointer: Any,
                max_model_calls: int, on_model_call_limit: str, handle_tool_errors: HandleToolErrors,
                interrupt_before: Any, interrupt_after: Any, name: Optional[str],
                response_format: Any = None) -> CompiledStateGraph:
    """The agent graph (see :mod:`rag.agents.middleware._build` for its layout)."""
    from rag.agents.factory import _as_ai_message, _unique_id

    if not isinstance(model, BaseChatModel):
        raise InvalidTypeError(f"create_agent(middleware=...) needs a chat model (BaseChatModel), whose tools the "
                               f"middleware may change per call; got {type(model).__name__}")
    mws = check_middleware(middleware)
    strategy = resolve_response_format(response_format, model)
    structured_tools = list(strategy.specs) if isinstance(strategy, ToolStrategy) else []
    # The safety nets are middleware too (first, so the cap shapes the request the others
    # see and tool errors become messages after the others had their try).
    running = with_defaults(mws, max_model_calls, on_model_call_limit, handle_tool_errors)
    tool_node, offered = _tools(tools, running, handle_tool_errors)
    system_message = system_message_of(system_prompt)
    model_wrappers = [m for m in running if overrides(m, "wrap_model_call")]

    def execute_parts(request: ModelRequest) -> tuple[Any, list[Any]]:
        settings, tools, choice = dict(request.model_settings), list(request.tools), request.tool_choice
        if isinstance(request.response_format, ToolStrategy):
            # The answer must come through a tool: some tool call is required each round.
            tools, choice = [*tools, *request.response_format.tools()], "any"
        elif isinstance(request.response_format, ProviderStrategy):
            settings.update(request.response_format.model_kwargs())
        if tools:
            bound: Any = request.model.bind_tools(tools, tool_choice=choice, **settings)
        else:
            bound = request.model.bind(**settings) if settings else request.model
        messages = list(request.messages)
        return bound, ([request.system_message, *messages] if request.system_message is not None else messages)

    def reply_of(raw: Any, request: ModelRequest) -> ModelResponse:
        reply = _unique_id(_as_ai_message(raw), request.state.get("messages", ()))
        if name and reply.name != name:
            reply = replace(reply, name=name)
        if request.response_format is None:
            return ModelResponse([reply])
        extra, answer = request.response_format.read(reply)
        return ModelResponse([reply, *extra], answer)

    def start(state: dict[str, Any], config: RunnableConfig) -> ModelRequest:
        return ModelRequest(model=model, messages=list(state["messages"]), system_message=system_message,
                            tools=list(offered), response_format=strategy, state=state, runtime=runtime_of(config))

    def call_model(state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        def execute(req: ModelRequest) -> ModelResponse:
            bound, messages = execute_parts(req)
            return reply_of(bound.invoke(messages, config), req)

        response, commands = chain_model_wrappers(model_wrappers, execute)(start(state, config))
        return model_update(response, commands, strategy is not None, state)

    async def acall_model(state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        async def execute(req: ModelRequest) -> ModelResponse:
            bound, messages = execute_parts(req)
            return reply_of(await bound.ainvoke(messages, config), req)

        response, commands = await achain_model_wrappers(model_wrappers, execute)(start(state, config))
        return model_update(response, commands, strategy is not None, state)

    state = merged_state_schema(mws)
    graph = StateGraph(state.schema)
    graph.add_node("model", RunnableLambda(call_model, acall_model, name="model"))
    if tool_node is not None:
        graph.add_node("tools", tool_node)
    with_hook = {hook: [m for m in mws if overrides(m, hook)]
                 for hook in ("before_agent", "before_model", "after_model", "after_agent")}
    for m in mws:
        for hook, owners in with_hook.items():
            if m in owners:
                graph.add_node(f"{m.name}.{hook}", hook_node(m, hook))
    before_agent, before_model = with_hook["before_agent"], with_hook["before_model"]
    after_model, after_agent = with_hook["after_model"], with_hook["after_agent"]
    loop_entry = f"{before_model[0].name}.before_model" if before_model else "model"
    entry = f"{before_agent[0].name}.before_agent" if before_agent else loop_entry
    loop_exit = f"{after_model[0].name}.after_model" if after_model else "model"
    exit_node = f"{after_agent[-1].name}.after_agent" if after_agent else END
    graph.add_edge(START, entry)

    if tool_node is not None:
        direct = any(t.return_direct for t in tool_node.tools_by_name.values())
        graph.add_conditional_edges("tools", after_tools_route(tool_node, loop_entry, exit_node, structured_tools),
                                    [loop_entry, exit_node] if direct or structured_tools else [loop_entry])
        targets = ["tools", exit_node]
        if loop_exit != "model" or model_wrappers or strategy is not None:
            targets.append(loop_entry)
        graph.add_conditional_edges(loop_exit, after_model_route(loop_entry, exit_node, structured_tools), targets)
    elif structured_tools:
        graph.add_conditional_edges(loop_exit, structured_route(loop_entry, exit_node), [loop_entry, exit_node])
    elif loop_exit == "model":
        graph.add_edge("model", exit_node)
    else:
        add_hook_edge(graph, loop_exit, exit_node, can_jump_to(after_model[0], "after_model"), loop_entry, exit_node)

    def chain(owners: list[Any], hook: str, last_target: str) -> None:
        for here, there in zip(owners, owners[1:]):
            add_hook_edge(graph, f"{here.name}.{hook}", f"{there.name}.{hook}", can_jump_to(here, hook),
                          loop_entry, exit_node)
        if owners:
            add_hook_edge(graph, f"{owners[-1].name}.{hook}", last_target, can_jump_to(owners[-1], hook),
                          loop_entry, exit_node)

    chain(before_agent, "before_agent", loop_entry)
    chain(before_model, "before_model", "model")
    if after_model:  # after hooks run in reverse list order
        graph.add_edge("model", f"{after_model[-1].name}.after_model")
        reverse = list(reversed(after_model))
        for here, there in zip(reverse, reverse[1:]):
            add_hook_edge(graph, f"{here.name}.after_model", f"{there.name}.after_model",
                          can_jump_to(here, "after_model"), loop_entry, exit_node)
    reverse_agent = list(reversed(after_agent))
    for here, there in zip(reverse_agent, reverse_agent[1:]):
        add_hook_edge(graph, f"{here.name}.after_agent", f"{there.name}.after_agent",
                      can_jump_to(here, "after_agent"), loop_entry, exit_node)
    if after_agent:
        add_hook_edge(graph, f"{after_agent[0].name}.after_agent", END, can_jump_to(after_agent[0], "after_agent"),
                      loop_entry, exit_node)

    compiled = graph.compile(checkpointer=checkpointer, interrupt_before=interrupt_before,
                             interrupt_after=interrupt_after, name=name)
    # A round is its before_model hooks, the model, its after_model hooks and the tools.
    per_round = len(before_model) + len(after_model) + 2
    cap = next(m.max_model_calls for m in running if isinstance(m, ModelCallCapMiddleware))
    compiled = compiled.with_config(
        recursion_limit=per_round * cap + len(before_agent) + len(after_agent) + 2)
    hints = typing.get_type_hints(state.schema)
    agent = AgentGraph.of(compiled, state.private, {key: _empty_of(hints[key]) for key in state.per_run},
                          state.no_input)
    agent.middleware = running
    return agent
