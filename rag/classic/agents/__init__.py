"""Classic agents (``langchain_classic.agents``) run by :class:`AgentExecutor`.

>>> from rag.models import FakeListChatModel
>>> from rag.prompts import PromptTemplate
>>> from rag.tools import tool
>>> @tool
... def double(n: str) -> str:
...     '''Double a number.'''
...     return str(2 * int(n))
>>> prompt = PromptTemplate.from_template("Tools:\\n{tools}\\nUse {tool_names}.\\nQ: {input}\\n{agent_scratchpad}")
>>> model = FakeListChatModel(responses=["Action: double\\nAction Input: 21", "Final Answer: 42"])
>>> executor = AgentExecutor(agent=create_react_agent(model, [double], prompt), tools=[double],
...                          return_intermediate_steps=True)
>>> out = executor.invoke({"input": "Twice 21?"})
>>> out["output"], out["intermediate_steps"][0][1]
('42', '42')
"""

from rag.classic.agents.agent import (
    BaseMultiActionAgent,
    BaseSingleActionAgent,
    RunnableAgent,
    RunnableMultiActionAgent,
)
from rag.classic.agents.executor import AgentExecutor
from rag.classic.agents.factories import (
    create_json_chat_agent,
    create_openai_tools_agent,
    create_react_agent,
    create_structured_chat_agent,
    create_tool_calling_agent,
    render_text_description,
    render_text_description_and_args,
)
from rag.classic.agents.parsers import (
    AgentOutputParser,
    JSONAgentOutputParser,
    OpenAIToolsAgentOutputParser,
    ReActSingleInputOutputParser,
    StructuredChatOutputParser,
    ToolsAgentOutputParser,
)
from rag.classic.agents.scratchpad import (
    format_log_to_messages,
    format_log_to_str,
    format_to_openai_tool_messages,
    format_to_tool_messages,
)
from rag.classic.agents.tools import ToolRunError
from rag.classic.agents.types import (
    AgentAction,
    AgentActionMessageLog,
    AgentFinish,
    AgentStep,
    OpenAIToolAgentAction,
    ToolAgentAction,
)

__all__ = [
    "AgentExecutor",
    "AgentAction",
    "AgentActionMessageLog",
    "AgentFinish",
    "AgentStep",
    "ToolAgentAction",
    "OpenAIToolAgentAction",
    "BaseSingleActionAgent",
    "BaseMultiActionAgent",
    "RunnableAgent",
    "RunnableMultiActionAgent",
    "create_react_agent",
    "create_tool_calling_agent",
    "create_openai_tools_agent",
    "create_structured_chat_agent",
    "create_json_chat_agent",
    "render_text_description",
    "render_text_description_and_args",
    "AgentOutputParser",
    "ReActSingleInputOutputParser",
    "JSONAgentOutputParser",
    "StructuredChatOutputParser",
    "ToolsAgentOutputParser",
    "OpenAIToolsAgentOutputParser",
    "format_log_to_str",
    "format_log_to_messages",
    "format_to_tool_messages",
    "format_to_openai_tool_messages",
    "ToolRunError",
]
