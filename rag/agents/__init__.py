"""Agents: a chat model that calls tools in a loop, as a state graph (:mod:`rag.graph`).

``create_agent`` is langchain 1.x's (``from langchain.agents import create_agent``);
``create_react_agent``, ``ToolNode`` and ``tools_condition`` are ``langgraph.prebuilt``'s.
Input and output are ``{"messages": [...]}``; message shapes are LangChain's.

>>> from rag.messages import AIMessage
>>> from rag.models import GenericFakeChatModel
>>> from rag.tools import tool
>>> @tool
... def shout(text: str) -> str:
...     '''Say it loudly.'''
...     return text.upper()
>>> model = GenericFakeChatModel(messages=iter([
...     AIMessage("", tool_calls=[{"name": "shout", "args": {"text": "hi"}, "id": "c1"}]), "Done: HI"]))
>>> agent = create_agent(model, [shout], system_prompt="Use tools.")
>>> agent.invoke({"messages": [("human", "Shout hi")]})["messages"][-1].content
'Done: HI'
"""

from rag.agents.errors import ModelCallLimitExceededError
from rag.agents.factory import AgentState, create_agent, create_react_agent
from rag.agents.sources import CITE_SOURCES_PROMPT, NumberedSources
from rag.agents._tool_call import ToolCallRequest
from rag.agents.injection import InjectedState, InjectedStore, ToolRuntime
from rag.agents.tool_node import ToolInvocationError, ToolNode, tools_condition

__all__ = [
    "create_agent",
    "create_react_agent",
    "ToolNode",
    "tools_condition",
    "AgentState",
    "ModelCallLimitExceededError",
    "ToolInvocationError",
    "ToolCallRequest",
    "ToolRuntime",
    "InjectedState",
    "InjectedStore",
    "NumberedSources",
    "CITE_SOURCES_PROMPT",
]
