"""The examples in the splitters' docstrings run and print what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "splitters.base",
    "splitters.character",
    "splitters.languages",
    "splitters.markdown",
    "splitters.html",
    "splitters.html_semantic",
    "splitters.html_section",
    "splitters.markdown_syntax",
    "splitters.tokens",
    "splitters.encodings",
    "splitters._length",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name):
    results = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert results.failed == 0
    assert results.attempted > 0
