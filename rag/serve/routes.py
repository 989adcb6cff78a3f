"""``add_routes``: a runnable behind HTTP with LangServe 0.3.3's endpoints and wire format.

``POST {path}/invoke``, ``/batch``, ``/stream``, ``/stream_events`` and ``GET
{path}/input_schema``, ``/output_schema``, ``/config_schema`` on any Starlette app (FastAPI
apps are Starlette apps). Requests are checked before anything runs (422 for a bad body or
input, 400 for a bad config; see :mod:`rag.serve.validation`); a runnable that raises gives
500 with ``{"type", "message"}`` (no traceback; the server logs it); a client that
disconnects has its run cancelled.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any, AsyncGenerator, Awaitable, Callable, Mapping, Optional, Sequence, TypeVar, Union, cast

from rag import codec
from rag._optional import require
from rag.errors import ValidationError
from rag.runnables import ConfigurableFieldSpec, Runnable, RunnableConfig
from rag.serve.limits import RequestLimits
from rag.serve.sse import ClientDisconnected, EventStreamResponse, format_event, run_until_disconnect
from rag.serve.validation import (
    CONFIG_KEYS,
    RequestError,
    check_body,
    check_config,
    check_schema,
    check_text_lengths,
    loads_json,
)

require("starlette", feature="add_routes", extra="serve")

from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import Response  # noqa: E402
from starlette.routing import Route  # noqa: E402

__all__ = ["add_routes", "ENDPOINTS"]

logger = logging.getLogger("rag.serve")

ENDPOINTS = ("invoke", "batch", "stream", "stream_events", "input_schema", "output_schema", "config_schema")
# LangServe endpoints not offered here; naming them in disabled_endpoints is accepted.
_NOT_OFFERED = ("stream_log", "playground", "feedback", "public_trace_link", "config_hashes", "token_feedback")
_EVENT_FILTERS = ("include_names", "include_types", "include_tags", "exclude_names", "exclude_types", "exclude_tags")
_FILTER_SCHEMA = {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]}

# The status LangServe's client expects for a client that went away (nginx's convention).
_CLIENT_CLOSED = 499

T = TypeVar("T")
#: LangServe's ``input_type``/``output_type``: "auto", a JSON Schema dict, or a class with
#: ``model_json_schema()`` (a pydantic model).
SchemaSource = Union[str, Mapping[str, Any], type]
#: LangServe's ``per_req_config_modifier(config, request) -> config``, on plain dicts.
ConfigModifier = Callable[[dict[str, Any], Request], dict[str, Any]]
#: What an event-stream endpoint streams for one checked request: ``(input, config, body)``.
Produce = Callable[[Any, RunnableConfig, dict[str, Any]], AsyncGenerator[bytes, None]]


def _json(data: Any, status: int = 200) -> Response:
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return Response(body.encode(), status_code=status, media_type="application/json")


def _another_run(config: RunnableConfig) -> RunnableConfig:
    """``config`` for another run: the same, with a new ``run_id``."""
    return {**config, "run_id": uuid.uuid4()}


def _failure(exc: BaseException) -> dict[str, Any]:
    return {"type": type(exc).__name__, "message": str(exc)}


def _schema(given: SchemaSource, default: Callable[[], dict[str, Any]], what: str) -> dict[str, Any]:
    """LangServe's ``input_type``/``output_type``: "auto", a JSON Schema dict, or a class
    with ``model_json_schema()`` (a pydantic model, as LangServe users pass)."""
    if isinstance(given, str) and given == "auto":
        return default()
    if isinstance(given, dict):
        return given
    if hasattr(given, "model_json_schema"):
        return given.model_json_schema()
    raise ValidationError(f"{what} must be 'auto', a JSON Schema dict or a pydantic model class, got {given!r:.60}")


@dataclass
class _Endpoints:
    runnable: Runnable
    run_name: str
    per_req_config_modifier: Optional[ConfigModifier] = None
    input_type: SchemaSource = "auto"
    output_type: SchemaSource = "auto"
    config_keys: Optional[Sequence[str]] = None
    limits: RequestLimits = field(default_factory=lambda: RequestLimits(None, None))
    _input_schema: dict[str, Any] = field(init=False)
    _output_schema: dict[str, Any] = field(init=False)
    _specs: list[ConfigurableFieldSpec] = field(init=False)

    def __post_init__(self) -> None:
        # Computed once: a served runnable does not change shape between requests.
        self._input_schema = _schema(self.input_type, self.runnable.get_input_jsonschema, "input_type")
        self._output_schema = _schema(self.output_type, self.runnable.get_output_jsonschema, "output_type")
        self._specs = self.runnable.config_specs
        unknown = [key for key in self.config_keys or [] if key not in CONFIG_KEYS]
        if unknown:
            raise ValidationError(f"config_keys {unknown} are not RunnableConfig keys; choose from {list(CONFIG_KEYS)}")

    # -- request parsing ----------------------------------------------------------------
    async def _body(self, request: Request, required: str, optional: Sequence[str]) -> dict[str, Any]:
        raw = await request.body()
        try:
            body = loads_json(raw) if raw else None
        except (ValueError, UnicodeDecodeError) as exc:
            raise RequestError(422, [], f"the body is not valid JSON: {exc}", "json_invalid") from None
        return check_body(body, required, optional)

    def _config(self, raw: Any, request: Request, loc: Sequence[Any] = ("config",)) -> RunnableConfig:
        config = check_config(raw, self._specs, loc)
        if self.config_keys is not None:
            # LangServe's rule when the app lists config_keys: the others are dropped.
            config = {key: value for key, value in config.items() if key in self.config_keys}
        config.setdefault("run_name", self.run_name)
        config.setdefault("run_id", uuid.uuid4())
        if self.per_req_config_modifier is not None:
            config = self.per_req_config_modifier(config, request)
        # Checked against RunnableConfig's keys and value types (a modifier is trusted).
        return cast(RunnableConfig, config)

    def _input(self, raw: Any, loc: Sequence[Any] = ("input",)) -> Any:
        check_schema(raw, self._input_schema, loc)
        if self.limits.max_query_chars is not None:
            too_long = check_text_lengths(raw, self.limits.max_query_chars, loc)
            if too_long is not None:
                where, length = too_long
                raise RequestError(422, where, str(self.limits.text_refusal(length)), "string_too_long")
        return codec.decode(raw)

    async def _run(self, request: Request, work: Awaitable[T]) -> T:
        return await run_until_disconnect(request.receive, work)

    # -- endpoints ----------------------------------------------------------------------
    async def invoke(self, request: Request) -> Response:
        try:
            body = await self._body(request, "input", ("config", "kwargs"))
            config = self._config(body.get("config"), request)
            value = self._input(body["input"])
            output = await self._run(request, self.runnable.ainvoke(value, config))
            return _json({"output": codec.encode(output),
                          "metadata": {"run_id": str(config["run_id"]), "feedback_tokens": []}})
        except RequestError as exc:
            return _json(exc.to_json(), exc.status)
        except ClientDisconnected:
            return _json({"type": "ClientDisconnected", "message": "the client went away"}, _CLIENT_CLOSED)
        except Exception as exc:
            logger.exception("%s/invoke failed", self.run_name)
            return _json(_failure(exc), 500)

    async def batch(self, request: Request) -> Response:
        try:
            body = await self._body(request, "inputs", ("config", "kwargs"))
            raw_inputs = body["inputs"]
            if not isinstance(raw_inputs, list):
                raise RequestError(422, ["inputs"], f"expected a list, got {type(raw_inputs).__name__}", "list_type")
            refusal = self.limits.batch_refusal(len(raw_inputs))
            if refusal is not None:
                raise RequestError(413, ["inputs"], refusal, "too_long")
            raw_config = body.get("config")
            if isinstance(raw_config, list):
                if len(raw_config) != len(raw_inputs):
                    raise RequestError(400, ["config"], f"got {len(raw_config)} configs for {len(raw_inputs)} inputs")
                configs = [self._config(c, request, ("config", i)) for i, c in enumerate(raw_config)]
            else:
                # One config for every input; each input still gets its own run id.
                shared = self._config(raw_config, request)
                configs = [shared, *(_another_run(shared) for _ in raw_inputs[1:])]
            values = [self._input(item, ("inputs", i)) for i, item in enumerate(raw_inputs)]
            outputs = await self._run(request, self.runnable.abatch(values, configs)) if values else []
            run_ids = [str(c["run_id"]) for c in configs[:len(values)]]
            return _json({"output": codec.encode(outputs), "metadata": {
                "run_ids": run_ids, "responses": [{"run_id": r, "feedback_tokens": []} for r in run_ids]}})
        except RequestError as exc:
            return _json(exc.to_json(), exc.status)
        except ClientDisconnected:
            return _json({"type": "ClientDisconnected", "message": "the client went away"}, _CLIENT_CLOSED)
        except Exception as exc:
            logger.exception("%s/batch failed", self.run_name)
            return _json(_failure(exc), 500)

    async def _sse(self, request: Request, extra: Sequence[str], produce: Produce
                   ) -> Union[Response, EventStreamResponse]:
        try:
            body = await self._body(request, "input", ("config", "kwargs", *extra))
            for name in extra:
                check_schema(body.get(name), _FILTER_SCHEMA, [name])
            config = self._config(body.get("config"), request)
            value = self._input(body["input"])
        except RequestError as exc:
            return _json(exc.to_json(), exc.status)
        return EventStreamResponse(self._guarded(produce(value, config, body)))

    async def _guarded(self, events: AsyncGenerator[bytes, None]) -> AsyncGenerator[bytes, None]:
        try:
            async for item in events:
                yield item
        except Exception as exc:
            logger.exception("%s stream failed", self.run_name)
            yield format_event("error", json.dumps({"status_code": 500, **_failure(exc)}))
            return
        yield format_event("end")

    async def stream(self, request: Request) -> Union[Response, EventStreamResponse]:
        async def produce(value: Any, config: RunnableConfig, body: dict[str, Any]) -> AsyncGenerator[bytes, None]:
            yield format_event("metadata", json.dumps({"run_id": str(config["run_id"])}))
            async for chunk in self.runnable.astream(value, config):
                yield format_event("data", codec.dumps(chunk))

        return await self._sse(request, (), produce)

    async def stream_events(self, request: Request) -> Union[Response, EventStreamResponse]:
        async def produce(value: Any, config: RunnableConfig, body: dict[str, Any]) -> AsyncGenerator[bytes, None]:
            filters = {name: body.get(name) for name in _EVENT_FILTERS}
            async for event in self.runnable.astream_events(value, config, version="v2", **filters):
                yield format_event("data", codec.dumps(event))

        return await self._sse(request, _EVENT_FILTERS, produce)

    async def input_schema(self, request: Request) -> Response:
        return _json(self._input_schema)

    async def output_schema(self, request: Request) -> Response:
        return _json(self._output_schema)

    async def config_schema(self, request: Request) -> Response:
        return _json(self.runnable.get_config_jsonschema())


def _selected(enabled_endpoints: Optional[Sequence[str]], disabled_endpoints: Optional[Sequence[str]]) -> list[str]:
    if enabled_endpoints is not None and disabled_endpoints is not None:
        raise ValidationError("pass enabled_endpoints or disabled_endpoints, not both")
    if enabled_endpoints is not None:
        unknown = [name for name in enabled_endpoints if name not in ENDPOINTS]
        if unknown:
            raise ValidationError(f"unknown or unsupported endpoints {unknown}; choose from {list(ENDPOINTS)}")
        return [name for name in ENDPOINTS if name in enabled_endpoints]
    unknown = [name for name in disabled_endpoints or [] if name not in ENDPOINTS and name not in _NOT_OFFERED]
    if unknown:
        raise ValidationError(f"unknown endpoints {unknown} in disabled_endpoints; choose from {list(ENDPOINTS)}")
    return [name for name in ENDPOINTS if name not in (disabled_endpoints or [])]


def add_routes(app: Starlette, runnable: Union[Runnable, Callable[..., Any], Mapping[str, Any]], path: str = "", *,
               enabled_endpoints: Optional[Sequence[str]] = None, disabled_endpoints: Optional[Sequence[str]] = None,
               per_req_config_modifier: Optional[ConfigModifier] = None, run_name: Optional[str] = None,
               input_type: SchemaSource = "auto", output_type: SchemaSource = "auto",
               config_keys: Optional[Sequence[str]] = None, limits: Optional[RequestLimits] = None) -> list[str]:
    """Serve ``runnable`` under ``path`` on the Starlette (or FastAPI) ``app``.

    ``path``: "" or starting with "/" and not ending with one (default "": the root, as in
    LangServe). ``enabled_endpoints`` / ``disabled_endpoints``: names from
    :data:`ENDPOINTS` (default all). ``per_req_config_modifier(config, request)`` may
    change each call's checked config (e.g. add the user from a header).
    ``run_name``: the top run's name in events and traces (default ``path``, as in
    LangServe, or the runnable's name at the root). ``input_type`` / ``output_type``:
    "auto" (the runnable's schemas), a JSON Schema dict or a pydantic model class, as in
    LangServe; requests are checked against the input one. ``config_keys``: the config
    keys honoured (default None: every RunnableConfig key; others are dropped, LangServe's
    rule, while keys outside RunnableConfig still get 400). ``limits``: caps on batch size
    and input text (:class:`~rag.serve.limits.RequestLimits`; default: the app's
    ``app.state.request_limits``, set by :func:`~rag.serve.index_app.index_app`, else
    none, as in LangServe). Returns the URL paths added.

    >>> from starlette.applications import Starlette
    >>> from rag.runnables import RunnableLambda
    >>> add_routes(Starlette(), RunnableLambda(lambda x: x + 1), "/add", enabled_endpoints=["invoke"])
    ['/add/invoke']
    """
    from rag.runnables import coerce_to_runnable

    if not isinstance(path, str) or (path and (not path.startswith("/") or path.endswith("/"))):
        raise ValidationError(f"path must be '' or start with '/' and not end with '/', got {path!r}")
    runnable = coerce_to_runnable(runnable)
    if limits is None:
        limits = getattr(app.state, "request_limits", None) or RequestLimits(None, None)
    endpoints = _Endpoints(runnable, run_name or path or runnable.get_name(), per_req_config_modifier,
                           input_type, output_type, config_keys, limits)
    added = []
    for name in _selected(enabled_endpoints, disabled_endpoints):
        method = "GET" if name.endswith("_schema") else "POST"
        app.router.routes.append(Route(f"{path}/{name}", getattr(endpoints, name), methods=[method]))
        added.append(f"{path}/{name}")
    return added
