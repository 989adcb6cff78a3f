"""The token splitters' default encoding is cl100k_base, which loads offline; LangChain's
default, gpt2, has no offline source (README, "Where we differ")."""

import inspect

import pytest

from splitters import TokenTextSplitter

lc_splitters = pytest.importorskip("langchain_text_splitters")


def test_the_default_encoding_is_cl100k_base_where_langchains_is_gpt2():
    ours = inspect.signature(TokenTextSplitter.__init__).parameters["encoding_name"].default
    theirs = inspect.signature(lc_splitters.TokenTextSplitter.__init__).parameters["encoding_name"].default
    assert (ours, theirs) == ("cl100k_base", "gpt2")
    assert TokenTextSplitter(chunk_size=5, chunk_overlap=0).split_text("offline tokens work") != []
