"""The agents ``AgentExecutor`` runs: a runnable that plans one action at a time
(:class:`RunnableAgent`) or several at once (:class:`RunnableMultiActionAgent`)."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from rag._fields import assign_fields
from rag.classic.agents.types import AgentAction, AgentFinish
from rag.errors import ValidationError

__all__ = ["BaseSingleActionAgent", "BaseMultiActionAgent", "RunnableAgent", "RunnableMultiActionAgent",
           "STOPPED_OUTPUT", "Steps"]

Steps = Sequence[tuple[AgentAction, Any]]
# What LangChain's runnable agents answer when the executor stops them early ("force").
STOPPED_OUTPUT = "Agent stopped due to iteration limit or time limit."


class _RunnableAgentBase:
    """``runnable`` (from ``{**inputs, "intermediate_steps": steps}`` to a decision) with
    the keys LangChain's runnable agents carry. ``stream_runnable`` (default True): plan
    by streaming the runnable (so a model's tokens reach the callbacks) and adding the
    chunks up."""

    runnable: Any
    input_keys_arg: list = []
    return_keys_arg: list = []
    stream_runnable: bool = True

    def __init__(self, **fields: Any) -> None:
        assign_fields(self, fields, _RunnableAgentBase)
        if not hasattr(self.runnable, "invoke"):
            raise ValidationError(f"an agent needs a runnable, got {type(self.runnable).__name__}: {self.runnable!r:.60}")

    @property
    def return_values(self) -> list[str]:
        return list(self.return_keys_arg)

    @property
    def input_keys(self) -> list[str]:
        return list(self.input_keys_arg)

    def get_allowed_tools(self) -> Optional[list[str]]:
        return None

    def tool_run_logging_kwargs(self) -> dict[str, Any]:
        return {}

    def plan(self, intermediate_steps: Steps, callbacks: Any = None, **kwargs: Any) -> Any:
        """The next decision for the inputs ``kwargs`` after ``intermediate_steps``."""
        inputs = {**kwargs, "intermediate_steps": list(intermediate_steps)}
        config = {"callbacks": callbacks}
        if not self.stream_runnable:
            return self.runnable.invoke(inputs, config)
        total: Any = None
        for chunk in self.runnable.stream(inputs, config):
            total = chunk if total is None else total + chunk
        return total

    async def aplan(self, intermediate_steps: Steps, callbacks: Any = None, **kwargs: Any) -> Any:
        inputs = {**kwargs, "intermediate_steps": list(intermediate_steps)}
        config = {"callbacks": callbacks}
        if not self.stream_runnable:
            return await self.runnable.ainvoke(inputs, config)
        total: Any = None
        async for chunk in self.runnable.astream(inputs, config):
            total = chunk if total is None else total + chunk
        return total

    def return_stopped_response(self, early_stopping_method: str, intermediate_steps: Steps,
                                **kwargs: Any) -> AgentFinish:
        """The answer when the executor stops the agent: "force" gives
        :data:`STOPPED_OUTPUT`; "generate" asks the agent once more (its answer if it
        finishes, else the forced one). LangChain's runnable agents refuse "generate" at
        this point, after the run's work is done."""
        if early_stopping_method == "generate":
            decision = self.plan(intermediate_steps, **kwargs)
            if isinstance(decision, AgentFinish):
                return decision
        return AgentFinish({"output": STOPPED_OUTPUT}, "")

    async def areturn_stopped_response(self, early_stopping_method: str, intermediate_steps: Steps,
                                       **kwargs: Any) -> AgentFinish:
        if early_stopping_method == "generate":
            decision = await self.aplan(intermediate_steps, **kwargs)
            if isinstance(decision, AgentFinish):
                return decision
        return AgentFinish({"output": STOPPED_OUTPUT}, "")


class BaseSingleActionAgent(_RunnableAgentBase):
    """An agent that decides one action (or the finish) per step."""


class BaseMultiActionAgent(_RunnableAgentBase):
    """An agent that may decide several actions per step (run in order, then planned again)."""


class RunnableAgent(BaseSingleActionAgent):
    """A runnable returning an :class:`AgentAction` or an :class:`AgentFinish`."""


class RunnableMultiActionAgent(BaseMultiActionAgent):
    """A runnable returning a list of :class:`AgentAction` or an :class:`AgentFinish`."""
