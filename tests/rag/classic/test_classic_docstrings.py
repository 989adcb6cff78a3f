"""The examples in rag.classic's docstrings (and RunnableBranch's) run as written."""

import doctest
import importlib

import pytest

MODULES = [
    "rag.classic.base_memory", "rag.classic.chains", "rag.classic.chains.base", "rag.classic.chains.llm",
    "rag.classic.chains.conversation", "rag.classic.chains.retrieval_qa", "rag.classic.memory",
    "rag.classic.memory.buffer", "rag.classic.memory.summary", "rag.classic.agents", "rag.classic.agents.executor",
    "rag.classic.agents.parsers", "rag.classic.agents.scratchpad", "rag.classic.agents.types", "rag.runnables.branch",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
