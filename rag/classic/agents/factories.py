"""The classic agent constructors: each returns a runnable from
``{**inputs, "intermediate_steps": [...]}`` to the agent's decision, for
:class:`~rag.classic.agents.AgentExecutor` to run.

``create_react_agent`` here is the classic text ReAct agent (LangChain's
``langchain_classic.agents.create_react_agent``); the tool-calling graph agent of the same
name is :func:`rag.agents.create_react_agent` (LangGraph's ``langgraph.prebuilt``).
"""

from __future__ import annotations

from inspect import signature
from typing import Any, Callable, Optional, Sequence, Union

from rag.classic.agents.parsers import (
    JSONAgentOutputParser,
    OpenAIToolsAgentOutputParser,
    ReActSingleInputOutputParser,
    ToolsAgentOutputParser,
)
from rag.classic.agents.scratchpad import format_log_to_messages, format_log_to_str, format_to_tool_messages
from rag.errors import ValidationError
from rag.runnables import Runnable, RunnableLambda, RunnablePassthrough

__all__ = ["create_react_agent", "create_tool_calling_agent", "create_openai_tools_agent",
           "create_structured_chat_agent", "create_json_chat_agent", "render_text_description",
           "render_text_description_and_args"]

ToolsRenderer = Callable[[list], str]
# How create_json_chat_agent shows the model a tool's result (our wording; pass LangChain's
# TEMPLATE_TOOL_RESPONSE as template_tool_response to send its exact text).
TEMPLATE_TOOL_RESPONSE = ("TOOL RESPONSE:\n---------------------\n{observation}\n\nUSER'S INPUT\n"
                          "--------------------\n\nWhat is your response to my last message? Use what the tool "
                          "returned without naming the tool, and reply with a markdown code block holding one JSON "
                          "blob with a single action, and nothing else.")
_TEXT_AGENT_VARIABLES = {"tools", "tool_names", "agent_scratchpad"}


def _describe(tool: Any) -> str:
    func = getattr(tool, "func", None)
    if func is not None:
        try:
            return f"{tool.name}{signature(func)} - {tool.description}"
        except (TypeError, ValueError):
            pass
    return f"{tool.name} - {tool.description}"


def render_text_description(tools: Sequence[Any]) -> str:
    """One line per tool: ``name(signature) - description`` (as LangChain renders them)."""
    return "\n".join(_describe(tool) for tool in tools)


def render_text_description_and_args(tools: Sequence[Any]) -> str:
    """:func:`render_text_description` with each tool's argument schema appended."""
    return "\n".join(f"{_describe(tool)}, args: {tool.args}" for tool in tools)


def _check_prompt(prompt: Any, needed: set[str]) -> None:
    known = set(getattr(prompt, "input_variables", [])) | set(getattr(prompt, "partial_variables", {}) or {})
    missing = needed - known
    if missing:
        raise ValidationError(f"Prompt missing required variables: {missing}")


def _check_tools(tools: Any, where: str) -> list:
    if isinstance(tools, (str, dict)) or not isinstance(tools, Sequence) or not tools:
        raise ValidationError(f"{where} needs a non-empty list of tools, got {tools!r:.60}")
    return list(tools)


def _with_stop(llm: Any, stop_sequence: Union[bool, list[str]]) -> Any:
    if not stop_sequence:
        return llm
    return llm.bind(stop=["\nObservation"] if stop_sequence is True else list(stop_sequence))


def _scratchpad(formatter: Callable[[list], Any]) -> Runnable:
    return RunnablePassthrough.assign(agent_scratchpad=RunnableLambda(lambda x: formatter(x["intermediate_steps"])))


def _text_agent(llm: Any, tools: Any, prompt: Any, tools_renderer: ToolsRenderer, stop_sequence: Union[bool, list[str]],
                scratchpad: Callable[[list], Any], parser: Any, where: str) -> Runnable:
    tools = _check_tools(tools, where)
    _check_prompt(prompt, _TEXT_AGENT_VARIABLES)
    prompt = prompt.partial(tools=tools_renderer(tools), tool_names=", ".join(t.name for t in tools))
    return _scratchpad(scratchpad) | prompt | _with_stop(llm, stop_sequence) | parser


def create_react_agent(llm: Any, tools: Sequence[Any], prompt: Any, output_parser: Optional[Any] = None,
                       tools_renderer: ToolsRenderer = render_text_description, *,
                       stop_sequence: Union[bool, list[str]] = True) -> Runnable:
    """The text ReAct agent: the prompt must use ``{tools}``, ``{tool_names}`` and
    ``{agent_scratchpad}`` (the steps so far, :func:`format_log_to_str`); the model stops
    at "\\nObservation" (``stop_sequence``); its reply is read by
    :class:`ReActSingleInputOutputParser` unless ``output_parser`` is given."""
    return _text_agent(llm, tools, prompt, tools_renderer, stop_sequence, format_log_to_str,
                       output_parser or ReActSingleInputOutputParser(), "create_react_agent")


def create_structured_chat_agent(llm: Any, tools: Sequence[Any], prompt: Any,
                                 tools_renderer: ToolsRenderer = render_text_description_and_args, *,
                                 stop_sequence: Union[bool, list[str]] = True) -> Runnable:
    """A chat agent that answers with a JSON action blob (:class:`JSONAgentOutputParser`);
    tools are rendered with their arguments, so they may take several."""
    return _text_agent(llm, tools, prompt, tools_renderer, stop_sequence, format_log_to_str,
                       JSONAgentOutputParser(), "create_structured_chat_agent")


def create_json_chat_agent(llm: Any, tools: Sequence[Any], prompt: Any, stop_sequence: Union[bool, list[str]] = True,
                           tools_renderer: ToolsRenderer = render_text_description,
                           template_tool_response: str = TEMPLATE_TOOL_RESPONSE) -> Runnable:
    """A chat agent that answers with a JSON blob; the steps so far are chat messages
    (:func:`format_log_to_messages`, each observation in ``template_tool_response``, which
    must contain ``{observation}``)."""
    if "{observation}" not in template_tool_response:
        raise ValidationError("Template tool response missing required variable 'observation'")
    return _text_agent(llm, tools, prompt, tools_renderer, stop_sequence,
                       lambda steps: format_log_to_messages(steps, template_tool_response=template_tool_response),
                       JSONAgentOutputParser(), "create_json_chat_agent")


def create_tool_calling_agent(llm: Any, tools: Sequence[Any], prompt: Any, *,
                              message_formatter: Callable[[list], list] = format_to_tool_messages) -> Runnable:
    """An agent for a chat model with native tool calls (``bind_tools``): the prompt must
    have an ``agent_scratchpad`` messages placeholder (the steps as tool messages); every
    tool call of a reply is an action (a multi-action agent)."""
    return _tool_agent(llm, tools, prompt, message_formatter, ToolsAgentOutputParser(), "create_tool_calling_agent")


def create_openai_tools_agent(llm: Any, tools: Sequence[Any], prompt: Any, strict: Optional[bool] = None) -> Runnable:
    """LangChain's OpenAI-tools agent: :func:`create_tool_calling_agent`'s shape with its
    own parser name. ``strict`` is passed to ``bind_tools`` when given."""
    return _tool_agent(llm, tools, prompt, format_to_tool_messages, OpenAIToolsAgentOutputParser(),
                       "create_openai_tools_agent", **({"strict": strict} if strict is not None else {}))


def _tool_agent(llm: Any, tools: Any, prompt: Any, formatter: Callable[[list], list], parser: Any, where: str,
                **bind: Any) -> Runnable:
    tools = _check_tools(tools, where)
    _check_prompt(prompt, {"agent_scratchpad"})
    if not hasattr(llm, "bind_tools"):
        raise ValidationError("This function requires a bind_tools() method be implemented on the LLM.")
    return _scratchpad(formatter) | prompt | llm.bind_tools(tools, **bind) | parser
