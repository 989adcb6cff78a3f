"""What the index's two HTTP faces share: rag serve's own routes (:mod:`rag.serve.index_app`)
and the OpenAI-compatible API (:mod:`rag.serve.openai_api`).

Reading a JSON body and checking its fields (:class:`BadRequest` names the field a client
must fix; each face writes it in its own error shape), the numbered sources of an answer as
JSON, and streaming the index's ask chain (:func:`stream_answer`).
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from typing import Any, AsyncIterator, Literal, Optional, Union

from rag._optional import require
from rag.documents import Document
from rag.errors import RagError
from rag.index.answer import Answer, Source
from rag.index.core import Index
from rag.runnables import Runnable, RunnableConfig
from rag.serve.limits import RequestLimits
from rag.serve.validation import loads_json

require("starlette", feature="rag serve", extra="serve")

from starlette.requests import Request  # noqa: E402

__all__ = ["BadRequest", "read_json_object", "field", "text_field", "check_text", "source_json", "sources_json",
           "stream_answer", "AnswerPiece"]

logger = logging.getLogger("rag.serve")


class BadRequest(Exception):
    """A request the client must fix: ``status`` 400 (not JSON), 404 (no such model) or
    422 (a field), naming ``field``."""

    def __init__(self, status: int, message: str, field: Optional[str] = None) -> None:
        super().__init__(message)
        self.status, self.field = status, field

    def to_json(self) -> dict[str, Any]:
        """rag serve's error shape: ``{"type": "invalid_request_error", "message", "field"}``."""
        return {"type": "invalid_request_error", "message": str(self), "field": self.field}


async def read_json_object(request: Request) -> dict[str, Any]:
    """The body as a JSON object, or :class:`BadRequest` (400 malformed, 422 not an object)."""
    raw = await request.body()
    try:
        body = loads_json(raw)
    except ValueError as exc:  # UnicodeDecodeError too
        raise BadRequest(400, f"the body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise BadRequest(422, f"the body must be a JSON object, got {type(body).__name__}")
    return body


def field(body: dict[str, Any], name: str, kind: type, default: Any = None, *, required: bool = False) -> Any:
    """``body[name]`` checked to be a ``kind`` (422 naming the field otherwise); ``default``
    when it is absent or null (422 if ``required``)."""
    if name not in body or body[name] is None:
        if required:
            raise BadRequest(422, f"'{name}' is required", name)
        return default
    value = body[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BadRequest(422, f"'{name}' must be {kind.__name__}, got {type(value).__name__}", name)
    return value


def text_field(body: dict[str, Any], name: str, limits: Optional[RequestLimits] = None) -> str:
    """``body[name]``, a required string with more than white space in it, and no longer
    than ``limits.max_query_chars`` (422 naming the field and the limit)."""
    value = field(body, name, str, required=True)
    check_text(value, name, limits)
    return value


def check_text(value: str, name: str, limits: Optional[RequestLimits]) -> None:
    """422 naming ``name`` unless ``value`` has more than white space and fits ``limits``."""
    refusal = limits.text_refusal(len(value)) if limits is not None else None
    if refusal is not None:
        raise BadRequest(422, f"'{name}': {refusal}", name)
    if not value.strip():
        raise BadRequest(422, f"'{name}' must be a non-empty text", name)


def source_json(source: Source, document: Document) -> dict[str, Any]:
    """A numbered passage for clients: the :class:`~rag.index.answer.Source` fields (``n``,
    ``title``, ``source``, ``id``, ``excerpt``, ``section``, ``anchor``, ``start``/``end``
    character offsets in the document or null, ``cited``, ``chunk_ids``), its full ``text``
    and ``start_index`` (= ``start``, the splitter's name for it)."""
    return {**asdict(source), "text": document.page_content, "start_index": source.start}


def sources_json(answer: Answer) -> list[dict[str, Any]]:
    """Each source of ``answer`` as :func:`source_json`, numbered as in the answer, in number order."""
    # answer.sources is in number order, answer.context in retrieval order: pair them by number.
    documents = {document.metadata.get("n", rank): document for rank, document in enumerate(answer.context, start=1)}
    return [source_json(source, documents[source.n]) for source in answer.sources]


#: A piece of :func:`stream_answer`: ``("token", str)`` per piece of the answer, ``("sources",
#: Answer)`` when the passages arrive (after the answer's text: they are numbered in the order
#: the answer cites them), then
#: ``("answer", Answer)`` at the end, or ``("error", Exception)`` instead. Match on the
#: pair (``case ("token", text):``) and a type checker knows the value's type.
AnswerPiece = Union[tuple[Literal["sources"], Answer], tuple[Literal["token"], str], tuple[Literal["answer"], Answer],
                    tuple[Literal["error"], Exception]]


async def stream_answer(index: Index, question: str, *, k: int, llm: Optional[Runnable],
                        config: Optional[RunnableConfig] = None, what: str = "answer") -> AsyncIterator[AnswerPiece]:
    """``index``'s ask chain (``k`` passages, ``llm`` or offline) streamed for
    ``question``, as :data:`AnswerPiece` values. A failure ends the stream with an
    ``error`` piece, for the client to be told in its own shape; one that is not a
    :class:`~rag.errors.RagError` (a bug, not a refusal) is logged with its traceback as
    ``what failed``. ``config``: the chain's run config (callbacks, run name)."""
    result: dict[str, Any] = {"input": question, "context": [], "answer": ""}
    try:
        async for piece in index.chain(k=k, llm=llm).astream({"input": question}, config):
            if "context" in piece:
                result["context"] = piece["context"]
                yield "sources", Answer.from_result(result)
            if piece.get("answer"):
                result["answer"] += piece["answer"]
                yield "token", piece["answer"]
    except Exception as exc:
        if not isinstance(exc, RagError):
            logger.exception("%s failed", what)
        yield "error", exc
        return
    yield "answer", Answer.from_result(result)
