"""The examples in the docstrings of the preset, JSX, JSON and sentence-transformer splitters hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["splitters.presets", "splitters.jsx", "splitters.json_splitter"]
NEEDS_TOKENIZERS = ["splitters.sentence_transformers", "splitters._wordpiece"]


@pytest.mark.parametrize("name", MODULES + NEEDS_TOKENIZERS)
def test_docstring_examples_hold(name):
    if name in NEEDS_TOKENIZERS:
        pytest.importorskip("tokenizers")
    results = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert results.failed == 0
    assert results.attempted > 0
