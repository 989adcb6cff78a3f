"""The agents' errors, under the toolkit's one tree (:mod:`rag.errors`).

::

    ModelCallLimitExceededError(RagError, RuntimeError)  an agent would call its model past the cap
    ToolInvocationError(RagError, ValueError)            (rag.agents.tool_node) arguments that do not fit a tool
"""

from __future__ import annotations

from rag.errors import RagError

__all__ = ["ModelCallLimitExceededError"]


class ModelCallLimitExceededError(RagError, RuntimeError):
    """The agent made ``calls`` model calls for the current request and may make at most
    ``limit`` (``create_agent(max_model_calls=...)`` with ``on_model_call_limit="error"``).
    The conversation up to that point is in the thread's checkpoint, if any."""

    def __init__(self, limit: int, calls: int) -> None:
        self.limit, self.calls = limit, calls
        super().__init__(
            f"the agent reached its model-call limit ({calls}/{limit}) for this request without a final answer; "
            "raise create_agent(max_model_calls=...) or use on_model_call_limit='final_answer' to get one last "
            "answer without tools"
        )
