"""How ``AgentExecutor`` runs a tool, and the two tools it runs itself: "invalid_tool"
(the agent named a tool that does not exist) and "_Exception" (its reply could not be
parsed), so those steps appear in the trace as LangChain's do."""

from __future__ import annotations

from typing import Any

from rag.errors import RagError
from rag.tools import Tool

__all__ = ["ToolRunError", "run_tool", "INVALID_TOOL", "EXCEPTION_TOOL"]


class ToolRunError(RagError, RuntimeError):
    """A tool raised while an agent ran it; ``tool_name`` names it and the original
    exception is the cause. (LangChain lets the tool's exception through unnamed.) Give
    the tool ``handle_tool_error`` and raise ToolException in it to show the agent the
    error instead."""

    def __init__(self, tool_name: str, error: BaseException) -> None:
        self.tool_name = tool_name
        super().__init__(f"tool {tool_name!r} raised {type(error).__name__}: {error}; to let the agent see tool "
                         "errors, raise ToolException in the tool and set its handle_tool_error")


def run_tool(tool: Any, tool_input: Any, callbacks: Any) -> Any:
    """The tool's result for ``tool_input`` (a string or a dict of arguments), its run
    nested under the agent's via ``callbacks``."""
    try:
        return tool.invoke(tool_input, {"callbacks": callbacks} if callbacks is not None else None)
    except Exception as exc:
        raise ToolRunError(getattr(tool, "name", type(tool).__name__), exc) from exc


def _suggest(requested_tool_name: str, available_tool_names: list) -> str:
    return f"{requested_tool_name} is not a valid tool, try one of [{', '.join(available_tool_names)}]."


INVALID_TOOL = Tool(
    "invalid_tool", _suggest, "Called when tool name is invalid. Suggests valid tool names.",
    args_schema={"type": "object", "properties": {"requested_tool_name": {"type": "string"},
                                                  "available_tool_names": {"type": "array", "items": {"type": "string"}}},
                 "required": ["requested_tool_name", "available_tool_names"]},
)

EXCEPTION_TOOL = Tool("_Exception", lambda tool_input: tool_input, "Exception tool")
