"""Middleware for :func:`rag.agents.create_agent` (langchain 1.x ``langchain.agents.middleware``).

Hooks run as nodes of the agent's graph, in LangChain's order: ``before_agent`` and
``before_model`` hooks in list order, ``after_model`` and ``after_agent`` hooks in reverse;
``wrap_model_call`` / ``wrap_tool_call`` wrappers nest with the first middleware outermost.

>>> from rag.agents import create_agent
>>> from rag.models import GenericFakeChatModel
>>> seen = []
>>> @before_model
... def count(state, runtime):
...     seen.append(len(state["messages"]))
>>> agent = create_agent(GenericFakeChatModel(messages=iter(["Hello."])), [], middleware=[count])
>>> agent.invoke({"messages": [("human", "Hi")]})["messages"][-1].content
'Hello.'
>>> seen
[1]
"""

from rag.agents.middleware.decorators import (
    after_agent, after_model, before_agent, before_model, dynamic_prompt, wrap_model_call, wrap_tool_call,
)
from rag.agents.middleware.cap import ModelCallCapMiddleware, ToolErrorMessagesMiddleware
from rag.agents.middleware.context_editing import ClearToolUsesEdit, ContextEditingMiddleware
from rag.agents.middleware.human_in_the_loop import HumanInTheLoopMiddleware
from rag.agents.middleware.limits import (
    ModelCallLimitExceededError, ModelCallLimitMiddleware, ToolCallLimitExceededError, ToolCallLimitMiddleware,
)
from rag.agents.middleware.pii import PIIDetectionError, PIIMatch, PIIMiddleware
from rag.agents.middleware.retry import (
    ModelFallbackMiddleware, ModelRetryMiddleware, ToolErrorMiddleware, ToolRetryMiddleware,
)
from rag.agents.middleware.summarization import SummarizationMiddleware
from rag.agents.middleware.todo import TodoListMiddleware
from rag.agents.middleware.tool_selection import LLMToolSelectorMiddleware
from rag.agents.middleware.types import (
    AgentMiddleware, AgentState, ExtendedModelResponse, JumpTo, ModelRequest, ModelResponse, OmitFromInput,
    OmitFromOutput, OmitFromSchema, PrivateStateAttr, Runtime, ToolCallRequest, UntrackedValue, hook_config,
)

__all__ = [
    "AgentMiddleware",
    "AgentState",
    "ModelRequest",
    "ModelResponse",
    "ExtendedModelResponse",
    "ToolCallRequest",
    "Runtime",
    "JumpTo",
    "hook_config",
    "before_agent",
    "before_model",
    "after_model",
    "after_agent",
    "wrap_model_call",
    "wrap_tool_call",
    "dynamic_prompt",
    "OmitFromSchema",
    "OmitFromInput",
    "OmitFromOutput",
    "PrivateStateAttr",
    "UntrackedValue",
    "ModelCallLimitMiddleware",
    "ModelCallLimitExceededError",
    "ToolCallLimitMiddleware",
    "ToolCallLimitExceededError",
    "ModelRetryMiddleware",
    "ToolRetryMiddleware",
    "ModelFallbackMiddleware",
    "ToolErrorMiddleware",
    "HumanInTheLoopMiddleware",
    "SummarizationMiddleware",
    "PIIMiddleware",
    "PIIMatch",
    "PIIDetectionError",
    "ContextEditingMiddleware",
    "ClearToolUsesEdit",
    "LLMToolSelectorMiddleware",
    "TodoListMiddleware",
    "ModelCallCapMiddleware",
    "ToolErrorMessagesMiddleware",
]
