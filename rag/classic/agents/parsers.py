"""Agent output parsers: a model's reply to an :class:`AgentAction` (or several) or an
:class:`AgentFinish`. A reply that cannot be read raises
:class:`~rag.errors.OutputParserException`, which ``AgentExecutor`` can hand back to the
model (``handle_parsing_errors``)."""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Optional, Union

from rag.classic.agents.types import AgentAction, AgentFinish, OpenAIToolAgentAction, ToolAgentAction
from rag.errors import OutputParserException, ValidationError
from rag.messages import AIMessage
from rag.parsers import BaseOutputParser, parse_json_markdown
from rag.runnables import RunnableConfig

__all__ = ["AgentOutputParser", "ReActSingleInputOutputParser", "JSONAgentOutputParser", "StructuredChatOutputParser",
           "ToolsAgentOutputParser", "OpenAIToolsAgentOutputParser", "parse_ai_message_to_tool_action",
           "parse_ai_message_to_openai_tool_action", "ToolAgentAction", "OpenAIToolAgentAction",
           "FINAL_ANSWER_ACTION"]

logger = logging.getLogger("rag.classic.agents")

FINAL_ANSWER_ACTION = "Final Answer:"
MISSING_ACTION_AFTER_THOUGHT = "Invalid Format: Missing 'Action:' after 'Thought:'"
MISSING_ACTION_INPUT_AFTER_ACTION = "Invalid Format: Missing 'Action Input:' after 'Action:'"
FINAL_ANSWER_AND_ACTION = "Parsing LLM output produced both a final answer and a parse-able action:"

_ACTION = re.compile(r"Action\s*\d*\s*:[\s]*(.*?)Action\s*\d*\s*Input\s*\d*\s*:[\s]*(.*)", re.DOTALL)
_ACTION_ONLY = re.compile(r"Action\s*\d*\s*:[\s]*(.*?)", re.DOTALL)
_INPUT_ONLY = re.compile(r"[\s]*Action\s*\d*\s*Input\s*\d*\s*:[\s]*(.*)", re.DOTALL)


class AgentOutputParser(BaseOutputParser[Union[AgentAction, AgentFinish]]):
    """A parser from a model's text to an action or a finish."""


class ReActSingleInputOutputParser(AgentOutputParser):
    """The text ReAct format: ``Action: tool`` then ``Action Input: text`` (the input's
    surrounding spaces and double quotes stripped) is an action; ``Final Answer: ...`` is
    the finish. Both at once, or neither, is a parsing error (the missing line is told to
    the model when errors are handled).

    >>> ReActSingleInputOutputParser().parse("Thought: look\\nAction: search\\nAction Input: rag").tool_input
    'rag'
    >>> ReActSingleInputOutputParser().parse("Final Answer: 42").return_values
    {'output': '42'}
    """

    def parse(self, text: str) -> Union[AgentAction, AgentFinish]:
        has_answer = FINAL_ANSWER_ACTION in text
        match = _ACTION.search(text)
        if match:
            if has_answer:
                raise OutputParserException(f"{FINAL_ANSWER_AND_ACTION}: {text}")
            return AgentAction(match.group(1).strip(), match.group(2).strip(" ").strip('"'), text)
        if has_answer:
            return AgentFinish({"output": text.rsplit(FINAL_ANSWER_ACTION, maxsplit=1)[-1].strip()}, text)
        if not _ACTION_ONLY.search(text):
            raise OutputParserException(f"Could not parse LLM output: `{text}`", observation=MISSING_ACTION_AFTER_THOUGHT,
                                        llm_output=text, send_to_llm=True)
        if not _INPUT_ONLY.search(text):
            raise OutputParserException(f"Could not parse LLM output: `{text}`",
                                        observation=MISSING_ACTION_INPUT_AFTER_ACTION, llm_output=text, send_to_llm=True)
        raise OutputParserException(f"Could not parse LLM output: `{text}`")


def _json_decision(response: Any, text: str) -> Union[AgentAction, AgentFinish]:
    if isinstance(response, list):
        logger.warning("Got multiple action responses: %s", response)
        response = response[0]
    if response["action"] == "Final Answer":
        return AgentFinish({"output": response["action_input"]}, text)
    action_input = response.get("action_input", {})
    return AgentAction(response["action"], {} if action_input is None else action_input, text)


class JSONAgentOutputParser(AgentOutputParser):
    """A JSON blob (bare or in a markdown code block) ``{"action": ..., "action_input": ...}``;
    the action "Final Answer" is the finish.

    >>> JSONAgentOutputParser().parse('{"action": "Final Answer", "action_input": "hi"}').return_values
    {'output': 'hi'}
    """

    def parse(self, text: str) -> Union[AgentAction, AgentFinish]:
        try:
            return _json_decision(parse_json_markdown(text), text)
        except Exception as exc:
            raise OutputParserException(f"Could not parse LLM output: {text}") from exc


class StructuredChatOutputParser(AgentOutputParser):
    """The structured chat format: a JSON action in a fenced code block; text without one
    is the final answer."""

    pattern: Any = re.compile(r"```(?:json\s+)?(\W.*?)```", re.DOTALL)

    def parse(self, text: str) -> Union[AgentAction, AgentFinish]:
        try:
            match = self.pattern.search(text)
            if match is None:
                return AgentFinish({"output": text}, text)
            return _json_decision(json.loads(match.group(1).strip(), strict=False), text)
        except Exception as exc:
            raise OutputParserException(f"Could not parse LLM output: {text}") from exc


def parse_ai_message_to_tool_action(message: Any) -> Union[list[AgentAction], AgentFinish]:
    """A chat model's reply to one :class:`ToolAgentAction` per tool call, or, without
    tool calls, the finish with its content. Calls sent only in ``additional_kwargs``
    (OpenAI's raw format) are read too."""
    if not isinstance(message, AIMessage):
        raise ValidationError(f"Expected an AI message got {type(message)}")
    calls = list(message.tool_calls)
    if not calls:
        raw = message.additional_kwargs.get("tool_calls")
        if not raw:
            return AgentFinish(return_values={"output": message.content}, log=str(message.content))
        for call in raw:
            function = call["function"]
            try:
                args = json.loads(function["arguments"] or "{}")
            except json.JSONDecodeError as exc:
                raise OutputParserException(
                    f"Could not parse tool input: {function} because the `arguments` is not valid JSON.") from exc
            calls.append({"name": function["name"], "args": args, "id": call["id"], "type": "tool_call"})
    actions: list[AgentAction] = []
    for call in calls:
        # A tool taking one positional string was offered as {"__arg1": ...} by LangChain.
        tool_input = call["args"].get("__arg1", call["args"])
        said = f"responded: {message.content}\n" if message.content else "\n"
        log = f"\nInvoking: `{call['name']}` with `{tool_input}`\n{said}\n"
        actions.append(ToolAgentAction(call["name"], tool_input, log, message_log=[message], tool_call_id=call["id"]))
    return actions


# LangChain's name for the same reading in the OpenAI tools agent.
parse_ai_message_to_openai_tool_action = parse_ai_message_to_tool_action


class ToolsAgentOutputParser(BaseOutputParser[Union[list[AgentAction], AgentFinish]]):
    """A chat model's message with tool calls to actions (see
    :func:`parse_ai_message_to_tool_action`); reads messages, not text."""

    def parse(self, text: str) -> Union[list[AgentAction], AgentFinish]:
        raise ValidationError("Can only parse messages")

    def parse_message(self, message: Any) -> Union[list[AgentAction], AgentFinish]:
        return parse_ai_message_to_tool_action(message)

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return self._call_traced(lambda value, _cfg: self.parse_message(value), input, config)

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        async def body(value: Any, _cfg: Any) -> Any:
            return self.parse_message(value)

        return await self._acall_traced(body, input, config)


class OpenAIToolsAgentOutputParser(ToolsAgentOutputParser):
    """LangChain's name for :class:`ToolsAgentOutputParser` in the OpenAI tools agent."""
