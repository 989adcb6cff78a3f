"""``create_agent`` (langchain 1.x) and ``create_react_agent`` (langgraph.prebuilt): a model
that calls tools in a loop, built as a :class:`~rag.graph.StateGraph`.

The graph is two nodes: the model (``"model"``; ``"agent"`` for ``create_react_agent``)
and a :class:`~rag.agents.ToolNode` (``"tools"``). After the model, :func:`tools_condition`
routes to the tools when the reply calls any, else to END; after the tools, back to the
model (or to END when a ``return_direct`` tool answered). Input and output are
``{"messages": [...]}``; with a ``checkpointer``, each ``configurable.thread_id`` keeps its
conversation and the next call adds to it.

Safer defaults than LangChain's (see the README's "Where we differ"):

- ``max_model_calls=25`` model calls answer one human message (``create_agent`` allows
  9,999 steps). ``on_model_call_limit="final_answer"`` (default) makes the last allowed
  call without tools, asking for an answer from what the agent has; ``"error"`` raises
  :class:`ModelCallLimitExceededError` instead of making a call past the cap.
- Tool errors, unknown tool names and arguments that do not fit a tool's schema become
  error ToolMessages the model can react to (``handle_tool_errors=False`` to raise).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any, Callable, Literal, Optional, Sequence, TypedDict, Union

from rag.agents.errors import ModelCallLimitExceededError
from rag.agents.tool_node import HandleToolErrors, ToolNode, as_tools, tools_condition
from rag.errors import InvalidTypeError, ValidationError
from rag.graph import END, START, StateGraph, add_messages
from rag.graph.pregel import CompiledStateGraph
from rag.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from rag.models.base import BaseChatModel
from rag.runnables import Runnable, RunnableBinding, RunnableConfig, RunnableLambda

__all__ = ["create_agent", "create_react_agent", "AgentState", "OnModelCallLimit", "FINAL_ANSWER_INSTRUCTION"]

OnModelCallLimit = Literal["final_answer", "error"]
_ON_LIMIT = ("final_answer", "error")

#: Added after the conversation for the last allowed model call (no tools are offered then).
FINAL_ANSWER_INSTRUCTION = (
    "You have reached the limit of {limit} model calls for this request and can call no more tools. "
    "Answer now from the information above; say what is missing if you cannot answer fully."
)


class AgentState(TypedDict):
    """The agent's state: the conversation, reduced by :func:`~rag.graph.add_messages`."""

    messages: Annotated[list, add_messages]


def _calls_this_turn(messages: Sequence[BaseMessage]) -> int:
    """Model replies since the latest human message: the calls spent on the current request
    (derived from the state, so a checkpointed thread resumes with the right count)."""
    count = 0
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            break
        if isinstance(message, AIMessage):
            count += 1
    return count


def _prompt_runnable(prompt: Any) -> Callable[[dict[str, Any], RunnableConfig], list[BaseMessage]]:
    """The function from the state (and the run's config) to the messages the model sees."""
    if prompt is None:
        return lambda state, config: list(state["messages"])
    if isinstance(prompt, str):
        prompt = SystemMessage(prompt)
    if isinstance(prompt, SystemMessage):
        return lambda state, config: [prompt, *state["messages"]]
    if isinstance(prompt, Runnable):
        return lambda state, config: _as_message_list(prompt.invoke(state, config))  # nests in the trace
    if callable(prompt):
        return lambda state, config: _as_message_list(prompt(state))
    raise InvalidTypeError(
        f"prompt must be a str, a SystemMessage, a function of the state or a Runnable, got {type(prompt).__name__}"
    )


def _as_message_list(value: Any) -> list[BaseMessage]:
    from rag.models.base import to_messages

    return to_messages(value)


def _bind(model: Any, tools: list[Any]) -> tuple[Runnable, Optional[Runnable]]:
    """The model with the tools offered, and the model without them (for the final answer)."""
    if isinstance(model, str):
        raise InvalidTypeError(
            f"model={model!r}: pass a chat model object, e.g. ChatOpenAI(model=..., base_url=...); "
            "model names are not resolved to providers"
        )
    if isinstance(model, BaseChatModel):
        return (model.bind_tools(tools) if tools else model), model
    if isinstance(model, RunnableBinding) and "tools" in model.kwargs:
        # Already bound (create_react_agent accepts that); the plain model is underneath.
        plain = model.bound if isinstance(model.bound, BaseChatModel) else None
        return model, plain
    if isinstance(model, Runnable):
        return model, None
    raise InvalidTypeError(f"model must be a chat model (BaseChatModel) or a Runnable, got {type(model).__name__}")


def _tool_parts(tools: Any, handle_tool_errors: HandleToolErrors, where: str) -> tuple[Optional[ToolNode], list[Any]]:
    """The ToolNode (None without tools) and what ``bind_tools`` offers the model (provider
    tool dicts are offered but not run here, as in LangChain)."""
    if isinstance(tools, ToolNode):
        return tools, list(tools.tools_by_name.values())
    if tools is None:
        return None, []
    if isinstance(tools, (str, dict)) or not isinstance(tools, Sequence):
        raise InvalidTypeError(f"{where} needs a list of tools, got {type(tools).__name__}: {tools!r:.60}")
    provider = [t for t in tools if isinstance(t, dict)]
    runnable = as_tools([t for t in tools if not isinstance(t, dict)], where=where)
    node = ToolNode(runnable, handle_tool_errors=handle_tool_errors) if runnable else None
    return node, [*runnable, *provider]


def _as_ai_message(reply: Any) -> AIMessage:
    if isinstance(reply, AIMessage):
        return reply
    if isinstance(reply, str):  # a Runnable model that ends in a string parser
        return AIMessage(reply)
    raise InvalidTypeError(f"the agent's model must return an AIMessage, got {type(reply).__name__}: {reply!r:.60}")


def _unique_id(reply: AIMessage, messages: Sequence[BaseMessage]) -> AIMessage:
    """``reply`` with an id no earlier message has. add_messages replaces a message with the
    same id, so a server that repeats a response id (some OpenAI-compatible servers do)
    would otherwise overwrite an earlier turn, tool calls and all."""
    if reply.id is None or all(m.id != reply.id for m in messages):
        return reply
    taken = {m.id for m in messages}
    n = 2
    while f"{reply.id}-{n}" in taken:
        n += 1
    return replace(reply, id=f"{reply.id}-{n}")


def _final_answer(message: AIMessage, limit: int) -> AIMessage:
    """The last allowed reply, without tool calls: a model that ignores the instruction and
    calls tools anyway has those calls dropped (they would go unanswered)."""
    if not message.tool_calls and not message.invalid_tool_calls:
        return message
    text = message.text or f"I stopped after {limit} model calls without reaching an answer."
    metadata = {**message.response_metadata, "dropped_tool_calls": [c["name"] for c in message.tool_calls]}
    return replace(message, content=text, tool_calls=[], invalid_tool_calls=[], response_metadata=metadata)


def _build(model: Any, tools: Any, prompt: Any, *, model_node: str, checkpointer: Any, max_model_calls: int,
           on_model_call_limit: str, handle_tool_errors: HandleToolErrors, interrupt_before: Any,
           interrupt_after: Any, name: Optional[str], where: str) -> CompiledStateGraph:
    if isinstance(max_model_calls, bool) or not isinstance(max_model_calls, int) or max_model_calls < 1:
        raise ValidationError(f"max_model_calls must be an int >= 1, got {max_model_calls!r}")
    if on_model_call_limit not in _ON_LIMIT:
        raise ValidationError(f"on_model_call_limit must be one of {_ON_LIMIT}, got {on_model_call_limit!r}")
    tool_node, offered = _tool_parts(tools, handle_tool_errors, where)
    with_tools, plain = _bind(model, offered)
    if on_model_call_limit == "final_answer" and tool_node is not None and plain is None:
        raise ValidationError(
            f"{where}: on_model_call_limit='final_answer' needs the plain chat model to ask without tools; "
            "pass a BaseChatModel (or a model.bind_tools(...) binding), or on_model_call_limit='error'"
        )
    to_messages = _prompt_runnable(prompt)
    final_instruction = SystemMessage(FINAL_ANSWER_INSTRUCTION.format(limit=max_model_calls))

    def plan(state: dict[str, Any], config: RunnableConfig) -> tuple[Runnable, list[BaseMessage], bool]:
        used = _calls_this_turn(state["messages"])
        if used >= max_model_calls:
            raise ModelCallLimitExceededError(max_model_calls, used)
        last_call = tool_node is not None and used == max_model_calls - 1 and on_model_call_limit == "final_answer"
        messages = to_messages(state, config)
        if last_call:
            return plain, [*messages, final_instruction], True  # type: ignore[return-value]
        return with_tools, messages, False

    def update(state: dict[str, Any], reply: Any, last_call: bool) -> dict[str, Any]:
        reply = _unique_id(_as_ai_message(reply), state["messages"])
        return {"messages": [_final_answer(reply, max_model_calls) if last_call else reply]}

    def call_model(state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        runnable, messages, last_call = plan(state, config)
        return update(state, runnable.invoke(messages, config), last_call)

    async def acall_model(state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        runnable, messages, last_call = plan(state, config)
        return update(state, await runnable.ainvoke(messages, config), last_call)

    graph = StateGraph(AgentState)
    graph.add_node(model_node, RunnableLambda(call_model, acall_model, name=model_node))
    graph.add_edge(START, model_node)
    if tool_node is None:
        graph.add_edge(model_node, END)
    else:
        graph.add_node("tools", tool_node)
        graph.add_conditional_edges(model_node, tools_condition, {"tools": "tools", END: END})
        direct = {n for n, t in tool_node.tools_by_name.items() if t.return_direct}
        if direct:
            graph.add_conditional_edges("tools", lambda state: _after_tools(state, direct, model_node),
                                        {model_node: model_node, END: END})
        else:
            graph.add_edge("tools", model_node)
    compiled = graph.compile(checkpointer=checkpointer, interrupt_before=interrupt_before,
                             interrupt_after=interrupt_after, name=name)
    # Each model call and each tool step is one superstep: room for the cap plus the tools.
    return compiled.with_config(recursion_limit=2 * max_model_calls + 2)


def _after_tools(state: dict[str, Any], direct: set[str], model_node: str) -> str:
    answered = []
    for message in reversed(state["messages"]):
        if not isinstance(message, ToolMessage):
            break
        answered.append(message)
    return END if any(m.name in direct and m.status == "success" for m in answered) else model_node


def create_agent(
    model: Any,
    tools: Union[Sequence[Any], ToolNode, None] = None,
    *,
    system_prompt: Union[str, SystemMessage, None] = None,
    checkpointer: Any = None,
    max_model_calls: int = 25,
    on_model_call_limit: OnModelCallLimit = "final_answer",
    handle_tool_errors: HandleToolErrors = True,
    interrupt_before: Optional[list[str]] = None,
    interrupt_after: Optional[list[str]] = None,
    name: Optional[str] = None,
    middleware: Sequence[Any] = (),
    response_format: Any = None,
    debug: bool = False,
) -> CompiledStateGraph:
    """An agent graph: the model answers or calls tools, the tools run, repeat.

    ``model``: a chat model (``ChatOpenAI(...)``, a fake); ``tools``: :class:`~rag.tools.Tool`
    objects (``@tool``, ``create_retriever_tool``), typed functions with docstrings, OpenAI
    tool dicts (offered to the model, not run here) or a :class:`ToolNode`;
    ``system_prompt``: put before the conversation on every model call; ``checkpointer``:
    e.g. ``InMemorySaver()``, keeps each ``thread_id``'s conversation. Nodes: ``"model"``,
    ``"tools"``. See the module docstring for ``max_model_calls`` (>= 1, default 25),
    ``on_model_call_limit`` and ``handle_tool_errors`` (default True).

    ``middleware``: :class:`~rag.agents.middleware.AgentMiddleware` objects whose hooks become
    nodes (``"<name>.before_model"``...) and whose wrappers run around each model and tool
    call (see :mod:`rag.agents.middleware`); the model must then be a ``BaseChatModel``.
    The cap and the tool-error messages above are then the first middleware
    (``ModelCallCapMiddleware``, ``ToolErrorMessagesMiddleware``; pass your own to replace
    them; ``agent.middleware`` lists what the agent runs with).
    ``response_format``: a schema (pydantic model, dataclass, TypedDict, JSON schema dict),
    :class:`~rag.agents.structured_output.ToolStrategy` or ``ProviderStrategy``; the answer
    is in ``state["structured_response"]`` (see :mod:`rag.agents.structured_output`). With a
    checkpointer, use a TypedDict or JSON schema: checkpoints are JSON, so a pydantic or
    dataclass answer cannot be saved (a clear ``SerializationError`` says so).

    >>> from rag.messages import AIMessage
    >>> from rag.models import GenericFakeChatModel
    >>> from rag.tools import tool
    >>> @tool
    ... def add(a: int, b: int) -> int:
    ...     '''Add two integers.'''
    ...     return a + b
    >>> model = GenericFakeChatModel(messages=iter([
    ...     AIMessage("", tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "c1"}]), "2 + 3 = 5."]))
    >>> result = create_agent(model, [add]).invoke({"messages": [("human", "What is 2 + 3?")]})
    >>> [(m.type, m.text) for m in result["messages"]]
    [('human', 'What is 2 + 3?'), ('ai', ''), ('tool', '5'), ('ai', '2 + 3 = 5.')]
    """
    if system_prompt is not None and not isinstance(system_prompt, (str, SystemMessage)):
        raise InvalidTypeError(f"system_prompt must be a str or a SystemMessage, got {type(system_prompt).__name__}")
    if middleware or response_format is not None:
        from rag.agents.middleware._agent import build_agent

        if isinstance(max_model_calls, bool) or not isinstance(max_model_calls, int) or max_model_calls < 1:
            raise ValidationError(f"max_model_calls must be an int >= 1, got {max_model_calls!r}")
        if on_model_call_limit not in _ON_LIMIT:
            raise ValidationError(f"on_model_call_limit must be one of {_ON_LIMIT}, got {on_model_call_limit!r}")
        return build_agent(model, tools, system_prompt, middleware, checkpointer=checkpointer,
                           max_model_calls=max_model_calls, on_model_call_limit=on_model_call_limit,
                           handle_tool_errors=handle_tool_errors, interrupt_before=interrupt_before,
                           interrupt_after=interrupt_after, name=name, response_format=response_format)
    return _build(model, tools, system_prompt, model_node="model", checkpointer=checkpointer,
                  max_model_calls=max_model_calls, on_model_call_limit=on_model_call_limit,
                  handle_tool_errors=handle_tool_errors, interrupt_before=interrupt_before,
                  interrupt_after=interrupt_after, name=name, where="create_agent")


def create_react_agent(
    model: Any,
    tools: Union[Sequence[Any], ToolNode],
    *,
    prompt: Any = None,
    response_format: Any = None,
    pre_model_hook: Any = None,
    post_model_hook: Any = None,
    state_schema: Optional[type] = None,
    context_schema: Optional[type] = None,
    checkpointer: Any = None,
    store: Any = None,
    interrupt_before: Optional[list[str]] = None,
    interrupt_after: Optional[list[str]] = None,
    debug: bool = False,
    version: Literal["v1", "v2"] = "v2",
    name: Optional[str] = None,
    max_model_calls: int = 25,
    on_model_call_limit: OnModelCallLimit = "final_answer",
    handle_tool_errors: HandleToolErrors = True,
    **deprecated_kwargs: Any,
) -> CompiledStateGraph:
    """LangGraph's prebuilt agent (langgraph-prebuilt 1.1.3's ``create_react_agent``): nodes
    ``"agent"`` and ``"tools"`` (plus ``"pre_model_hook"``, ``"post_model_hook"`` and
    ``"generate_structured_response"`` when given).

    ``model``: a chat model (tools are bound unless it already has them bound), or a function
    ``(state, runtime) -> chat model`` (sync or ``async def``) choosing the model for each
    call (it binds the tools itself). ``prompt``: a str or SystemMessage put first, or a
    function (sync or async) / Runnable from the state to the messages the model sees.
    ``pre_model_hook``: a node run before each model call; it may return
    ``llm_input_messages`` (what the model sees this call, the state unchanged) or
    ``messages`` (an update of the state). ``post_model_hook``: a node run after each model
    call (e.g. a human check). ``response_format``: a schema (or ``(system prompt,
    schema)``) for the answer, put in ``state["structured_response"]`` by one more model
    call. ``state_schema``: a TypedDict with ``messages`` (and ``structured_response`` with
    a response_format); ``context_schema``: the type of ``invoke(..., context=...)``.
    ``version``: ``"v2"`` (default) sends each tool call to the tools node as its own task
    (``Send``); ``"v1"`` runs all calls of a reply in one tools step; anything else raises
    ``ValueError``. ``max_model_calls`` (>= 1, default 25), ``on_model_call_limit`` and
    ``handle_tool_errors`` (default True) as in :func:`create_agent` (our safer defaults).
    ``config_schema`` is accepted as the deprecated name of ``context_schema``.
    """
    import warnings

    from rag.agents._react import build_react_agent

    if "config_schema" in deprecated_kwargs:
        warnings.warn("`config_schema` is deprecated and will be removed. Please use `context_schema` instead.",
                      DeprecationWarning, stacklevel=2)
        config_schema = deprecated_kwargs.pop("config_schema")
        context_schema = context_schema if context_schema is not None else config_schema
    if deprecated_kwargs:
        raise TypeError(f"create_react_agent() got unexpected keyword arguments: {deprecated_kwargs}")
    return build_react_agent(model, tools, prompt=prompt, response_format=response_format,
                             pre_model_hook=pre_model_hook, post_model_hook=post_model_hook,
                             state_schema=state_schema, context_schema=context_schema, checkpointer=checkpointer,
                             store=store, interrupt_before=interrupt_before, interrupt_after=interrupt_after,
                             debug=debug, version=version, name=name, max_model_calls=max_model_calls,
                             on_model_call_limit=on_model_call_limit, handle_tool_errors=handle_tool_errors)
