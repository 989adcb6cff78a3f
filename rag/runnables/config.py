"""RunnableConfig: the options passed down a chain, and how configs combine."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence, TypedDict, Union
from uuid import UUID

from rag.errors import ValidationError

__all__ = ["RunnableConfig", "merge_configs", "per_input_configs", "max_workers"]


class RunnableConfig(TypedDict, total=False):
    """Options passed down a chain; every key is optional.

    ``callbacks``: handlers (see :mod:`rag._callbacks`); ``tags``/``metadata``: labels given
    to every run below; ``max_concurrency``: at most this many parallel calls in ``batch`` and
    parallel branches (None: no limit); ``run_name``/``run_id``: name and id of this run only
    (children do not inherit them); ``configurable``: free-form values for components.
    """

    callbacks: Any
    tags: list[str]
    metadata: dict[str, Any]
    max_concurrency: Optional[int]
    run_name: str
    run_id: Optional[UUID]
    configurable: dict[str, Any]


def merge_configs(*configs: Optional[Mapping[str, Any]]) -> RunnableConfig:
    """Later configs win, except ``tags`` and ``callbacks`` (concatenated, in order, without
    repeats) and ``metadata``/``configurable`` (merged dicts, later keys win)."""
    merged: dict[str, Any] = {}
    for config in configs:
        for key, value in (config or {}).items():
            if value is None:
                continue
            if key == "tags":
                merged["tags"] = list(dict.fromkeys([*merged.get("tags", []), *value]))
            elif key == "callbacks":
                extra = list(value) if isinstance(value, (list, tuple)) else [value]
                merged["callbacks"] = [*merged.get("callbacks", []), *extra]
            elif key in ("metadata", "configurable"):
                merged[key] = {**merged.get(key, {}), **value}
            else:
                merged[key] = value
    return merged  # type: ignore[return-value]


def max_workers(config: Optional[Mapping[str, Any]], count: int) -> int:
    """How many of ``count`` calls may run at once under ``config["max_concurrency"]``."""
    limit = (config or {}).get("max_concurrency")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValidationError(f"max_concurrency must be a positive int or None, got {limit!r}")
    return max(1, min(count, limit or count))


def per_input_configs(
    config: Union[RunnableConfig, Sequence[RunnableConfig], None], count: int
) -> list[Optional[RunnableConfig]]:
    """One config per batch input: the same one repeated, or the list given (same length)."""
    if config is None or isinstance(config, dict):
        return [config] * count
    configs = list(config)
    if len(configs) != count:
        raise ValidationError(
            f"got {len(configs)} configs for {count} inputs; pass one config or one per input"
        )
    return configs
