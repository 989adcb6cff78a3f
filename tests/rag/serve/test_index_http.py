"""What rag serve's routes and its OpenAI-compatible API share (rag.serve.index_http):
streaming the index's answer, and telling failures apart from refusals."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

pytest.importorskip("starlette")

from rag.errors import RagError  # noqa: E402
from rag.index.answer import Answer  # noqa: E402
from rag.serve.index_http import stream_answer  # noqa: E402

from tests.rag.serve.index_server import build_index  # noqa: E402


class FailingIndex:
    """An index whose ask chain cannot be built: it raises ``error``."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def chain(self, **kwargs: Any) -> Any:
        raise self.error


def pieces(index: Any, question: str = "Why do cats purr?") -> list[tuple[str, Any]]:
    async def collect() -> list[tuple[str, Any]]:
        return [piece async for piece in stream_answer(index, question, k=2, llm=None, what="test ask")]

    return asyncio.run(collect())


def test_an_answer_streams_its_tokens_then_its_sources_then_the_whole_answer(tmp_path):
    # The sources come after the text: they are numbered in the order the answer cites them.
    streamed = pieces(build_index(tmp_path))
    kinds = [kind for kind, _ in streamed]
    assert kinds[-2:] == ["sources", "answer"] and set(kinds[:-2]) == {"token"}
    answer = streamed[-1][1]
    assert isinstance(answer, Answer) and "".join(value for kind, value in streamed if kind == "token") == answer.answer
    assert streamed[-2][1].context == answer.context and "purr" in answer.answer


def test_a_failure_ends_the_stream_with_an_error_piece_and_logs_its_traceback(caplog):
    error = ValueError("boom")
    with caplog.at_level(logging.ERROR, logger="rag.serve"):
        assert pieces(FailingIndex(error)) == [("error", error)]
    assert "test ask failed" in caplog.text and "ValueError: boom" in caplog.text


def test_a_refusal_ends_the_stream_with_an_error_piece_and_no_traceback(caplog):
    error = RagError("no model configured")
    with caplog.at_level(logging.ERROR, logger="rag.serve"):
        assert pieces(FailingIndex(error)) == [("error", error)]
    assert caplog.text == ""
