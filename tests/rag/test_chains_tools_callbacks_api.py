"""Public names and docstring examples of rag.tools, rag.chains and rag.callbacks."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name, expected", [
    ("rag.tools", {"Tool", "tool", "create_retriever_tool"}),
    ("rag.chains", {"create_stuff_documents_chain", "create_retrieval_chain", "ExtractiveAnswerer"}),
    ("rag.callbacks", {"BaseCallbackHandler", "ConsoleCallbackHandler", "FileTracer", "print_trace", "format_trace"}),
])
def test_the_issue_names_are_exported(name, expected):
    module = importlib.import_module(name)
    assert expected <= set(module.__all__)
    assert [item for item in module.__all__ if not hasattr(module, item)] == []


DOCTEST_MODULES = [
    "rag.tools", "rag.tools.base", "rag.tools.decorator", "rag.tools.retriever", "rag.tools._schema",
    "rag.chains", "rag.chains.formatting", "rag.chains.stuff", "rag.chains.retrieval", "rag.chains.history_aware", "rag.chains.extractive",
    "rag.callbacks", "rag.callbacks.base", "rag.callbacks.console", "rag.callbacks.file", "rag.callbacks.view",
    "rag.callbacks.manager", "rag.retrievers",
]


@pytest.mark.parametrize("name", DOCTEST_MODULES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
