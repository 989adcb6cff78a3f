"""The OpenAI-compatible API over an index: ``GET /v1/models`` (and ``/v1/models/{id}``), ``POST /v1/chat/completions``.

Any OpenAI client or chat UI can ask the index: the last user message is the question, the
answer comes from the index's ask chain (offline extractive unless the server has a model),
and the numbered sources are appended to ``content`` (a ``Sources:`` block) and given in a
``sources`` extension field. ``stream: true`` sends OpenAI's ``chat.completion.chunk``
events (``data: {...}`` lines, then ``data: [DONE]``), the sources block and field in the
last chunks. Errors use OpenAI's ``{"error": {"message", "type", "param", "code"}}``.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from typing import Any, AsyncGenerator, Optional, Union

from rag._optional import DISTRIBUTION
from rag.errors import RagError
from rag.index.answer import Answer
from rag.index.core import Index
from rag.message_roles import OPENAI_ROLES, openai_role_named
from rag.messages import HumanMessage
from rag.runnables import Runnable
from rag.serve.index_http import BadRequest, field, read_json_object, sources_json, stream_answer
from rag.serve.limits import DEFAULT_LIMITS, RequestLimits
from rag.serve.sse import ClientDisconnected, EventStreamResponse, run_until_disconnect

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

__all__ = ["OpenAIRoutes", "sources_block"]

logger = logging.getLogger("rag.serve")

# Token counts are not tracked (the offline answerer has no tokens): zeros, in OpenAI's shape.
_NO_USAGE = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


def _openai_error(status: int, message: str, param: Optional[str] = None, kind: str = "invalid_request_error") -> Response:
    return JSONResponse({"error": {"message": message, "type": kind, "param": param, "code": None}}, status_code=status)


def _content_text(content: Any, where: str) -> str:
    """A message's text: a string, or OpenAI's list of parts (the ``text`` ones joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for i, part in enumerate(content):
            if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
                raise BadRequest(422, f"'{where}.content[{i}]' must be a text part {{'type': 'text', 'text': ...}}",
                                 f"{where}.content")
            parts.append(part["text"])
        return "".join(parts)
    raise BadRequest(422, f"'{where}.content' must be a string or a list of text parts", f"{where}.content")


def question_of(body: dict[str, Any]) -> str:
    """The last user message's text: the question asked of the index. Every message's role
    must be one of OpenAI's (:data:`rag.message_roles.OPENAI_ROLES`)."""
    messages = field(body, "messages", list, required=True)
    question = None
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, dict):
            raise BadRequest(422, f"'{where}' must be an object with 'role' and 'content'", where)
        role = openai_role_named(message.get("role"))
        if role is None:
            raise BadRequest(422, f"'{where}.role' must be one of {list(OPENAI_ROLES)}, got {message.get('role')!r}",
                             f"{where}.role")
        if role.message_class is HumanMessage:
            question = _content_text(message.get("content"), where)
    if question is None or not question.strip():
        raise BadRequest(422, "'messages' must hold a user message with the question", "messages")
    return question


def sources_block(answer: Answer) -> str:
    """The numbered sources appended to the answer's text: ``\\n\\nSources:\\n[1] title — source``."""
    if not answer.context:
        return ""
    lines = [f"[{s.n}] {s.title + ' — ' if s.title else ''}{s.location}" for s in answer.sources]
    return "\n\nSources:\n" + "\n".join(lines)


class OpenAIRoutes:
    """The two endpoints, answering with ``index``'s chain (``llm`` or offline, ``k`` passages)."""

    def __init__(self, index: Index, llm: Optional[Runnable], model: str, k: int,
                 limits: RequestLimits = DEFAULT_LIMITS) -> None:
        self.index, self.llm, self.model, self.k, self.limits = index, llm, model, k, limits
        self.created = int(time.time())

    def _model_json(self) -> dict[str, Any]:
        return {"id": self.model, "object": "model", "created": self.created, "owned_by": DISTRIBUTION}

    async def models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [self._model_json()]})

    async def retrieve_model(self, request: Request) -> Response:
        """``GET /v1/models/{id}``: the served model, or 404 in OpenAI's shape."""
        model_id = request.path_params["model_id"]
        if model_id != self.model:
            return _openai_error(404, f"the model {model_id!r} does not exist here; GET /v1/models lists "
                                      f"{self.model!r}", "model", "model_not_found")
        return JSONResponse(self._model_json())

    def _parse(self, body: dict[str, Any]) -> tuple[str, bool, bool]:
        model = field(body, "model", str, self.model)
        if model != self.model:
            raise BadRequest(404, f"the model {model!r} does not exist here; GET /v1/models lists {self.model!r}",
                             "model")
        stream = field(body, "stream", bool, False)
        options = field(body, "stream_options", dict, {})
        include_usage = field(options, "include_usage", bool, False)
        question = question_of(body)
        refusal = self.limits.text_refusal(len(question))
        if refusal is not None:
            raise BadRequest(422, f"'messages': the last user message (the question): {refusal}", "messages")
        return question, stream, include_usage

    async def chat_completions(self, request: Request) -> Union[Response, EventStreamResponse]:
        try:
            body = await read_json_object(request)
            question, stream, include_usage = self._parse(body)
        except BadRequest as exc:
            kind = "model_not_found" if exc.status == 404 else "invalid_request_error"
            return _openai_error(exc.status, str(exc), exc.field, kind)
        completion_id = f"chatcmpl-{uuid.uuid4().hex}"
        if stream:
            return EventStreamResponse(self._chunks(completion_id, question, include_usage))
        try:
            # Cancelled if the client goes away: a model call nobody waits for is not left running.
            result = await run_until_disconnect(
                request.receive, self.index.chain(k=self.k, llm=self.llm).ainvoke({"input": question}))
        except ClientDisconnected:
            return Response(status_code=499)  # nginx's "client closed request"; nobody reads it
        except RagError as exc:
            return _openai_error(502 if self.llm is not None else 500, str(exc), kind="server_error")
        except Exception as exc:
            logger.exception("chat completion failed")
            return _openai_error(500, f"{type(exc).__name__}: {exc}", kind="server_error")
        answer = Answer.from_result(result)
        return JSONResponse({
            "id": completion_id, "object": "chat.completion", "created": int(time.time()), "model": self.model,
            "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": answer.answer + sources_block(answer)}}],
            "usage": _NO_USAGE,
            "sources": sources_json(answer),
        })

    def _chunk(self, completion_id: str, delta: dict[str, Any], finish: Optional[str] = None,
               **extra: Any) -> bytes:
        data = {"id": completion_id, "object": "chat.completion.chunk", "created": int(time.time()),
                "model": self.model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish,
                                                  "logprobs": None}], **extra}
        # OpenAI's stream has data lines only (no event names); its clients ignore named events.
        return b"data: " + json.dumps(data, ensure_ascii=False).encode() + b"\n\n"

    async def _chunks(self, completion_id: str, question: str, include_usage: bool = False
                      ) -> AsyncGenerator[bytes, None]:
        yield self._chunk(completion_id, {"role": "assistant", "content": ""})
        async for piece in stream_answer(self.index, question, k=self.k, llm=self.llm,
                                         what="streamed chat completion"):
            match piece:
                case ("token", text):
                    yield self._chunk(completion_id, {"content": text})
                case ("answer", answer):
                    for chunk in self._closing_chunks(completion_id, answer, include_usage):
                        yield chunk
                case ("error", exc):
                    error = {"error": {"message": f"{type(exc).__name__}: {exc}", "type": "server_error",
                                       "param": None, "code": None}}
                    yield b"data: " + json.dumps(error).encode() + b"\n\n"

    def _closing_chunks(self, completion_id: str, answer: Answer, include_usage: bool) -> list[bytes]:
        """The sources block and field, the usage if asked for, and ``[DONE]``."""
        chunks = []
        block = sources_block(answer)
        if block:
            chunks.append(self._chunk(completion_id, {"content": block}))
        chunks.append(self._chunk(completion_id, {}, "stop", sources=sources_json(answer)))
        if include_usage:
            # OpenAI's stream_options.include_usage: one more chunk, no choices, the usage.
            usage = {"id": completion_id, "object": "chat.completion.chunk", "created": int(time.time()),
                     "model": self.model, "choices": [], "usage": _NO_USAGE}
            chunks.append(b"data: " + json.dumps(usage).encode() + b"\n\n")
        chunks.append(b"data: [DONE]\n\n")
        return chunks
