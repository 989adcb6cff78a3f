"""The key under which a classic chain returns its run's id, and that value's shape."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

__all__ = ["RUN_KEY", "RunInfo"]

# Chain.invoke(..., include_run_info=True) adds this key to the outputs (LangChain's name).
RUN_KEY = "__run"


@dataclass(frozen=True)
class RunInfo:
    """The id of the run a chain call made (for feedback or tracing lookups)."""

    run_id: uuid.UUID
