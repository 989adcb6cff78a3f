"""RemoteRunnable: a runnable served elsewhere (by us or by LangServe), called over HTTP.

>>> remote = RemoteRunnable("http://127.0.0.1:8000/chain", timeout=30)
>>> chain = remote | (lambda answer: answer.upper())   # composes like any runnable
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Iterator, Mapping, Optional, Sequence, Union

import httpx

from rag import codec
from rag.errors import ValidationError
from rag.runnables import Runnable, RunnableConfig
from rag.runnables.config import per_input_configs
from rag.serve.errors import RemoteConnectionError, RemoteRunnableError, error_for
from rag.serve.sse import aiter_sse, iter_sse

__all__ = ["RemoteRunnable"]

# The config keys sent to the server; callbacks and internal keys stay here.
_SENT_KEYS = ("tags", "metadata", "run_name", "max_concurrency", "recursion_limit", "configurable")


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def wire_config(config: Optional[Mapping[str, Any]]) -> dict[str, Any]:
    """The part of ``config`` a server can use: RunnableConfig keys with JSON values
    (``configurable`` values that are not JSON, e.g. local objects, are left out)."""
    sent: dict[str, Any] = {}
    for key in _SENT_KEYS:
        value = (config or {}).get(key)
        if value is None:
            continue
        if key == "configurable":
            value = {k: v for k, v in value.items() if _jsonable(v)}
        if _jsonable(value):
            sent[key] = value
    return sent


class RemoteRunnable(Runnable[Any, Any]):
    """Calls the runnable served at ``url`` (the path given to ``add_routes``).

    ``headers``: sent with every request (e.g. authorization; never logged);
    ``timeout``: seconds (or an ``httpx.Timeout``) per request, default 60 s to connect and
    between bytes, so a long stream is fine as long as chunks keep coming. Outputs come
    back as our Documents and messages. ``stream``/``astream`` yield each chunk as it
    arrives; ``astream_events`` yields the server's events. Errors are
    :class:`~rag.serve.RemoteRunnableError` (status, server message, exception type) or
    :class:`~rag.serve.RemoteConnectionError`.
    """

    def __init__(self, url: str, *, headers: Optional[Mapping[str, str]] = None,
                 timeout: Union[float, httpx.Timeout, None] = 60.0, name: Optional[str] = None) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValidationError(f"RemoteRunnable needs an http(s) URL, got {url!r}")
        if timeout is not None and not isinstance(timeout, httpx.Timeout) and (
                isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
            raise ValidationError(f"timeout must be seconds > 0, an httpx.Timeout or None, got {timeout!r}")
        self.url = url.rstrip("/")
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.name = name
        self._client: Optional[httpx.Client] = None
        self._async_clients: dict[int, httpx.AsyncClient] = {}

    def get_name(self) -> str:
        return self.name or "RemoteRunnable"

    # -- HTTP plumbing ------------------------------------------------------------------
    def _sync(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(headers=self.headers, timeout=self.timeout)
        return self._client

    def _async(self) -> httpx.AsyncClient:
        # One client per event loop: an httpx.AsyncClient's connections belong to the loop
        # that opened them.
        loop = asyncio.get_running_loop()
        client = self._async_clients.get(id(loop))
        if client is None:
            client = httpx.AsyncClient(headers=self.headers, timeout=self.timeout)
            self._async_clients = {id(loop): client}
        return client

    def _endpoint(self, name: str) -> str:
        return f"{self.url}/{name}"

    @staticmethod
    def _check(response: httpx.Response) -> None:
        if response.status_code < 400:
            return
        try:
            detail = response.json()
        except ValueError:
            detail = None
        raise error_for(response.status_code, detail, response.text, request=response.request, response=response)

    def _decode(self, response: httpx.Response) -> Any:
        self._check(response)
        body = response.json()
        if not isinstance(body, dict) or "output" not in body:
            raise error_for(502, body, "the server's answer has no 'output'", request=response.request)
        return codec.decode(body["output"])

    def _post(self, name: str, payload: dict[str, Any]) -> Any:
        try:
            return self._decode(self._sync().post(self._endpoint(name), json=payload))
        except httpx.TransportError as exc:
            raise RemoteConnectionError(f"{self._endpoint(name)}: {type(exc).__name__}: {exc}") from exc

    async def _apost(self, name: str, payload: dict[str, Any]) -> Any:
        try:
            return self._decode(await self._async().post(self._endpoint(name), json=payload))
        except httpx.TransportError as exc:
            raise RemoteConnectionError(f"{self._endpoint(name)}: {type(exc).__name__}: {exc}") from exc

    def _stream_event(self, event: dict[str, str], request: httpx.Request) -> Any:
        """The decoded data of a ``data`` event; raises for ``error``; None otherwise."""
        if event["event"] == "error":
            try:
                detail = json.loads(event["data"])
            except ValueError:
                detail = None
            status = detail.get("status_code", 500) if isinstance(detail, dict) else 500
            raise error_for(status, detail, event["data"], request=request)
        return codec.loads(event["data"]) if event["event"] == "data" else None

    def _sse(self, name: str, payload: dict[str, Any]) -> Iterator[Any]:
        endpoint = self._endpoint(name)
        try:
            with self._sync().stream("POST", endpoint, json=payload,
                                     headers={"accept": "text/event-stream"}) as response:
                if response.status_code >= 400:
                    response.read()
                    self._check(response)
                for event in iter_sse(response.iter_lines()):
                    if event["event"] == "end":
                        return
                    data = self._stream_event(event, response.request)
                    if event["event"] == "data":
                        yield data
        except httpx.TransportError as exc:
            raise RemoteConnectionError(f"{endpoint}: {type(exc).__name__}: {exc}") from exc

    async def _asse(self, name: str, payload: dict[str, Any]) -> AsyncIterator[Any]:
        endpoint = self._endpoint(name)
        try:
            async with self._async().stream("POST", endpoint, json=payload,
                                            headers={"accept": "text/event-stream"}) as response:
                if response.status_code >= 400:
                    await response.aread()
                    self._check(response)
                async for event in aiter_sse(response.aiter_lines()):
                    if event["event"] == "end":
                        return
                    data = self._stream_event(event, response.request)
                    if event["event"] == "data":
                        yield data
        except httpx.TransportError as exc:
            raise RemoteConnectionError(f"{endpoint}: {type(exc).__name__}: {exc}") from exc

    @staticmethod
    def _payload(input: Any, config: Optional[Mapping[str, Any]]) -> dict[str, Any]:
        return {"input": codec.encode(input), "config": wire_config(config), "kwargs": {}}

    # -- the Runnable interface ---------------------------------------------------------
    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return self._call_traced(lambda value, cfg: self._post("invoke", self._payload(value, cfg)), input, config)

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        async def body(value: Any, cfg: RunnableConfig) -> Any:
            return await self._apost("invoke", self._payload(value, cfg))

        return await self._acall_traced(body, input, config)

    def _batch_payload(self, inputs: Sequence[Any], config: Union[RunnableConfig, Sequence[RunnableConfig], None]
                       ) -> dict[str, Any]:
        configs = per_input_configs(config, len(inputs))
        wire = [wire_config(c) for c in configs]
        return {"inputs": codec.encode(list(inputs)), "config": wire[0] if isinstance(config, (dict, type(None)))
                else wire, "kwargs": {}}

    def batch(self, inputs: Sequence[Any], config: Union[RunnableConfig, Sequence[RunnableConfig], None] = None, *,
              return_exceptions: bool = False, **kwargs: Any) -> list[Any]:
        """One request for all inputs (the server runs them concurrently). With
        ``return_exceptions=True`` a failed request fills every slot with its error."""
        inputs = list(inputs)
        if not inputs:
            return []
        try:
            return self._post("batch", self._batch_payload(inputs, config))
        except (RemoteRunnableError, RemoteConnectionError) as exc:
            if return_exceptions:
                return [exc] * len(inputs)
            raise

    async def abatch(self, inputs: Sequence[Any], config: Union[RunnableConfig, Sequence[RunnableConfig], None] = None,
                     *, return_exceptions: bool = False, **kwargs: Any) -> list[Any]:
        inputs = list(inputs)
        if not inputs:
            return []
        try:
            return await self._apost("batch", self._batch_payload(inputs, config))
        except (RemoteRunnableError, RemoteConnectionError) as exc:
            if return_exceptions:
                return [exc] * len(inputs)
            raise

    def stream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Any]:
        return self._stream_traced(lambda value, cfg: self._sse("stream", self._payload(value, cfg)), input, config)

    async def astream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> AsyncIterator[Any]:
        async for chunk in self._astream_traced(lambda value, cfg: self._asse("stream", self._payload(value, cfg)),
                                                input, config):
            yield chunk

    async def astream_events(self, input: Any, config: Optional[RunnableConfig] = None, *,
                             version: str = "v2", include_names: Optional[Sequence[str]] = None,
                             include_types: Optional[Sequence[str]] = None,
                             include_tags: Optional[Sequence[str]] = None,
                             exclude_names: Optional[Sequence[str]] = None,
                             exclude_types: Optional[Sequence[str]] = None,
                             exclude_tags: Optional[Sequence[str]] = None, **kwargs: Any) -> AsyncIterator[dict]:
        """The server's v2 events for a run on ``input``, as they happen (filters applied on
        the server)."""
        if version != "v2":
            raise ValidationError(f"astream_events supports version='v2' only, got {version!r}")
        payload = {**self._payload(input, config), "include_names": include_names, "include_types": include_types,
                   "include_tags": include_tags, "exclude_names": exclude_names, "exclude_types": exclude_types,
                   "exclude_tags": exclude_tags}
        async for event in self._asse("stream_events", payload):
            yield event

    # -- schemas from the server ---------------------------------------------------------
    def _get(self, name: str) -> dict[str, Any]:
        try:
            response = self._sync().get(self._endpoint(name))
        except httpx.TransportError as exc:
            raise RemoteConnectionError(f"{self._endpoint(name)}: {type(exc).__name__}: {exc}") from exc
        self._check(response)
        return response.json()

    def get_input_jsonschema(self, config: Optional[RunnableConfig] = None) -> dict[str, Any]:
        return self._get("input_schema")

    def get_output_jsonschema(self, config: Optional[RunnableConfig] = None) -> dict[str, Any]:
        return self._get("output_schema")

    def get_config_jsonschema(self, *, include: Optional[Sequence[str]] = None) -> dict[str, Any]:
        return self._get("config_schema")

    # -- lifetime ----------------------------------------------------------------------
    def close(self) -> None:
        """Close the sync client's connections (async clients close with their loop)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> "RemoteRunnable":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RemoteRunnable({self.url!r})"
