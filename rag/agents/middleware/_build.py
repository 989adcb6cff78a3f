"""``create_agent`` with middleware: hooks as graph nodes, wrappers around the calls.

The graph follows langchain 1.x's layout so drawings, traces and jumps read the same::

    START -> before_agent (list order) -> before_model (list order) -> model
          -> after_model (reverse order) -> tools | loop entry | exit
    tools -> loop entry (first before_model, else model) | exit (return_direct tools)
    exit: after_agent (reverse order) -> END

``jump_to`` is a state key a hook writes; the node that follows clears it (LangChain's
ephemeral channel), so after a jump the output may hold ``"jump_to": None``.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Optional, Sequence, TypedDict

from rag.agents.middleware.types import (
    JUMP_TARGETS, AgentMiddleware, AgentState, ExtendedModelResponse, ModelRequest, ModelResponse, OmitFromSchema,
    ToolCallRequest, UntrackedValue, can_jump_to, overrides, overrides_async, overrides_sync,
)
from rag.agents.tool_node import ToolNode
from rag.errors import InvalidTypeError, ValidationError
from rag.graph import StateGraph
from rag.graph._inject import runtime_of
from rag.graph.errors import InvalidUpdateError
from rag.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from rag.runnables import RunnableConfig, RunnableLambda

__all__ = ["check_middleware", "merged_state_schema", "build_graph"]

# typing.NotRequired / Required (3.11+) around a key's annotation.
_REQUIRED_WRAPPERS = tuple(getattr(typing, name) for name in ("NotRequired", "Required") if hasattr(typing, name))


def check_middleware(middleware: Sequence[Any]) -> list[AgentMiddleware]:
    """The middleware list, refused with a clear message when an item is not a middleware,
    two have one name (their nodes would collide) or one has nothing to contribute."""
    if isinstance(middleware, (str, dict, AgentMiddleware)) or not isinstance(middleware, Sequence):
        raise InvalidTypeError(f"middleware must be a list of AgentMiddleware, got {type(middleware).__name__}")
    seen: dict[str, AgentMiddleware] = {}
    for item in middleware:
        if not isinstance(item, AgentMiddleware):
            raise InvalidTypeError(
                f"middleware items must be AgentMiddleware instances (a subclass, or @before_model and the "
                f"other decorators), got {type(item).__name__}: {item!r:.60}"
            )
        if item.name in seen:
            raise ValidationError(
                f"two middleware are named {item.name!r} (one class twice?); their nodes would collide. Pass "
                "one instance, or give a subclass another name (a `name` property)"
            )
        hooks = [h for h in ("before_agent", "before_model", "after_model", "after_agent", "wrap_model_call",
                             "wrap_tool_call") if overrides(item, h)]
        if not hooks and not item.tools and item.state_schema is AgentState:
            raise ValidationError(
                f"middleware {item.name!r} defines no hook (before_agent, before_model, after_model, after_agent, "
                "wrap_model_call, wrap_tool_call or their a-prefixed async forms), no tools and no state_schema"
            )
        seen[item.name] = item
    return list(middleware)


def _unwrap(annotation: Any) -> tuple[Any, list[Any]]:
    """``annotation`` without NotRequired/Required and without the middleware markers
    (which the graph would otherwise take for a reducer), and the markers found."""
    while typing.get_origin(annotation) in _REQUIRED_WRAPPERS:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) is not typing.Annotated:
        return annotation, []
    base, *extras = typing.get_args(annotation)
    markers = [e for e in extras if isinstance(e, OmitFromSchema) or e is UntrackedValue]
    rest = [e for e in extras if not (isinstance(e, OmitFromSchema) or e is UntrackedValue)]
    base, inner = _unwrap(base)
    return (typing.Annotated[(base, *rest)] if rest else base), [*markers, *inner]


@dataclass(frozen=True)
class MergedState:
    """The agent's state schema, the keys left out of the output, the keys reset per run and
    the keys dropped from a run's input."""

    schema: type
    private: frozenset[str]
    per_run: frozenset[str]
    no_input: frozenset[str] = frozenset()


def merged_state_schema(middleware: Sequence[AgentMiddleware], base: type = AgentState) -> MergedState:
    """One TypedDict with the keys of ``base`` and of every middleware's ``state_schema``
    (the base's annotation wins a conflict, as in LangChain)."""
    hints: dict[str, Any] = {}
    private: set[str] = set()
    per_run: set[str] = set()
    no_input: set[str] = set()
    for schema in [*(m.state_schema for m in middleware), base]:
        for key, annotation in typing.get_type_hints(schema, include_extras=True).items():
            hints[key], markers = _unwrap(annotation)
            if any(isinstance(m, OmitFromSchema) and m.output for m in markers):
                private.add(key)
            if any(isinstance(m, OmitFromSchema) and m.input for m in markers):
                no_input.add(key)
            if UntrackedValue in markers:
                per_run.add(key)
    return MergedState(TypedDict("AgentState", hints), frozenset(private), frozenset(per_run),  # type: ignore[operator]
                       frozenset(no_input))


# -- wrappers --------------------------------------------------------------------------------
def _as_response(result: Any, where: str) -> tuple[ModelResponse, list[Any]]:
    if isinstance(result, ModelResponse):
        return result, []
    if isinstance(result, AIMessage):
        return ModelResponse([result]), []
    if isinstance(result, ExtendedModelResponse):
        return result.model_response, [] if result.command is None else [result.command]
    raise InvalidTypeError(f"{where} must return a ModelResponse, an AIMessage or an ExtendedModelResponse, "
                           f"got {type(result).__name__}: {result!r:.60}")


def chain_model_wrappers(middleware: Sequence[AgentMiddleware], execute: Callable[[ModelRequest], ModelResponse]
                         ) -> Callable[[ModelRequest], tuple[ModelResponse, list[Any]]]:
    """``execute`` wrapped by each middleware's ``wrap_model_call``, the first outermost;
    the result and the commands of ExtendedModelResponses (innermost first)."""
    def run(request: ModelRequest) -> tuple[ModelResponse, list[Any]]:
        commands: list[Any] = []

        def layer(index: int) -> Callable[[ModelRequest], ModelResponse]:
            if index == len(middleware):
                return execute
            m = middleware[index]

            def handler(req: ModelRequest) -> ModelResponse:
                response, extra = _as_response(m.wrap_model_call(req, layer(index + 1)), f"{m.name}.wrap_model_call")
                commands.extend(extra)
                return response
            return handler

        return layer(0)(request), commands
    return run


def achain_model_wrappers(middleware: Sequence[AgentMiddleware],
                          execute: Callable[[ModelRequest], Awaitable[ModelResponse]]
                          ) -> Callable[[ModelRequest], Awaitable[tuple[ModelResponse, list[Any]]]]:
    async def run(request: ModelRequest) -> tuple[ModelResponse, list[Any]]:
        commands: list[Any] = []

        def layer(index: int) -> Callable[[ModelRequest], Awaitable[ModelResponse]]:
            if index == len(middleware):
                return execute
            m = middleware[index]

            async def handler(req: ModelRequest) -> ModelResponse:
                result = await m.awrap_model_call(req, layer(index + 1))
                response, extra = _as_response(result, f"{m.name}.awrap_model_call")
                commands.extend(extra)
                return response
            return handler

        return await layer(0)(request), commands
    return run


class AgentToolNode(ToolNode):
    """The agent's tool node: runs the calls of the last AIMessage that no ToolMessage
    answers yet (a hook may have answered some, e.g. a rejected call), each through the
    middleware's ``wrap_tool_call`` chain (the first middleware outermost).

    Inside the chain a raising tool raises (so ``ToolRetryMiddleware`` and the like see
    the exception, as in LangChain); ``create_agent``'s default
    ``ToolErrorMessagesMiddleware``, first in the chain, turns what still escapes into an
    error ToolMessage. Unknown tools and arguments that do not fit are answered inside, as
    LangGraph does."""

    def __init__(self, tools: Sequence[Any], *, middleware: Sequence[AgentMiddleware], **kwargs: Any) -> None:
        super().__init__(tools, **kwargs)
        self.wrappers = list(middleware)
        self.wrap_tool_call, self.awrap_tool_call = self._chain, self._achain

    def _calls(self, input: Any) -> list[dict[str, Any]]:
        last_ai, answered = _last_ai_and_answers(input[self.messages_key])
        if last_ai is None:
            return []
        calls = [*last_ai.tool_calls, *(c for c in last_ai.invalid_tool_calls if c.get("id"))]
        return [c for c in calls if c["id"] not in answered]

    # The chain is the ToolNode's interceptor (one mechanism, as LangChain hands LangGraph's
    # ToolNode its wrap_tool_call); inside it a tool's exception propagates, and what escapes
    # the chain is not handled here either (ToolErrorMessagesMiddleware, first, answers it).
    _execute = ToolNode._invoke
    _aexecute = ToolNode._ainvoke

    def _wrapper_failed(self, request: ToolCallRequest, exc: Exception) -> Any:
        raise exc

    def _chain(self, request: ToolCallRequest, execute: Callable[[ToolCallRequest], Any]) -> Any:
        def layer(index: int) -> Callable[[ToolCallRequest], Any]:
            if index == len(self.wrappers):
                return execute
            m = self.wrappers[index]
            return lambda req: m.wrap_tool_call(req, layer(index + 1))
        return layer(0)(request)

    async def _achain(self, request: ToolCallRequest, execute: Callable[[ToolCallRequest], Awaitable[Any]]) -> Any:
        def layer(index: int) -> Callable[[ToolCallRequest], Awaitable[Any]]:
            if index == len(self.wrappers):
                return execute
            m = self.wrappers[index]
            return lambda req: m.awrap_tool_call(req, layer(index + 1))
        return await layer(0)(request)

    def _output(self, input: Any, results: list[Any]) -> Any:
        """ToolMessages, and the updates of Commands a wrapper returned (messages appended
        in call order, other keys last one wins)."""
        from rag.graph import Command

        messages: list[BaseMessage] = []
        update: dict[str, Any] = {}
        for result in results:
            if isinstance(result, Command):
                if result.goto_list() or result.has_resume:
                    raise InvalidUpdateError("a wrap_tool_call Command may only carry an update (no goto/resume)")
                for key, value in (result.update or {}).items():
                    if key == self.messages_key:
                        messages.extend(value if isinstance(value, list) else [value])
                    else:
                        update[key] = value
            elif isinstance(result, ToolMessage):
                messages.append(result)
            else:
                raise InvalidTypeError(f"wrap_tool_call must return a ToolMessage or a Command, got "
                                       f"{type(result).__name__}: {result!r:.60}")
        return {**update, self.messages_key: messages}


# -- hook nodes ------------------------------------------------------------------------------
def hook_node(m: AgentMiddleware, hook: str) -> RunnableLambda:
    """The node running ``m``'s ``hook``: its update, with ``jump_to`` checked against the
    hook's ``can_jump_to`` and cleared when an earlier node left one."""
    allowed = can_jump_to(m, hook)
    node_name = f"{m.name}.{hook}"

    def finish(state: dict[str, Any], result: Any) -> Optional[dict[str, Any]]:
        if result is None:
            result = {}
        elif not isinstance(result, dict):
            raise InvalidTypeError(f"{node_name} must return a dict of state updates or None, got "
                                   f"{type(result).__name__}: {result!r:.60}")
        jump = result.get("jump_to")
        if jump is not None and jump not in allowed:
            where = f"declares can_jump_to={allowed}" if allowed else "declares no can_jump_to"
            raise InvalidUpdateError(
                f"{node_name} returned jump_to={jump!r}, but it {where}; jump_to must be one of {list(JUMP_TARGETS)} "
                f"and be declared with @hook_config(can_jump_to=[...]) (or the decorator's can_jump_to=)"
            )
        if jump is None and state.get("jump_to") is not None:
            result = {**result, "jump_to": None}
        return result or None

    sync_hook = getattr(m, hook) if overrides_sync(m, hook) else None
    async_hook = getattr(m, f"a{hook}") if overrides_async(m, hook) else None

    def run(state: dict[str, Any], config: RunnableConfig) -> Optional[dict[str, Any]]:
        if sync_hook is None:
            raise NotImplementedError(f"middleware {m.name!r} defines only a{hook}; run the agent with "
                                      f"ainvoke()/astream(), or define {hook}")
        return finish(state, sync_hook(state, runtime_of(config)))

    async def arun(state: dict[str, Any], config: RunnableConfig) -> Optional[dict[str, Any]]:
        if async_hook is None:  # a sync hook works on the async path (as in LangChain)
            return run(state, config)
        return finish(state, await async_hook(state, runtime_of(config)))

    return RunnableLambda(run, arun, name=node_name)


def _resolve(jump: Optional[str], loop_entry: str, exit_node: str) -> Optional[str]:
    return {"model": loop_entry, "end": exit_node, "tools": "tools"}.get(jump or "")


def add_hook_edge(graph: StateGraph, name: str, default: str, allowed: list[str], loop_entry: str,
                  exit_node: str) -> None:
    """A plain edge to ``default``, or (for a hook that may jump) a conditional one."""
    if not allowed:
        graph.add_edge(name, default)
        return
    targets = [default]
    for jump in allowed:
        target = _resolve(jump, loop_entry, exit_node)
        if target is not None and target not in targets and target != name:
            targets.append(target)
    graph.add_conditional_edges(
        name, lambda state: _resolve(state.get("jump_to"), loop_entry, exit_node) or default, targets)


def after_model_route(loop_entry: str, exit_node: str, structured_tools: Sequence[str] = ()
                      ) -> Callable[[dict[str, Any]], str]:
    """Where a round goes after the model (and its after_model hooks)."""
    def route(state: dict[str, Any]) -> str:
        jump = _resolve(state.get("jump_to"), loop_entry, exit_node)
        if jump is not None:
            return jump
        last_ai, answered = _last_ai_and_answers(state["messages"])
        if last_ai is None or not last_ai.tool_calls:
            return exit_node
        if any(c["id"] not in answered and c["name"] not in structured_tools for c in last_ai.tool_calls):
            return "tools"
        if state.get("structured_response") is not None:
            return exit_node
        return loop_entry  # every call answered (a hook answered them): ask the model again
    return route


def structured_route(loop_entry: str, exit_node: str) -> Callable[[dict[str, Any]], str]:
    """After the model when only structured-output tools exist: done once there is an
    answer, else ask again (the model was told what did not fit)."""
    def route(state: dict[str, Any]) -> str:
        jump = _resolve(state.get("jump_to"), loop_entry, exit_node)
        if jump is not None:
            return jump
        return exit_node if state.get("structured_response") is not None else loop_entry
    return route


def after_tools_route(tool_node: ToolNode, loop_entry: str, exit_node: str, structured_tools: Sequence[str] = ()
                      ) -> Callable[[dict[str, Any]], str]:
    def route(state: dict[str, Any]) -> str:
        last_ai, _ = _last_ai_and_answers(state["messages"])
        if last_ai is None:
            return loop_entry
        answers = [m for m in state["messages"][state["messages"].index(last_ai) + 1:] if isinstance(m, ToolMessage)]
        by_id = {m.tool_call_id: m.name for m in answers if m.name in tool_node.tools_by_name}
        executed = [name for c in last_ai.tool_calls
                    if (name := by_id.get(c["id"] or "", c["name"])) in tool_node.tools_by_name]
        if executed and all(tool_node.tools_by_name[n].return_direct for n in executed):
            return exit_node
        if any(m.name in structured_tools and m.status != "error" for m in answers):
            return exit_node
        return loop_entry
    return route


def _last_ai_and_answers(messages: Sequence[BaseMessage]) -> tuple[Optional[AIMessage], set[str]]:
    answered: set[str] = set()
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            return message, answered
        if isinstance(message, ToolMessage):
            answered.add(message.tool_call_id)
    return None, answered


def model_update(response: ModelResponse, commands: list[Any], has_structured: bool, state: dict[str, Any]
                 ) -> dict[str, Any]:
    """The model node's update: the response's messages (and structured response), then
    the ExtendedModelResponse commands' updates."""
    update: dict[str, Any] = {"messages": list(response.result)}
    if response.structured_response is not None:
        update["structured_response"] = response.structured_response
    elif has_structured:
        update["structured_response"] = None  # no stale answer from an earlier turn
    if state.get("jump_to") is not None:
        update["jump_to"] = None
    for command in commands:
        if command.goto_list() or command.has_resume or command.graph:
            raise NotImplementedError("an ExtendedModelResponse's Command may only carry an update; use jump_to "
                                      "in a before_model/after_model hook to route")
        for key, value in (command.update or {}).items():
            if key == "messages":
                update["messages"] = [*update["messages"], *(value if isinstance(value, list) else [value])]
            else:
                update[key] = value
    return update


def system_message_of(prompt: Any) -> Optional[SystemMessage]:
    if prompt is None or isinstance(prompt, SystemMessage):
        return prompt
    return SystemMessage(prompt)
