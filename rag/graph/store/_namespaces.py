"""Matching namespaces against prefixes and suffixes (``"*"`` is any one label), shared by
the stores that list namespaces in Python.

>>> match_namespace(("users", "a", "prefs"), (MatchCondition("prefix", ("users", "*")),))
True
"""

from __future__ import annotations

from typing import Iterable, Optional

from rag.graph.store.base import ListNamespacesOp, MatchCondition

__all__ = ["match_namespace", "list_namespaces"]


def _aligned(namespace: tuple[str, ...], path: tuple[str, ...]) -> bool:
    return all(want == "*" or have == want for have, want in zip(namespace, path))


def match_namespace(namespace: tuple[str, ...], conditions: Optional[tuple[MatchCondition, ...]]) -> bool:
    """Whether ``namespace`` meets every condition."""
    for condition in conditions or ():
        path = tuple(condition.path)
        if len(namespace) < len(path):
            return False
        if condition.match_type == "prefix":
            if not _aligned(namespace, path):
                return False
        elif condition.match_type == "suffix":
            if not _aligned(namespace[len(namespace) - len(path):], path):
                return False
        else:
            raise ValueError(f"Unsupported match type {condition.match_type!r}; use 'prefix' or 'suffix'")
    return True


def list_namespaces(namespaces: Iterable[tuple[str, ...]], op: ListNamespacesOp) -> list[tuple[str, ...]]:
    """The answer to ``op`` over ``namespaces``: matching ones, cut to ``max_depth``,
    deduplicated, sorted, paginated."""
    found = {ns[:op.max_depth] if op.max_depth is not None else ns
             for ns in namespaces if match_namespace(ns, op.match_conditions)}
    return sorted(found)[op.offset:op.offset + op.limit]
