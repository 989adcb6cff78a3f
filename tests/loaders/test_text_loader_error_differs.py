"""Undecodable bytes: our TextLoader raises ValidationError (a ValueError) naming the file;
LangChain's raises RuntimeError (README, "Where we differ")."""

import pytest

from loaders import TextLoader
from rag.errors import ValidationError

lc_loaders = pytest.importorskip("langchain_community.document_loaders")


def test_undecodable_bytes_raise_a_value_error_here_and_runtime_error_in_langchain(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("café".encode("latin-1"))
    with pytest.raises(RuntimeError):
        lc_loaders.TextLoader(str(path), encoding="utf-8").load()
    with pytest.raises(ValidationError, match="latin1.txt") as info:
        TextLoader(str(path), encoding="utf-8").load()
    assert isinstance(info.value, ValueError) and not isinstance(info.value, RuntimeError)
