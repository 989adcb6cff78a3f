"""The ``/traces`` page: runs recorded in the trace store, browsed in a web page.

Routes (:func:`trace_routes`; ``rag serve`` adds them, ``rag trace serve`` serves them
alone with :func:`traces_app`):

- ``GET /traces`` (and its ``traces.js``, ``traces.css``): the page, plain HTML and
  JavaScript shipped with the package (no CDN); public, like the playground's files: it
  holds no data, and a browser cannot send a Bearer key when it navigates;
- ``GET /traces/api/traces?project&name&status&slower_than&since&before&limit``: traces,
  newest first (``next_before`` pages on);
- ``GET /traces/api/projects``: each project's totals (``?names=1``: the names alone);
- ``GET /traces/api/runs/{id}``: the trace holding a run (an id or its first 8+
  characters), its runs in ``dotted_order``; 404 for an unknown id.

The data routes sit behind the app's API key guard like every other data route. A trace
database that cannot be read (corrupt, another version) is a 503 naming the file; the
rest of ``rag serve`` works on.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

from rag._optional import require
from rag.serve.origins import SitePolicy
from rag.serve.security import Guard
from rag.tracing.store import RunNotFoundError, TraceStore, TraceStoreError, since_micros

require("starlette", feature="rag serve", extra="serve")

from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response  # noqa: E402
from starlette.routing import Route  # noqa: E402

__all__ = ["trace_routes", "traces_app", "TRACES_STATIC", "TRACES_PAGE"]

#: The page's files, served as they are.
TRACES_PAGE = Path(__file__).with_name("traces_page")
#: The page's public paths (no API key: they hold no data) and their files.
TRACES_STATIC = {"/traces": ("traces.html", "text/html"), "/traces/traces.js": ("traces.js", "text/javascript"),
                 "/traces/traces.css": ("traces.css", "text/css")}
_MAX_LIMIT = 500
_STATUSES = ("success", "error")


class _Refused(Exception):
    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status, self.kind = status, kind


def _number(request: Request, name: str) -> Optional[float]:
    text = request.query_params.get(name)
    if text is None or text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        raise _Refused(422, "invalid_request", f"{name!r} must be a number, got {text!r}") from None
    if value < 0:
        raise _Refused(422, "invalid_request", f"{name!r} must be >= 0, got {text!r}")
    return value


class _TraceRoutes:
    """The data routes over one trace database, opened on first use (and again after a
    failure, so a database repaired while the server runs is read)."""

    def __init__(self, store: Union[TraceStore, Path, Callable[[], Path]]) -> None:
        self._store = store if isinstance(store, TraceStore) else None
        self._where = store if not isinstance(store, TraceStore) else None

    def store(self) -> TraceStore:
        if self._store is None:
            where = self._where() if callable(self._where) else self._where
            assert where is not None
            try:
                self._store = TraceStore(where, readonly=True)
            except TraceStoreError as exc:
                raise _Refused(503, "trace_store_unavailable", str(exc)) from exc
        return self._store

    async def _answer(self, work: Callable[[], Any]) -> Response:
        try:
            return JSONResponse(await asyncio.to_thread(work))
        except _Refused as exc:
            return JSONResponse({"type": exc.kind, "message": str(exc)}, status_code=exc.status)
        except RunNotFoundError as exc:
            return JSONResponse({"type": "not_found", "message": str(exc)}, status_code=404)
        except TraceStoreError as exc:
            self._store = None
            return JSONResponse({"type": "trace_store_unavailable", "message": str(exc)}, status_code=503)

    async def traces(self, request: Request) -> Response:
        def work() -> dict[str, Any]:
            status = request.query_params.get("status") or None
            if status is not None and status not in _STATUSES:
                raise _Refused(422, "invalid_request", f"'status' must be success or error, got {status!r}")
            since = request.query_params.get("since") or None
            try:
                since_us = since_micros(since) if since else None
            except ValueError as exc:
                raise _Refused(422, "invalid_request", f"'since': {exc}") from None
            before = _number(request, "before")
            limit = int(min(_number(request, "limit") or 50, _MAX_LIMIT)) or 1
            store = self.store()
            rows = store.list_traces(project=request.query_params.get("project") or None,
                                     name=request.query_params.get("name") or None, status=status,
                                     slower_than_ms=_number(request, "slower_than"), since_us=since_us,
                                     before_us=int(before) if before is not None else None, limit=limit + 1)
            more = len(rows) > limit
            rows = rows[:limit]
            return {"db": str(store.path), "traces": rows, "next_before": rows[-1]["start_us"] if more else None}
        return await self._answer(work)

    async def projects(self, request: Request) -> Response:
        # ?names=1: the names alone (the page's project filter), quick at any size.
        if request.query_params.get("names"):
            return await self._answer(lambda: {"projects": [{"project": name}
                                                            for name in self.store().project_names()]})
        return await self._answer(lambda: {"projects": self.store().projects()})

    async def run(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        return await self._answer(lambda: self.store().get_trace(run_id))


async def _static(request: Request) -> Response:
    name, media_type = TRACES_STATIC[request.url.path]
    return FileResponse(TRACES_PAGE / name, media_type=media_type, headers={"cache-control": "no-store"})


def trace_routes(store: Union[TraceStore, Path, Callable[[], Path]]) -> list[Route]:
    """The page's routes over ``store`` (a :class:`~rag.tracing.TraceStore`, its path, or a
    function giving the path when first needed). Put the data routes behind a
    :class:`~rag.serve.security.Guard` whose ``public`` admits :data:`TRACES_STATIC`."""
    served = _TraceRoutes(store)
    return [*(Route(path, _static, methods=["GET"]) for path in TRACES_STATIC),
            Route("/traces/api/traces", served.traces, methods=["GET"]),
            Route("/traces/api/projects", served.projects, methods=["GET"]),
            Route("/traces/api/runs/{run_id}", served.run, methods=["GET"])]


def traces_app(store: Union[TraceStore, Path], *, api_key: Optional[str] = None,
               allowed_hosts: Sequence[str] = ()) -> Starlette:
    """An app serving only the ``/traces`` page over ``store`` (``rag trace serve``):
    ``/`` redirects to it; ``api_key`` guards the data routes as in ``rag serve``;
    ``allowed_hosts``: ``Host`` names answered besides loopback (default none; see
    :class:`~rag.serve.origins.SitePolicy`)."""
    from starlette.middleware import Middleware

    async def home(request: Request) -> Response:
        return RedirectResponse("/traces")

    routes = [Route("/", home, methods=["GET"]), *trace_routes(store)]
    middleware = [Middleware(Guard, api_key=api_key, public=lambda path: path in TRACES_STATIC or path == "/",
                             sites=SitePolicy(allowed_hosts=allowed_hosts))]
    return Starlette(routes=routes, middleware=middleware)
