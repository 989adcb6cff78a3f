"""What a classic agent decides and what happened: ``AgentAction``, ``AgentFinish``,
``AgentStep`` (LangChain's ``langchain_core.agents`` shapes, as dataclasses)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from rag.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = ["AgentAction", "AgentActionMessageLog", "ToolAgentAction", "OpenAIToolAgentAction", "AgentFinish",
           "AgentStep", "AddableDict", "observation_text"]


def observation_text(observation: Any) -> str:
    """A tool's result as text for the model: a string as is, else JSON (``str()`` if
    it cannot be)."""
    if isinstance(observation, str):
        return observation
    try:
        return json.dumps(observation, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(observation)


@dataclass
class AgentAction:
    """Run ``tool`` with ``tool_input`` (a string or a dict of arguments); ``log`` is the
    model's text that chose it.

    >>> AgentAction("search", "rag", "Action: search").messages[0].content
    'Action: search'
    """

    tool: str
    tool_input: Union[str, dict]
    log: str
    type: str = field(default="AgentAction", init=False, repr=False)

    @property
    def messages(self) -> list[BaseMessage]:
        """The action as chat messages (the model's text)."""
        return [AIMessage(content=self.log)]


@dataclass
class AgentActionMessageLog(AgentAction):
    """An action chosen by a chat model's message(s), kept in ``message_log``."""

    message_log: list = field(default_factory=list)

    @property
    def messages(self) -> list[BaseMessage]:
        return list(self.message_log)


@dataclass
class ToolAgentAction(AgentActionMessageLog):
    """An action from a native tool call, answering ``tool_call_id``."""

    tool_call_id: Optional[str] = None


# LangChain's name for the same thing in the OpenAI tools agent.
OpenAIToolAgentAction = ToolAgentAction


@dataclass
class AgentFinish:
    """The agent's answer: ``return_values`` (e.g. ``{"output": ...}``) and the ``log``."""

    return_values: dict
    log: str
    type: str = field(default="AgentFinish", init=False, repr=False)

    @property
    def messages(self) -> list[BaseMessage]:
        return [AIMessage(content=self.log)]


@dataclass
class AgentStep:
    """An action and its tool's ``observation``."""

    action: AgentAction
    observation: Any

    @property
    def messages(self) -> list[BaseMessage]:
        """The observation as a message: a ToolMessage for a tool call (LangChain builds a
        FunctionMessage, a kind of message this project does not have), else a
        HumanMessage."""
        content = observation_text(self.observation)
        if isinstance(self.action, ToolAgentAction) and self.action.tool_call_id:
            return [ToolMessage(content, tool_call_id=self.action.tool_call_id, name=self.action.tool)]
        return [HumanMessage(content=content)]


class AddableDict(dict):
    """A dict that adds up with ``+`` (lists concatenated, other values added or
    replaced): the chunks :meth:`AgentExecutor.stream` yields add up to the whole run."""

    def __add__(self, other: dict) -> "AddableDict":
        total = AddableDict(self)
        for key, value in other.items():
            if key not in total or total[key] is None:
                total[key] = value
            elif value is not None:
                try:
                    total[key] = total[key] + value
                except TypeError:
                    total[key] = value
        return total

    def __radd__(self, other: dict) -> "AddableDict":
        return AddableDict(other) + self
