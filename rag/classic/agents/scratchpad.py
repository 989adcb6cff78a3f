"""Scratchpads: the steps an agent has taken, written back into its next prompt."""

from __future__ import annotations

from typing import Any, Sequence

from rag.classic.agents.types import AgentAction, ToolAgentAction, observation_text
from rag.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = ["format_log_to_str", "format_log_to_messages", "format_to_tool_messages", "format_to_openai_tool_messages"]


def format_log_to_str(intermediate_steps: Sequence[tuple[AgentAction, Any]], observation_prefix: str = "Observation: ",
                      llm_prefix: str = "Thought: ") -> str:
    """Each action's log, then ``observation_prefix`` + its observation, then
    ``llm_prefix`` for the model to go on from (the ReAct scratchpad).

    >>> format_log_to_str([(AgentAction("search", "rag", "Action: search"), "found")])
    'Action: search\\nObservation: found\\nThought: '
    """
    return "".join(f"{action.log}\n{observation_prefix}{observation}\n{llm_prefix}"
                   for action, observation in intermediate_steps)


def format_log_to_messages(intermediate_steps: Sequence[tuple[AgentAction, Any]],
                           template_tool_response: str = "{observation}") -> list[BaseMessage]:
    """Each step as an AI message (the log) and a human message (the observation in
    ``template_tool_response``)."""
    messages: list[BaseMessage] = []
    for action, observation in intermediate_steps:
        messages.append(AIMessage(content=action.log))
        messages.append(HumanMessage(content=template_tool_response.format(observation=observation)))
    return messages


def format_to_tool_messages(intermediate_steps: Sequence[tuple[AgentAction, Any]]) -> list[BaseMessage]:
    """Each tool call's AI message (once, however many of its calls ran) followed by a
    ToolMessage with the observation (JSON unless a string); a text action as an AI
    message of its log."""
    messages: list[BaseMessage] = []
    for action, observation in intermediate_steps:
        if isinstance(action, ToolAgentAction):
            reply = ToolMessage(observation_text(observation), tool_call_id=action.tool_call_id or "",
                                additional_kwargs={"name": action.tool})
            messages.extend(m for m in [*action.message_log, reply] if m not in messages)
        else:
            messages.append(AIMessage(content=action.log))
    return messages


# LangChain's name for the same formatter in the OpenAI tools agent.
format_to_openai_tool_messages = format_to_tool_messages
