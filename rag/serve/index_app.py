"""A warm index behind HTTP: the app ``rag serve`` runs, as a library function.

:func:`index_app` builds a Starlette app over an open :class:`~rag.index.Index`:

- ``POST /search`` ``{"query", "k"?, "search_type"?, "filter"?, "threshold"?, "fetch_k"?,
  "lambda_mult"?}`` (a :class:`~rag.index.request.SearchRequest`) -> ranked chunks with
  scores (see :func:`search_request`);
- ``/retriever/*`` and ``/ask/*``: the index's retriever and ask chain through
  :func:`rag.serve.add_routes` (LangServe's endpoints: invoke, batch, stream, ...);
- ``POST /playground/ask``: one question as Server-Sent Events for the page (``token``...,
  ``sources``, ``answer`` (its text and citations), ``trace``, ``end``; or ``error``);
- ``GET /v1/models`` (and ``/v1/models/{id}``), ``POST /v1/chat/completions``: the OpenAI-compatible API
  (:mod:`rag.serve.openai_api`);
- ``GET /``: the playground page (static files shipped with the package, no CDN);
- ``GET /traces``: the runs in the trace store (:mod:`rag.serve.traces`).

Add your own chains to the returned app with ``add_routes(app, chain, "/mine")``, or any
Starlette route with ``app.router.routes.append(Route(...))``: every route is behind the
same guard (Host, Origin, API key, JSON bodies, body cap and deadline:
:class:`~rag.serve.security.Guard`) and caps (:class:`~rag.serve.limits.RequestLimits`).
The served index follows ``rag index`` runs (:class:`~rag.serve.freshness.IndexWatcher`).
Unknown paths get a JSON 404.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import asdict
from pathlib import Path
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, AsyncGenerator, AsyncIterator, Callable, Optional, Sequence, Union

from rag._optional import require
from rag.callbacks.tracer import BaseTracer, TraceRun
from rag.documents import Document
from rag.errors import ValidationError
from rag.index.config import ANSWER_K
from rag.index.core import Index
from rag.index.request import MAX_QUERY_CHARS, REQUEST_FIELDS, SearchRequest
from rag.runnables import Runnable
from rag.serve.index_http import (
    BadRequest,
    field,
    read_json_object,
    source_json,
    sources_json,
    stream_answer,
    text_field,
)
from rag.serve.routes import add_routes
from rag.serve._asgi import ASGIApp, Receive, Scope, Send
from rag.serve.freshness import DEFAULT_REFRESH_SECONDS, IndexWatcher
from rag.serve.limits import DEFAULT_LIMITS, RequestLimits
from rag.serve.origins import SitePolicy
from rag.serve.security import DEFAULT_BODY_SECONDS, DEFAULT_MAX_BODY_BYTES, Guard, check_body_options
from rag.serve.sse import EventStreamResponse, format_event
from rag.serve.traces import TRACES_STATIC, trace_routes

require("starlette", feature="rag serve", extra="serve")

from starlette.applications import Starlette  # noqa: E402
from starlette.exceptions import HTTPException  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import FileResponse, JSONResponse, Response  # noqa: E402
from starlette.routing import Route  # noqa: E402

# source_json: public here before the helpers shared with the OpenAI API had their module.
__all__ = ["index_app", "search_request", "source_json", "PLAYGROUND"]

#: The playground's files (HTML, JS, CSS), served as they are: no build step.
PLAYGROUND = Path(__file__).with_name("playground")
_STATIC = {"/": ("index.html", "text/html"), "/playground.js": ("playground.js", "text/javascript"),
           "/playground.css": ("playground.css", "text/css")}


def k_field(body: dict[str, Any], default: int) -> int:
    """``body["k"]``, the passages of an answer: 1 to 100 (``default`` when absent)."""
    k = field(body, "k", int, default)
    if not 1 <= k <= 100:
        raise BadRequest(422, f"'k' must be between 1 and 100, got {k}", "k")
    return k


def _field_refused(message: str) -> Optional[str]:
    """The request field a :class:`SearchRequest` refusal is about. Its messages begin with
    the field (``k must be ...``, ``fetch_k applies to ...``), or with ``search type`` when
    the type is refused; a threshold search without one ``needs threshold=X``."""
    needed = re.search(r"needs (\w+)=", message)
    if needed:
        return needed.group(1)
    if message.startswith("search type"):
        return "search_type"
    first = message.split(" ", 1)[0]
    return first if first in REQUEST_FIELDS else None


def search_request(body: dict[str, Any], *, default_k: int, limits: Optional[RequestLimits] = None) -> SearchRequest:
    """The body of ``POST /search`` as a :class:`~rag.index.request.SearchRequest`, or a
    422 :class:`BadRequest` naming the field to fix.

    The body takes the request's fields (:data:`~rag.index.request.REQUEST_FIELDS`):
    ``query`` (required, non-empty), ``k`` (default: the server's ``k``), ``search_type``
    (one of :data:`~rag.search_types.INDEX_SEARCH_TYPES`, default ``hybrid``),
    ``filter`` (a JSON object in the stores' filter language), ``threshold``,
    ``fetch_k`` and ``lambda_mult``; null is the same as absent. Any other field is
    refused (a misspelt ``lamda_mult`` would otherwise be ignored), and the request's
    own checks (search types, limits, which fields go with which type) are the rules.
    """
    unknown = sorted(set(body) - set(REQUEST_FIELDS))
    if unknown:
        raise BadRequest(422, f"unknown field {unknown[0]!r}; POST /search takes {', '.join(REQUEST_FIELDS)}",
                         unknown[0])
    given = {name: body[name] for name in REQUEST_FIELDS if body.get(name) is not None}
    given.update(query=text_field(body, "query", limits), filter=field(body, "filter", dict))
    try:
        return SearchRequest(**{"k": default_k, **given})
    except ValidationError as exc:
        raise BadRequest(422, str(exc), _field_refused(str(exc))) from None


class _LastTrace(BaseTracer):
    """Keeps the tree of the run it traced, for the page's trace view."""

    def __init__(self) -> None:
        super().__init__()
        self.root: Optional[TraceRun] = None

    def _on_trace_end(self, run: TraceRun) -> None:
        self.root = run


def _trace_tree(run: TraceRun) -> dict[str, Any]:
    # Names, kinds and timings only: inputs/outputs are already on the page (and on /traces).
    return {"id": str(run.id), "name": run.name, "run_type": run.run_type, "duration_ms": run.duration_ms,
            "error": run.error, "children": [_trace_tree(child) for child in run.children]}


def _error(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse({"type": kind, "message": message}, status_code=status)


def _result_json(rank: int, document: Document, score: float) -> dict[str, Any]:
    return {"rank": rank, "score": float(score), "source": document.metadata.get("source"), "id": document.id,
            "title": document.metadata.get("title") or "", "page_content": document.page_content,
            "start_index": document.metadata.get("start_index")}


class _IndexRoutes:
    def __init__(self, index: Index, llm: Optional[Runnable], k: int, limits: RequestLimits) -> None:
        self.index, self.llm, self.k, self.limits = index, llm, k, limits

    async def search(self, request: Request) -> Response:
        """``POST /search``: ``{"query", "search_type", "score_name", "results": [{"rank",
        "score", "source", "id", "title", "page_content", "start_index"}]}``, best first;
        ``score_name`` says what the scores measure (``rrf`` or ``fused`` for hybrid, by the
        index's fusion; ``bm25``; ``relevance``)."""
        try:
            search = search_request(await read_json_object(request), default_k=self.k, limits=self.limits)
            found = await asyncio.to_thread(self.index.search_request, search)
        except BadRequest as exc:
            return JSONResponse(exc.to_json(), status_code=exc.status)
        except ValidationError as exc:
            # The request was checked when it was built: what the store refuses is its filter.
            return JSONResponse(BadRequest(422, str(exc), _field_refused(str(exc)) or "filter").to_json(),
                                status_code=422)
        return JSONResponse({"query": search.query, "search_type": search.search_type.value,
                             "score_name": search.score_name(self.index.config.hybrid),
                             "results": [_result_json(rank, document, score)
                                         for rank, (document, score) in enumerate(found, start=1)]})

    async def playground_ask(self, request: Request) -> Union[Response, EventStreamResponse]:
        try:
            body = await read_json_object(request)
            question = text_field(body, "question", self.limits)
            k = k_field(body, self.k)
        except BadRequest as exc:
            return JSONResponse(exc.to_json(), status_code=exc.status)
        return EventStreamResponse(self._ask_events(question, k))

    async def _ask_events(self, question: str, k: int) -> AsyncGenerator[bytes, None]:
        tracer = _LastTrace()
        async for piece in stream_answer(self.index, question, k=k, llm=self.llm, what="playground ask",
                                         config={"callbacks": [tracer], "run_name": "ask"}):
            match piece:
                case ("sources", answer):
                    yield format_event("sources", json.dumps(sources_json(answer)))
                case ("token", text):
                    yield format_event("token", json.dumps(text))
                case ("answer", answer):  # the text as shown (invalid marks removed), each quote's mark
                    yield format_event("answer", json.dumps({"text": answer.answer,
                                                             "citations": [asdict(c) for c in answer.citations]}))
                case ("error", error):  # shown in the page; the server log keeps the traceback
                    yield format_event("error", json.dumps({"type": type(error).__name__, "message": str(error)}))
                    return
        if tracer.root is not None:
            from rag.tracing.settings import tracing_settings

            # stored: the trace store has this run too, so the page links to it on /traces.
            tree = {**_trace_tree(tracer.root), "stored": tracing_settings().enabled}
            yield format_event("trace", json.dumps(tree))
        yield format_event("end")


async def _static(request: Request) -> Response:
    name, media_type = _STATIC[request.url.path]
    # no-store: a page from an older rag serve must not outlive an upgrade in the browser's cache.
    return FileResponse(PLAYGROUND / name, media_type=media_type, headers={"cache-control": "no-store"})


def _trace_db() -> Path:
    from rag.tracing.settings import default_trace_db

    return default_trace_db()


async def _not_found(request: Request, exc: Exception) -> Response:
    if not isinstance(exc, HTTPException):  # registered for HTTPException only (Starlette types handlers for any)
        raise exc
    if exc.status_code == 404:
        return _error(404, "not_found", f"no route {request.url.path}; see GET / for the playground, "
                                        "POST /search, /ask/invoke, /v1/chat/completions")
    if exc.status_code == 405:
        return _error(405, "method_not_allowed", f"{request.method} is not allowed on {request.url.path}")
    return _error(exc.status_code, "http_error", str(exc.detail))


def index_app(index: Index, *, llm: Optional[Runnable] = None, model_name: Optional[str] = None, k: int = ANSWER_K,
              api_key: Optional[str] = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
              cors_origins: Sequence[str] = (), allowed_hosts: Sequence[str] = (),
              limits: RequestLimits = DEFAULT_LIMITS, body_seconds: float = DEFAULT_BODY_SECONDS,
              refresh_seconds: Optional[float] = DEFAULT_REFRESH_SECONDS) -> Starlette:
    """The app serving ``index`` (an open :class:`~rag.index.Index` or shared index).

    ``llm``: a chat model Runnable for answers (default None: extracted offline);
    ``model_name``: the model id ``/v1/models`` lists (default ``rag-extractive`` offline,
    else the llm's ``model``); ``k``: chunks retrieved per answer (on ``/ask``, the
    playground and ``/v1/chat/completions`` alike) and default results per search
    (default 6, ``rag ask``'s, so the server answers as ``rag ask`` does); ``api_key``:
    required as ``Authorization: Bearer KEY`` on every route but the playground's own
    static files (default None: no key, for 127.0.0.1);
    ``max_body_bytes``: larger request bodies get 413 (default 1 MiB); ``cors_origins``:
    origins allowed to call from other sites' pages (default none: CORS off);
    ``allowed_hosts``: ``Host`` names answered besides loopback (default none; see
    :class:`~rag.serve.origins.SitePolicy`); ``limits``: batch size and query length caps
    (:class:`~rag.serve.limits.RequestLimits`, default 100 inputs, 10,000 characters, which
    is also the most: the index's own limit on a query);
    ``body_seconds``: time for a body to arrive (default 20 s, then 408);
    ``refresh_seconds``: how often to look for a newer committed version of the index and
    serve it (default 0.5 s; None: serve the version opened; see
    :class:`~rag.serve.freshness.IndexWatcher`, started with the server's lifespan or its
    first request, stopped at shutdown).

    Every route, including one added later, is behind :class:`~rag.serve.security.Guard`
    (Host, Origin, key, JSON content type, body cap and deadline). A route is added as in
    Starlette: ``app.router.routes.append(Route("/traces", page, methods=["GET"]))``, or
    ``add_routes(app, runnable, "/path")`` for a runnable (which takes ``limits`` from
    ``app.state.request_limits``).
    """
    from rag.serve.openai_api import OpenAIRoutes

    check_body_options(max_body_bytes, body_seconds)  # now, not at the first request (Starlette builds Guard then)
    if limits.max_query_chars is None or limits.max_query_chars > MAX_QUERY_CHARS:
        # Past it, the index refuses a query inside the ask chain: a 500, not a 422.
        raise ValidationError(f"max_query_chars must be at most {MAX_QUERY_CHARS} (the index's own limit on a query), "
                              f"got {limits.max_query_chars}")
    served = _IndexRoutes(index, llm, k, limits)
    name = model_name or (getattr(llm, "model", None) if llm is not None else None) or "rag-extractive"
    openai = OpenAIRoutes(index, llm, name, k, limits)
    routes = [Route(path, _static, methods=["GET"]) for path in _STATIC]
    routes += trace_routes(_trace_db)
    routes += [Route("/search", served.search, methods=["POST"]),
               Route("/playground/ask", served.playground_ask, methods=["POST"]),
               Route("/v1/models", openai.models, methods=["GET"]),
               Route("/v1/models/{model_id:path}", openai.retrieve_model, methods=["GET"]),
               Route("/v1/chat/completions", openai.chat_completions, methods=["POST"])]
    watcher = IndexWatcher(index, interval=refresh_seconds) if refresh_seconds is not None else None
    middleware = [Middleware(Guard, api_key=api_key, max_body_bytes=max_body_bytes,
                             public=lambda path: path in _STATIC or path in TRACES_STATIC,
                             sites=SitePolicy(allowed_hosts=allowed_hosts, cors_origins=cors_origins),
                             body_seconds=body_seconds)]
    if watcher is not None:
        middleware.insert(0, Middleware(_StartsWatcher, watcher=watcher))
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={HTTPException: _not_found},
                    lifespan=_lifespan(watcher))
    app.state.request_limits = limits
    add_routes(app, index.as_retriever(search_kwargs={"k": k}), "/retriever")
    add_routes(app, index.chain(k=k, llm=llm), "/ask")
    app.state.index = index
    app.state.watcher = watcher
    return app


def _lifespan(watcher: Optional[IndexWatcher]) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if watcher is not None:
            watcher.start()
        try:
            yield
        finally:
            if watcher is not None:
                await asyncio.to_thread(watcher.stop)

    return lifespan


class _StartsWatcher:
    """Starts the watcher with the first request, for a server run without lifespan events
    (not again once the server's shutdown stopped it)."""

    def __init__(self, app: ASGIApp, *, watcher: IndexWatcher) -> None:
        self.app, self.watcher = app, watcher

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan" and not self.watcher.running and not self.watcher.stopped:
            self.watcher.start()
        await self.app(scope, receive, send)
