"""Tools: functions a chat model can call, and a retriever offered as one.

>>> from rag.tools import tool
>>> @tool
... def add(a: int, b: int) -> int:
...     '''Add two integers.'''
...     return a + b
>>> add.to_openai_tool()["function"]["parameters"]["required"]
['a', 'b']
"""

from rag.tools.base import ResponseFormat, Tool, ToolException, ToolOutputMixin
from rag.tools.injected import InjectedToolArg, InjectedToolCallId
from rag.tools.decorator import tool
from rag.tools.retriever import create_retriever_tool

__all__ = ["Tool", "ToolException", "ResponseFormat", "tool", "create_retriever_tool", "ToolOutputMixin",
           "InjectedToolArg", "InjectedToolCallId"]
