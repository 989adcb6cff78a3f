"""A warm index behind HTTP: the app ``rag serve`` runs, as a library function.

:func:`index_app` builds a Starlette app over an open :class:`~rag.index.Index`:

- ``POST /search`` ``{"query", "k"?, "search_type"?}`` -> ranked chunks with scores;
- ``/retriever/*`` and ``/ask/*``: the index's retriever and ask chain through
  :func:`rag.serve.add_routes` (LangServe's endpoints: invoke, batch, stream, ...);
- ``POST /playground/ask``: one question as Server-Sent Events for the page (``sources``,
  ``token``..., ``trace``, ``end``; or ``error``);
- ``GET /v1/models`` (and ``/v1/models/{id}``), ``POST /v1/chat/completions``: the OpenAI-compatible API
  (:mod:`rag.serve.openai_api`);
- ``GET /``: the playground page (static files shipped with the package, no CDN).

Add your own chains to the returned app with ``add_routes(app, chain, "/mine")``; they are
behind the same API key and body cap. Unknown paths get a JSON 404.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict
from pathlib import Path
from typing import Any, AsyncIterator, Optional, Sequence

from rag._optional import require
from rag.callbacks.tracer import BaseTracer, TraceRun
from rag.errors import RagError
from rag.index.answer import Answer, Source
from rag.serve.routes import add_routes
from rag.serve.security import DEFAULT_MAX_BODY_BYTES, Guard
from rag.serve.sse import EventStreamResponse, format_event
from rag.serve.validation import loads_json

require("starlette", feature="rag serve", extra="serve")

from starlette.applications import Starlette  # noqa: E402
from starlette.exceptions import HTTPException  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import FileResponse, JSONResponse, Response  # noqa: E402
from starlette.routing import Route  # noqa: E402

__all__ = ["index_app", "source_json", "PLAYGROUND"]

logger = logging.getLogger("rag.serve")

#: The playground's files (HTML, JS, CSS), served as they are: no build step.
PLAYGROUND = Path(__file__).with_name("playground")
_STATIC = {"/": ("index.html", "text/html"), "/playground.js": ("playground.js", "text/javascript"),
           "/playground.css": ("playground.css", "text/css")}
_SEARCH_TYPES = ("hybrid", "similarity", "mmr", "bm25")


class BadRequest(Exception):
    """A request the client must fix: ``status`` 400 (not JSON) or 422 (a field), naming ``field``."""

    def __init__(self, status: int, message: str, field: Optional[str] = None) -> None:
        super().__init__(message)
        self.status, self.field = status, field

    def to_json(self) -> dict[str, Any]:
        return {"type": "invalid_request_error", "message": str(self), "field": self.field}


async def read_json_object(request: Request) -> dict[str, Any]:
    """The body as a JSON object, or :class:`BadRequest` (400 malformed, 422 not an object)."""
    raw = await request.body()
    try:
        body = loads_json(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(400, f"the body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise BadRequest(422, f"the body must be a JSON object, got {type(body).__name__}")
    return body


def field(body: dict[str, Any], name: str, kind: type, default: Any = None, *, required: bool = False) -> Any:
    """``body[name]`` checked to be a ``kind`` (422 naming the field otherwise)."""
    if name not in body or body[name] is None:
        if required:
            raise BadRequest(422, f"'{name}' is required", name)
        return default
    value = body[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BadRequest(422, f"'{name}' must be {kind.__name__}, got {type(value).__name__}", name)
    return value


def text_field(body: dict[str, Any], name: str) -> str:
    value = field(body, name, str, required=True)
    if not value.strip():
        raise BadRequest(422, f"'{name}' must be a non-empty text", name)
    return value


def k_field(body: dict[str, Any], default: int) -> int:
    k = field(body, "k", int, default)
    if not 1 <= k <= 100:
        raise BadRequest(422, f"'k' must be between 1 and 100, got {k}", "k")
    return k


def source_json(source: Source, document: Any) -> dict[str, Any]:
    """A numbered passage for clients: the :class:`~rag.index.answer.Source` fields (``n``,
    ``title``, ``source``, ``id``, ``excerpt``, ``section``, ``anchor``, ``start``/``end``
    character offsets in the document or null, ``cited``, ``chunk_ids``), its full ``text``
    and ``start_index`` (= ``start``, the splitter's name for it)."""
    return {**asdict(source), "text": document.page_content, "start_index": source.start}


def sources_json(answer: Answer) -> list[dict[str, Any]]:
    return [source_json(source, document) for source, document in zip(answer.sources, answer.context)]


class _LastTrace(BaseTracer):
    """Keeps the tree of the run it traced, for the page's trace view."""

    def __init__(self) -> None:
        super().__init__()
        self.root: Optional[TraceRun] = None

    def _on_trace_end(self, run: TraceRun) -> None:
        self.root = run


def _trace_tree(run: TraceRun) -> dict[str, Any]:
    # Names, kinds and timings only: inputs/outputs are already on the page.
    return {"name": run.name, "run_type": run.run_type, "duration_ms": run.duration_ms, "error": run.error,
            "children": [_trace_tree(child) for child in run.children]}


def _error(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse({"type": kind, "message": message}, status_code=status)


class _IndexRoutes:
    def __init__(self, index: Any, llm: Any, k: int) -> None:
        self.index, self.llm, self.k = index, llm, k

    async def search(self, request: Request) -> Response:
        import asyncio

        try:
            body = await read_json_object(request)
            query = text_field(body, "query")
            k = k_field(body, self.k)
            search_type = field(body, "search_type", str, "hybrid")
            if search_type not in _SEARCH_TYPES:
                raise BadRequest(422, f"'search_type' must be one of {list(_SEARCH_TYPES)}, got {search_type!r}",
                                 "search_type")
        except BadRequest as exc:
            return JSONResponse(exc.to_json(), status_code=exc.status)
        found = await asyncio.to_thread(self.index.search, query, k=k, search_type=search_type)
        return JSONResponse({"query": query, "search_type": search_type, "results": [
            {"rank": rank, "score": float(score), "source": doc.metadata.get("source"), "id": doc.id,
             "title": doc.metadata.get("title") or "", "page_content": doc.page_content,
             "start_index": doc.metadata.get("start_index")}
            for rank, (doc, score) in enumerate(found, start=1)]})

    async def playground_ask(self, request: Request) -> Response:
        try:
            body = await read_json_object(request)
            question = text_field(body, "question")
            k = k_field(body, self.k)
        except BadRequest as exc:
            return JSONResponse(exc.to_json(), status_code=exc.status)
        return EventStreamResponse(self._ask_events(question, k))

    async def _ask_events(self, question: str, k: int) -> AsyncIterator[bytes]:
        tracer = _LastTrace()
        result: dict[str, Any] = {"input": question, "context": [], "answer": ""}
        try:
            chain = self.index.chain(k=k, llm=self.llm)
            async for chunk in chain.astream({"input": question}, {"callbacks": [tracer], "run_name": "ask"}):
                if "context" in chunk:
                    result["context"] = chunk["context"]
                    yield format_event("sources", json.dumps(sources_json(Answer.from_result(result))))
                if chunk.get("answer"):
                    yield format_event("token", json.dumps(chunk["answer"]))
        except Exception as exc:  # shown in the page; the server log keeps the traceback
            if not isinstance(exc, RagError):
                logger.exception("playground ask failed")
            yield format_event("error", json.dumps({"type": type(exc).__name__, "message": str(exc)}))
            return
        if tracer.root is not None:
            yield format_event("trace", json.dumps(_trace_tree(tracer.root)))
        yield format_event("end")


async def _static(request: Request) -> Response:
    name, media_type = _STATIC[request.url.path]
    # no-store: a page from an older rag serve must not outlive an upgrade in the browser's cache.
    return FileResponse(PLAYGROUND / name, media_type=media_type, headers={"cache-control": "no-store"})


async def _not_found(request: Request, exc: HTTPException) -> Response:
    if exc.status_code == 404:
        return _error(404, "not_found", f"no route {request.url.path}; see GET / for the playground, "
                                        "POST /search, /ask/invoke, /v1/chat/completions")
    if exc.status_code == 405:
        return _error(405, "method_not_allowed", f"{request.method} is not allowed on {request.url.path}")
    return _error(exc.status_code, "http_error", str(exc.detail))


def index_app(index: Any, *, llm: Any = None, model_name: Optional[str] = None, k: int = 4,
              api_key: Optional[str] = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
              cors_origins: Sequence[str] = ()) -> Starlette:
    """The app serving ``index`` (an open :class:`~rag.index.Index` or shared index).

    ``llm``: a chat model Runnable for answers (default None: extracted offline);
    ``model_name``: the model id ``/v1/models`` lists (default ``rag-extractive`` offline,
    else the llm's ``model``); ``k``: passages per answer and default results per search
    (default 4); ``api_key``: required as ``Authorization: Bearer KEY`` on every route but
    the playground's own static files (default None: no key, for 127.0.0.1);
    ``max_body_bytes``: larger request bodies get 413 (default 1 MiB); ``cors_origins``:
    origins allowed to call from other sites' pages (default none: CORS off).
    """
    from rag.serve.openai_api import OpenAIRoutes

    served = _IndexRoutes(index, llm, k)
    name = model_name or (getattr(llm, "model", None) if llm is not None else None) or "rag-extractive"
    openai = OpenAIRoutes(index, llm, name, k)
    routes = [Route(path, _static, methods=["GET"]) for path in _STATIC]
    routes += [Route("/search", served.search, methods=["POST"]),
               Route("/playground/ask", served.playground_ask, methods=["POST"]),
               Route("/v1/models", openai.models, methods=["GET"]),
               Route("/v1/models/{model_id:path}", openai.retrieve_model, methods=["GET"]),
               Route("/v1/chat/completions", openai.chat_completions, methods=["POST"])]
    middleware = [Middleware(Guard, api_key=api_key, max_body_bytes=max_body_bytes,
                             public=lambda path: path in _STATIC)]
    if cors_origins:
        from starlette.middleware.cors import CORSMiddleware

        middleware.insert(0, Middleware(CORSMiddleware, allow_origins=list(cors_origins), allow_methods=["GET", "POST"],
                                        allow_headers=["authorization", "content-type"]))
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={HTTPException: _not_found})
    add_routes(app, index.as_retriever(search_kwargs={"k": k}), "/retriever")
    add_routes(app, index.chain(k=k, llm=llm), "/ask")
    app.state.index = index
    return app
