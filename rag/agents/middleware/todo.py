"""A plan the agent keeps: :class:`TodoListMiddleware` offers a ``write_todos`` tool
whose list lands in ``state["todos"]`` and tells the model, in its system prompt, how to
use it (langchain 1.x's tool name, state key and parameters; our own wording).

>>> TodoListMiddleware().tools[0].name
'write_todos'
"""

from __future__ import annotations

from typing import Annotated, Any, Awaitable, Callable, Literal, Optional, TypedDict

from rag.agents.middleware.types import AgentMiddleware, AgentState, ModelRequest, OmitFromInput, ToolCallRequest
from rag.graph import Command
from rag.messages import AIMessage, SystemMessage, ToolMessage
from rag.tools import Tool

__all__ = ["TodoListMiddleware", "Todo", "WRITE_TODOS_SYSTEM_PROMPT", "WRITE_TODOS_TOOL_DESCRIPTION"]


class Todo(TypedDict):
    """One step of the plan: what to do and whether it is pending, in progress or done."""

    content: str
    status: Literal["pending", "in_progress", "completed"]


class PlanningState(AgentState, total=False):
    todos: Annotated[list, OmitFromInput]


WRITE_TODOS_TOOL_DESCRIPTION = (
    "Write the current plan for this request as a list of steps, each {'content': what to do, 'status': 'pending' | "
    "'in_progress' | 'completed'}. Each call replaces the whole list. Use it for tasks of three or more steps; keep "
    "one step in progress at a time and mark a step completed as soon as it is done."
)

WRITE_TODOS_SYSTEM_PROMPT = (
    "## Planning with `write_todos`\n\n"
    "For a task with several steps, first write the plan with `write_todos`, then keep it current: mark the step you "
    "start as in_progress and each finished step as completed, add steps you discover, and remove ones that no longer "
    "apply. Do not use it for a simple question you can answer directly. Call `write_todos` at most once per reply."
)

PARALLEL_ERROR = ("Error: The `write_todos` tool should never be called multiple times in parallel. Please call it "
                  "only once per model invocation to update the todo list.")


#: The tool's arguments: ``{"todos": [{"content": str, "status": ...}, ...]}``.
WRITE_TODOS_SCHEMA = {"type": "object", "required": ["todos"], "properties": {"todos": {
    "type": "array", "items": {"type": "object", "required": ["content", "status"], "properties": {
        "content": {"type": "string"}, "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}}}}}}


def _write_todos(todos: list[dict]) -> str:
    # Never runs in an agent: the middleware's wrap_tool_call answers the call and sets the state.
    return f"Updated todo list to {todos}"


class TodoListMiddleware(AgentMiddleware):
    """Offer ``write_todos`` and add ``system_prompt`` (default
    :data:`WRITE_TODOS_SYSTEM_PROMPT`) after the agent's system prompt; the tool's
    description is ``tool_description``. The list is in ``state["todos"]``."""

    state_schema = PlanningState

    def __init__(self, *, system_prompt: str = WRITE_TODOS_SYSTEM_PROMPT,
                 tool_description: str = WRITE_TODOS_TOOL_DESCRIPTION) -> None:
        self.system_prompt, self.tool_description = system_prompt, tool_description
        self.tools = [Tool.from_function(_write_todos, name="write_todos", description=tool_description,
                                         args_schema=WRITE_TODOS_SCHEMA)]

    def _prompted(self, request: ModelRequest) -> ModelRequest:
        base = request.system_message
        text = f"{base.text}\n\n{self.system_prompt}" if base is not None else self.system_prompt
        return request.override(system_message=SystemMessage(text))

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Any]) -> Any:
        return handler(self._prompted(request))

    async def awrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[Any]]) -> Any:
        return await handler(self._prompted(request))

    def _answer(self, request: ToolCallRequest) -> Optional[Command]:
        if request.tool_call["name"] != "write_todos":
            return None
        todos = request.tool_call["args"].get("todos", [])
        return Command(update={"todos": todos, "messages": [
            ToolMessage(f"Updated todo list to {todos}", tool_call_id=request.tool_call["id"], name="write_todos")]})

    def wrap_tool_call(self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Any]) -> Any:
        answer = self._answer(request)
        return answer if answer is not None else handler(request)

    async def awrap_tool_call(self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[Any]]) -> Any:
        answer = self._answer(request)
        return answer if answer is not None else await handler(request)

    def after_model(self, state: dict[str, Any], runtime: Any) -> Optional[dict[str, Any]]:
        last = next((m for m in reversed(state.get("messages") or []) if isinstance(m, AIMessage)), None)
        calls = [c for c in (last.tool_calls if last is not None else []) if c["name"] == "write_todos"]
        if len(calls) < 2:
            return None
        return {"messages": [ToolMessage(PARALLEL_ERROR, tool_call_id=c["id"], status="error") for c in calls]}
