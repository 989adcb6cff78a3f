"""The examples in rag.memory's docstrings run and print what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["rag.memory", "rag.memory.base", "rag.memory.file", "rag.memory.sql", "rag.memory.runnable",
           "rag.memory.trim", "rag.index.chat", "rag.chains.history_aware"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name):
    results = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert results.failed == 0
    assert results.attempted > 0
