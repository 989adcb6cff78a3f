"""Import faiss on first use, not when ``stores`` is imported.

Why: faiss starts OpenMP when it loads, and OpenMP reads its settings (``OMP_WAIT_POLICY``,
``OMP_NUM_THREADS``) only then. If ``import stores`` loaded faiss, an application that
imports the library before configuring its process could no longer choose those settings.
Deferring the import lets entry points call
:func:`rag.process_defaults.apply_process_defaults` (or set their own values) first, and
keeps ``import stores`` cheap for code that only uses the in-memory store.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Optional

__all__ = ["load_faiss"]

_faiss: Optional[ModuleType] = None


def load_faiss() -> ModuleType:
    """The ``faiss`` module, imported on the first call (later calls cost one global read)."""
    global _faiss
    if _faiss is None:
        # Concurrent first calls are safe: the import system serialises the import itself,
        # and every caller then stores the same module object.
        _faiss = importlib.import_module("faiss")
    return _faiss
