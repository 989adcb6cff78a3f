"""Stands for ``tests/model.py`` of langgraph-prebuilt 1.1.3's tests (not copied: theirs is a
langchain_core model returning ``ChatResult``, which our agents do not take): the same
``FakeToolCallingModel(tool_calls=[[...], ...], structured_response=..., index=0,
tool_style="openai")`` on our BaseChatModel, written from its behaviour. Each call answers
with the next list of tool calls (cycling), the text being the input messages' contents
joined by "-", the id the call's index; ``with_structured_output`` returns the fixed
``structured_response``; ``bind_tools`` refuses an empty list and anything but tools and
dicts, and binds LangGraph's simplified tool specs."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from rag.messages import AIMessage, BaseMessage
from rag.models.base import BaseChatModel
from rag.runnables import Runnable, RunnableLambda
from rag.tools import Tool


class FakeToolCallingModel(BaseChatModel):
    def __init__(self, *, tool_calls: Optional[list[list[dict[str, Any]]]] = None, structured_response: Any = None,
                 index: int = 0, tool_style: str = "openai") -> None:
        self.tool_calls, self.structured_response = tool_calls, structured_response
        self.index, self.tool_style = index, tool_style

    def _generate(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> AIMessage:
        calls = self.tool_calls[self.index % len(self.tool_calls)] if self.tool_calls else []
        reply = AIMessage("-".join(m.content for m in messages), id=str(self.index), tool_calls=list(calls))
        self.index += 1
        return reply

    @property
    def _llm_type(self) -> str:
        return "fake-tool-call-model"

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Runnable:
        if self.structured_response is None:
            raise ValueError("Structured response is not set")
        return RunnableLambda(lambda x: self.structured_response)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        if len(tools) == 0:
            raise ValueError("Must provide at least one tool")
        tool_dicts = []
        for tool in tools:
            if isinstance(tool, dict):
                tool_dicts.append(tool)
                continue
            if not isinstance(tool, Tool):
                raise TypeError("Only BaseTool and dict is supported by FakeToolCallingModel.bind_tools")
            if self.tool_style == "openai":
                tool_dicts.append({"type": "function", "function": {"name": tool.name}})
            elif self.tool_style == "anthropic":
                tool_dicts.append({"name": tool.name})
        return self.bind(tools=tool_dicts)
