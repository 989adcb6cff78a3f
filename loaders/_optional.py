"""Importing optional dependencies with a message that gives the fixing command."""

from __future__ import annotations

import importlib
from types import ModuleType

from rag.errors import MissingDependencyError

__all__ = ["require"]


def require(module: str, *, install: str, feature: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` naming ``install``.

    >>> require("json", install="pip install json", feature="JSON").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{feature} needs the {module!r} package, which is not installed. "
            f"Install it with: {install}"
        ) from exc
