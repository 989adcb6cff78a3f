"""Stands for ``tests.unit_tests.agents.model`` of langchain 1.4.7's tests: the same
``FakeToolCallingModel(tool_calls=[[...], ...], structured_response=..., tool_style=...)``
on our BaseChatModel (theirs is a langchain_core model, which our agents do not take).
Written from its behaviour: each call answers with the next list of tool calls (cycling),
the text being the input messages' texts joined by "-", the id the call's index; with
``response_format`` bound and no tool calls left, the structured response as JSON."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Optional

from rag.messages import AIMessage, BaseMessage
from rag.models.base import BaseChatModel


class FakeToolCallingModel(BaseChatModel):
    def __init__(self, *, tool_calls: Optional[list[list[dict[str, Any]]]] = None, structured_response: Any = None,
                 index: int = 0, tool_style: str = "openai") -> None:
        self.tool_calls, self.structured_response = tool_calls, structured_response
        self.index, self.tool_style = index, tool_style

    def _generate(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> AIMessage:
        native = kwargs.get("response_format")
        calls: list[dict[str, Any]] = []
        if self.tool_calls:
            calls = (self.tool_calls[self.index] if self.index < len(self.tool_calls) else []) if native \
                else self.tool_calls[self.index % len(self.tool_calls)]
        if native and not calls:
            value = self.structured_response
            if hasattr(value, "model_dump"):
                value = value.model_dump()
            elif dataclasses.is_dataclass(value) and not isinstance(value, type):
                value = dataclasses.asdict(value)
            reply = AIMessage(json.dumps(value), id=str(self.index))
        else:
            reply = AIMessage("-".join(m.text for m in messages), id=str(self.index),
                              tool_calls=[dict(c) for c in calls])
        self.index += 1
        return reply

    @property
    def _llm_type(self) -> str:
        return "fake-tool-call-model"
