"""The same agent-with-middleware script built on langchain 1.4's create_agent and on
ours: one namespace per side, scripted fake models, and middleware written once against
either side's names (for the differential tests in test_agents_middleware_*.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, TypedDict

import langchain.agents as lc_agents
import langchain.agents.middleware as lc_mw
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel as LcFake
from langchain_core.messages import AIMessage as LcAIMessage
from langchain_core.messages import ToolMessage as LcToolMessage
from langchain_core.tools import tool as lc_tool
from langgraph.checkpoint.memory import InMemorySaver as LgSaver

import rag.agents as our_agents
import rag.agents.middleware as our_mw
from rag.graph.checkpoint.memory import InMemorySaver
from rag.messages import AIMessage, ToolMessage
from rag.models import GenericFakeChatModel
from rag.tools import tool


class LcScripted(LcFake):
    """LangChain's fake with bind_tools (its own raises NotImplementedError)."""

    def bind_tools(self, tools, **kwargs):
        return self


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@lc_tool("add")
def lc_add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


OURS = SimpleNamespace(name="rag", create_agent=our_agents.create_agent, mw=our_mw, AIMessage=AIMessage,
                       ToolMessage=ToolMessage, Fake=GenericFakeChatModel, add=add, Saver=InMemorySaver)
LANGCHAIN = SimpleNamespace(name="langchain", create_agent=lc_agents.create_agent, mw=lc_mw, AIMessage=LcAIMessage,
                            ToolMessage=LcToolMessage, Fake=LcScripted, add=lc_add, Saver=LgSaver)
SIDES = [OURS, LANGCHAIN]


def scripted(lib, replies):
    """A fake model answering ``replies``: (text, [(tool, args, id)]) pairs, in order."""
    return lib.Fake(messages=iter([lib.AIMessage(text, tool_calls=[{"name": n, "args": a, "id": i} for n, a, i in calls])
                                   for text, calls in replies]))


def normal(messages):
    """What must match: type, text, tool calls, and for tool messages id, name and status."""
    out = []
    for m in messages:
        row = {"type": m.type, "text": m.text,
               "tool_calls": [(c["name"], c["args"], c["id"]) for c in getattr(m, "tool_calls", [])]}
        if m.type == "tool":
            row.update(tool_call_id=m.tool_call_id, name=m.name, status=m.status)
        out.append(row)
    return out


def recorder(lib, name, log, hooks=("before_agent", "before_model", "after_model", "after_agent",
                                    "wrap_model_call", "wrap_tool_call")):
    """A middleware class named ``name`` on ``lib``'s side that logs each hook it runs."""
    body: dict[str, Any] = {}
    for hook in hooks:
        if hook.startswith("wrap"):
            def wrap(self, request, handler, hook=hook):
                log.append(f"{name}.{hook}")
                return handler(request)

            async def awrap(self, request, handler, hook=hook):
                log.append(f"{name}.a{hook}")
                return await handler(request)
            body[hook], body[f"a{hook}"] = wrap, awrap
        else:
            def node(self, state, runtime, hook=hook):
                log.append(f"{name}.{hook}")
            body[hook] = node
    return type(name, (lib.mw.AgentMiddleware,), body)()


class CountState(TypedDict):
    model_calls_seen: int


def counting(lib):
    """A middleware with its own state key, counting the model calls in before_model."""
    class Counter(lib.mw.AgentMiddleware):
        state_schema = type("CounterState", (lib.mw.AgentState,), {"__annotations__": {"model_calls_seen": int}})

        def before_model(self, state, runtime):
            return {"model_calls_seen": state.get("model_calls_seen", 0) + 1}
    return Counter()


def stop_after(lib, calls, hook="before_model"):
    """Jumps to the end once ``calls`` model replies are in the state."""
    def check(self, state, runtime):
        if sum(1 for m in state["messages"] if m.type == "ai") >= calls:
            return {"messages": [lib.AIMessage("Stopped.")], "jump_to": "end"}
        return None
    return type("Stopper", (lib.mw.AgentMiddleware,), {hook: lib.mw.hook_config(can_jump_to=["end"])(check)})()


__all__ = ["SIDES", "OURS", "LANGCHAIN", "scripted", "normal", "recorder", "counting", "stop_after", "CountState"]
