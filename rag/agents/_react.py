"""``create_react_agent``'s graph with langgraph-prebuilt 1.1.3's full surface: a model chosen
per call, ``pre_model_hook`` / ``post_model_hook`` nodes, ``response_format`` (a
``generate_structured_response`` node), ``state_schema`` / ``context_schema``, ``store`` and
``version="v1"`` (one ``tools`` step runs every call of a reply) or ``"v2"`` (one ``Send`` per
call, each run as its own task with the state it was sent with).

Nodes: ``pre_model_hook``? -> ``agent`` -> ``post_model_hook``? -> ``tools`` -> back to the
first of them; ``generate_structured_response`` at the end when ``response_format`` is
given. Our model-call cap (``max_model_calls``, the final answer without tools) applies as
in :func:`~rag.agents.create_agent`.
"""

from __future__ import annotations

import inspect
import typing
from typing import Any, Optional, Sequence

from rag.agents.errors import ModelCallLimitExceededError
# create_react_agent is importable from here too, as from langgraph.prebuilt.chat_agent_executor.
from rag.agents.factory import (FINAL_ANSWER_INSTRUCTION, AgentState, _as_ai_message, _calls_this_turn, _final_answer,
                                _unique_id, create_react_agent)
from rag.agents.tool_node import HandleToolErrors, ToolNode, as_tools
from rag.errors import InvalidTypeError, UsageError, ValidationError
from rag.graph import END, StateGraph
from rag.graph._inject import call_injected
from rag.graph.pregel import CompiledStateGraph
from rag.graph.types import Send
from rag.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from rag.models.base import BaseChatModel, to_messages
from rag.runnables import Runnable, RunnableBinding, RunnableConfig, RunnableLambda, RunnableSequence

__all__ = ["build_react_agent", "AgentStateWithStructuredResponse", "StructuredResponse"]

#: What ``generate_structured_response`` stores: a dict or a pydantic object.
StructuredResponse = Any
_VERSIONS = ("v1", "v2")
#: The input key a ``pre_model_hook`` may set to change what the model sees (not the state).
LLM_INPUT_KEY = "llm_input_messages"


class AgentStateWithStructuredResponse(AgentState):
    """:class:`~rag.agents.AgentState` with the ``structured_response`` of ``response_format``."""

    structured_response: StructuredResponse


def _value(state: Any, key: str, default: Any = None) -> Any:
    return state.get(key, default) if isinstance(state, dict) else getattr(state, key, default)


def _validate_chat_history(messages: Sequence[BaseMessage]) -> None:
    """Refuse a history with a tool call no ToolMessage answers (providers reject it)."""
    calls = [call for m in messages if isinstance(m, AIMessage) for call in m.tool_calls]
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    missing = [call for call in calls if call["id"] not in answered]
    if missing:
        raise ValueError(
            "Found AIMessages with tool_calls that do not have a corresponding ToolMessage. Here are the first few "
            f"of those tool calls: {missing[:3]}.\n\nEvery tool call (LLM requesting to call a tool) in the message "
            "history MUST have a corresponding ToolMessage (result of a tool invocation to return to the LLM) - this "
            "is required by most LLM providers."
        )


def _chat_step(model: Any) -> Any:
    """The binding or chat model inside a ``prompt | model`` sequence (else ``model``)."""
    if isinstance(model, RunnableSequence):
        return next((s for s in model.steps if isinstance(s, (RunnableBinding, BaseChatModel))), model)
    return model


def _should_bind_tools(model: Any, tools: Sequence[Any], num_builtin: int = 0) -> bool:
    """Whether ``model`` still needs ``bind_tools``: False when it already offers exactly
    ``tools`` (plus ``num_builtin`` provider tools); a binding offering others raises."""
    model = _chat_step(model)
    if not isinstance(model, RunnableBinding) or "tools" not in model.kwargs:
        return True
    bound = model.kwargs["tools"]
    if len(tools) != len(bound) - num_builtin:
        raise ValueError("Number of tools in the model.bind_tools() and tools passed to create_react_agent must match"
                         f" Got {len(tools)} tools, expected {len(bound) - num_builtin}")
    names = set()
    for spec in bound:
        if spec.get("type") == "function":
            names.add(spec["function"]["name"])
        elif spec.get("name"):
            names.add(spec["name"])
    if missing := {t.name for t in tools} - names:
        raise ValueError(f"Missing tools '{missing}' in the model.bind_tools()")
    return False


def _get_model(model: Any) -> BaseChatModel:
    """The chat model under a binding (or a ``prompt | model`` sequence)."""
    model = _chat_step(model)
    if isinstance(model, RunnableBinding):
        model = model.bound
    if not isinstance(model, BaseChatModel):
        raise TypeError(f"Expected `model` to be a ChatModel or RunnableBinding (e.g. model.bind_tools(...)), "
                        f"got {type(model)}")
    return model


class _Prompt:
    """The prompt as a function of the state: None (the messages), a str or SystemMessage
    (put first), a function (sync or ``async def``, awaited on the async path) or a Runnable."""

    def __init__(self, prompt: Any) -> None:
        if prompt is not None and not isinstance(prompt, (str, SystemMessage, Runnable)) and not callable(prompt):
            raise InvalidTypeError(f"prompt must be a str, a SystemMessage, a function of the state or a Runnable, "
                                   f"got {type(prompt).__name__}: {prompt!r:.60}")
        self.prompt = SystemMessage(prompt) if isinstance(prompt, str) else prompt
        self.is_async = inspect.iscoroutinefunction(prompt)

    def __call__(self, state: Any, config: RunnableConfig) -> list[BaseMessage]:
        if self.is_async:
            raise UsageError("the prompt is an async function: run the agent with ainvoke()/astream(), or pass a "
                             "sync prompt function")
        return self._finish(state, self._start(state, config))

    async def acall(self, state: Any, config: RunnableConfig) -> list[BaseMessage]:
        if self.is_async:
            return self._finish(state, await call_injected(self.prompt, state, config))
        if isinstance(self.prompt, Runnable):
            return self._finish(state, await self.prompt.ainvoke(state, config))
        return self._finish(state, self._start(state, config))

    def _start(self, state: Any, config: RunnableConfig) -> Any:
        messages = list(_value(state, "messages"))
        if self.prompt is None:
            return messages
        if isinstance(self.prompt, SystemMessage):
            return [self.prompt, *messages]
        if isinstance(self.prompt, Runnable):
            return self.prompt.invoke(state, config)  # nests in the trace
        return call_injected(self.prompt, state, config)  # config, store, runtime... as a node gets them

    @staticmethod
    def _finish(state: Any, value: Any) -> list[BaseMessage]:
        return to_messages(value)


def _with_llm_input(schema: Any) -> Any:
    """``schema`` with the optional ``llm_input_messages`` key a ``pre_model_hook`` may set."""
    if not typing.is_typeddict(schema):
        return schema  # StateGraph refuses it, naming it

    class CallModelInputSchema(schema):  # type: ignore[misc, valid-type]
        llm_input_messages: typing.NotRequired[list]

    return CallModelInputSchema


def _check_state_schema(state_schema: Any, response_format: Any) -> None:
    required = {"messages"} | ({"structured_response"} if response_format is not None else set())
    try:
        keys = set(typing.get_type_hints(state_schema))
    except Exception as exc:  # not a class with annotations
        raise InvalidTypeError(f"state_schema must be a TypedDict class, got {state_schema!r:.60}") from exc
    if missing := required - keys:
        raise ValueError(f"Missing required key(s) {missing} in state_schema")


def build_react_agent(model: Any, tools: Any, *, prompt: Any, response_format: Any, pre_model_hook: Any,
                      post_model_hook: Any, state_schema: Any, context_schema: Any, checkpointer: Any, store: Any,
                      interrupt_before: Any, interrupt_after: Any, debug: bool, version: str, name: Optional[str],
                      max_model_calls: int, on_model_call_limit: str,
                      handle_tool_errors: HandleToolErrors) -> CompiledStateGraph:
    """The graph of :func:`rag.agents.create_react_agent` (see the module docstring)."""
    if version not in _VERSIONS:
        raise ValueError(f"Invalid version {version}. Supported versions are 'v1' and 'v2'.")
    if isinstance(max_model_calls, bool) or not isinstance(max_model_calls, int) or max_model_calls < 1:
        raise ValidationError(f"max_model_calls must be an int >= 1, got {max_model_calls!r}")
    if on_model_call_limit not in ("final_answer", "error"):
        raise ValidationError(f"on_model_call_limit must be 'final_answer' or 'error', got {on_model_call_limit!r}")
    if state_schema is not None:
        _check_state_schema(state_schema, response_format)
    schema = state_schema or (AgentStateWithStructuredResponse if response_format is not None else AgentState)
    if pre_model_hook is not None:
        schema = _with_llm_input(schema)

    if isinstance(tools, ToolNode):
        tool_node, builtin = tools, []
    elif tools is None or isinstance(tools, (str, dict)) or not isinstance(tools, Sequence):
        raise InvalidTypeError(f"create_react_agent needs a list of tools or a ToolNode, got {type(tools).__name__}")
    else:
        builtin = [t for t in tools if isinstance(t, dict)]
        tool_node = ToolNode(as_tools([t for t in tools if not isinstance(t, dict)], where="create_react_agent"),
                             handle_tool_errors=handle_tool_errors)
    tool_classes = list(tool_node.tools_by_name.values())
    direct = {t.name for t in tool_classes if t.return_direct}

    dynamic = not isinstance(model, (str, Runnable)) and callable(model)
    async_dynamic = dynamic and inspect.iscoroutinefunction(model)
    if isinstance(model, str):
        raise InvalidTypeError(f"model={model!r}: pass a chat model object, e.g. ChatOpenAI(model=..., base_url=...); "
                               "model names are not resolved to providers")
    if not dynamic:
        if not isinstance(model, Runnable):
            raise InvalidTypeError(f"model must be a chat model, a Runnable or a function (state, runtime) -> chat "
                                   f"model, got {type(model).__name__}")
        if tool_classes + builtin and _should_bind_tools(model, tool_classes, num_builtin=len(builtin)):
            model = model.bind_tools(tool_classes + builtin)  # type: ignore[attr-defined]
    to_messages_of = _Prompt(prompt)
    final_instruction = SystemMessage(FINAL_ANSWER_INSTRUCTION.format(limit=max_model_calls))
    cap_final = on_model_call_limit == "final_answer" and bool(tool_classes)

    def runtime() -> Any:
        from rag.graph.runtime import get_runtime

        return get_runtime()

    def model_input(state: Any) -> Any:
        messages = (_value(state, LLM_INPUT_KEY) if pre_model_hook is not None else None) or _value(state, "messages")
        if messages is None:
            raise ValueError(f"Expected input to call_model to have 'messages' key, but got {state}")
        _validate_chat_history(messages)
        return {**state, "messages": messages} if isinstance(state, dict) else state

    def plan(state: Any, chosen: Any) -> tuple[Any, bool]:
        """The model to call (with tools, or plain for the cap's final answer)."""
        used = _calls_this_turn(_value(state, "messages"))
        if used >= max_model_calls:
            raise ModelCallLimitExceededError(max_model_calls, used)
        if cap_final and used == max_model_calls - 1:
            return _get_model(chosen), True
        return chosen, False

    def finish(state: Any, reply: Any, last_call: bool) -> dict[str, Any]:
        reply = _unique_id(_as_ai_message(reply), _value(state, "messages"))
        if name is not None:
            reply.name = name
        return {"messages": [_final_answer(reply, max_model_calls) if last_call else reply]}

    def call_model(state: Any, config: RunnableConfig) -> dict[str, Any]:
        if async_dynamic:
            raise RuntimeError("Async model callable provided but agent invoked synchronously. Use agent.ainvoke() or "
                               "agent.astream(), or provide a sync model callable.")
        chosen, last_call = plan(state, model(state, runtime()) if dynamic else model)
        messages = to_messages_of(model_input(state), config)
        if last_call:
            messages = [*messages, final_instruction]
        return finish(state, chosen.invoke(messages, config), last_call)

    async def acall_model(state: Any, config: RunnableConfig) -> dict[str, Any]:
        chosen = (await model(state, runtime())) if async_dynamic else (model(state, runtime()) if dynamic else model)
        chosen, last_call = plan(state, chosen)
        messages = await to_messages_of.acall(model_input(state), config)
        if last_call:
            messages = [*messages, final_instruction]
        return finish(state, await chosen.ainvoke(messages, config), last_call)

    def structured_input(state: Any) -> tuple[list[BaseMessage], Any]:
        messages, target = list(_value(state, "messages")), response_format
        if isinstance(response_format, tuple):
            instruction, target = response_format
            messages = [SystemMessage(instruction), *messages]
        return messages, target

    def generate_structured_response(state: Any, config: RunnableConfig) -> dict[str, Any]:
        if async_dynamic:
            raise RuntimeError("Async model callable provided but agent invoked synchronously. Use agent.ainvoke() or "
                               "agent.astream(), or provide a sync model callable.")
        messages, target = structured_input(state)
        chosen = model(state, runtime()) if dynamic else model
        return {"structured_response": _get_model(chosen).with_structured_output(target).invoke(messages, config)}

    async def agenerate_structured_response(state: Any, config: RunnableConfig) -> dict[str, Any]:
        messages, target = structured_input(state)
        chosen = (await model(state, runtime())) if async_dynamic else (model(state, runtime()) if dynamic else model)
        return {"structured_response": await _get_model(chosen).with_structured_output(target).ainvoke(messages,
                                                                                                       config)}

    graph = StateGraph(schema, context_schema=context_schema) if context_schema is not None else StateGraph(schema)
    graph.add_node("agent", RunnableLambda(call_model, acall_model, name="agent"))
    entry = "agent"
    if pre_model_hook is not None:
        graph.add_node("pre_model_hook", pre_model_hook)
        graph.add_edge("pre_model_hook", "agent")
        entry = "pre_model_hook"
    graph.set_entry_point(entry)
    if post_model_hook is not None:
        graph.add_node("post_model_hook", post_model_hook)
        graph.add_edge("agent", "post_model_hook")
    if response_format is not None:
        graph.add_node("generate_structured_response",
                       RunnableLambda(generate_structured_response, agenerate_structured_response,
                                      name="generate_structured_response"))
    after_answer = "generate_structured_response" if response_format is not None else END

    def sends(state: Any, calls: list[dict[str, Any]]) -> list[Send]:
        return [Send("tools", {"__type": "tool_call_with_context", "tool_call": call, "state": state})
                for call in calls]

    if not tool_classes:
        if post_model_hook is not None and response_format is not None:
            graph.add_edge("post_model_hook", "generate_structured_response")
        elif response_format is not None:
            graph.add_edge("agent", "generate_structured_response")
        return _compiled(graph, checkpointer, store, interrupt_before, interrupt_after, name, max_model_calls,
                         pre_model_hook, post_model_hook, debug)

    def should_continue(state: Any) -> Any:
        last = _value(state, "messages")[-1]
        if not isinstance(last, AIMessage) or not last.tool_calls:
            return "post_model_hook" if post_model_hook is not None else after_answer
        if version == "v1":
            return "tools"
        return "post_model_hook" if post_model_hook is not None else sends(state, last.tool_calls)

    graph.add_node("tools", tool_node)
    agent_paths = ["post_model_hook"] if post_model_hook is not None else ["tools", after_answer]
    graph.add_conditional_edges("agent", should_continue, agent_paths)

    if post_model_hook is not None:
        def after_post_hook(state: Any) -> Any:
            messages = _value(state, "messages")
            answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
            last_ai = next(m for m in reversed(messages) if isinstance(m, AIMessage))
            pending = [c for c in last_ai.tool_calls if c["id"] not in answered]
            if pending:
                return sends(state, pending)
            if isinstance(messages[-1], ToolMessage):
                return entry
            return after_answer

        graph.add_conditional_edges("post_model_hook", after_post_hook, [entry, "tools", after_answer])

    if direct:
        def route_tool_responses(state: Any) -> str:
            message: Any = None
            for message in reversed(_value(state, "messages")):
                if not isinstance(message, ToolMessage):
                    break
                if message.name in direct and message.status == "success":
                    return END
            # a return_direct call answered by another Send's task of the same reply
            if isinstance(message, AIMessage) and any(c["name"] in direct for c in message.tool_calls):
                return END
            return entry

        graph.add_conditional_edges("tools", route_tool_responses, [entry, END])
    else:
        graph.add_edge("tools", entry)
    return _compiled(graph, checkpointer, store, interrupt_before, interrupt_after, name, max_model_calls,
                     pre_model_hook, post_model_hook, debug)


def _compiled(graph: StateGraph, checkpointer: Any, store: Any, interrupt_before: Any, interrupt_after: Any,
              name: Optional[str], max_model_calls: int, pre_model_hook: Any, post_model_hook: Any,
              debug: bool = False) -> CompiledStateGraph:
    options = {"store": store} if store is not None else {}
    compiled = graph.compile(checkpointer=checkpointer, interrupt_before=interrupt_before,
                             interrupt_after=interrupt_after, name=name, debug=debug, **options)
    # Each round is the model, the hooks and one tools step: room for the cap's rounds.
    per_round = 2 + (pre_model_hook is not None) + (post_model_hook is not None)
    compiled = compiled.with_config(recursion_limit=per_round * max_model_calls + 3)
    if pre_model_hook is not None:
        from rag.agents.middleware._agent import AgentGraph

        # llm_input_messages is the model's input for one call, not part of the agent's answer.
        compiled = AgentGraph.of(compiled, frozenset({LLM_INPUT_KEY}), {})
    return compiled
