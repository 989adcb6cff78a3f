"""WebBaseLoader.aload() is a coroutine here; LangChain's is a plain method that blocks
(the README's "Where we differ" says so)."""

import inspect

import pytest

from loaders import WebBaseLoader

lc_web = pytest.importorskip("langchain_community.document_loaders.web_base")


def test_aload_is_awaited_here_and_called_plainly_in_langchain():
    assert inspect.iscoroutinefunction(WebBaseLoader.aload)
    assert not inspect.iscoroutinefunction(lc_web.WebBaseLoader.aload)
