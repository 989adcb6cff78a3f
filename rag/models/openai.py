"""ChatOpenAI: any OpenAI-compatible chat-completions server (OpenAI, Ollama, vLLM, llama.cpp)."""

from __future__ import annotations

import json
import os
import threading
from typing import Any, AsyncIterator, Iterator, Optional

import httpx

from rag._openai_http import (OPENAI_BASE_URL, asend_with_retries, redact, resolve_base_url, send_with_retries,
                              transport_error)
from rag.errors import APIResponseValidationError, ValidationError
from rag.messages import AIMessage, AIMessageChunk, BaseMessage
from rag.models._http import Backoff
from rag.models._openai_format import ai_message_from_response, chunk_from_stream_event, message_to_openai
from rag.models._secret import SecretStr
from rag.models._sse import aiter_sse_data, iter_sse_data
from rag.models.base import BaseChatModel

__all__ = ["ChatOpenAI"]

DEFAULT_BASE_URL = OPENAI_BASE_URL


def _number(name: str, value: Any, low: float, high: Optional[float] = None, *, integer: bool = False) -> None:
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f">= {low}"
        kind = "an int" if integer else "a number"
        raise ValidationError(f"{name} must be {kind} {bound}, got {value!r}")


class ChatOpenAI(BaseChatModel):
    """A chat model over HTTP (httpx) for any server speaking OpenAI's chat completions.

    ``model``: the model name (required). ``base_url``: the API root, e.g.
    ``http://localhost:11434/v1`` for Ollama (default ``OPENAI_BASE_URL``, else OpenAI).
    ``api_key``: default ``OPENAI_API_KEY``; None sends no Authorization header (local
    servers). ``temperature`` in [0, 2] and ``max_tokens`` >= 1 (None: the server's
    default). ``timeout``: seconds per request (default 60). ``max_retries``: retries after
    a transport error, 408/409/429 or 5xx but 501/505 (default 2), waiting per ``backoff``
    and the server's Retry-After (the toolkit's one ``rag._retry.RetryPolicy``). ``streaming``: ``invoke`` streams internally (token callbacks).
    ``stream_usage``: ask for token usage when streaming (default: only with OpenAI's own
    URL, since some servers refuse the option). ``model_kwargs``: extra request fields.

    The environment is read only here, when you build the model: nothing in this toolkit
    contacts a server unless you asked for one. The key is kept in a :class:`SecretStr` and
    masked in every error message, repr and log line.

    >>> llm = ChatOpenAI("llama3.1", base_url="http://localhost:11434/v1", api_key="sk-secret")
    >>> "sk-secret" in repr(llm)
    False
    """

    def __init__(
        self,
        model: str,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        temperature: Optional[float] = None,
        max_tokens: Optional[int] = None,
        timeout: Optional[float] = 60,
        max_retries: int = 2,
        streaming: bool = False,
        model_kwargs: Optional[dict[str, Any]] = None,
        *,
        stream_usage: Optional[bool] = None,
        default_headers: Optional[dict[str, str]] = None,
        http_client: Optional[httpx.Client] = None,
        http_async_client: Optional[httpx.AsyncClient] = None,
        backoff: Optional[Backoff] = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValidationError(f"model must be a model name such as 'gpt-4o-mini', got {model!r}")
        base_url = resolve_base_url(base_url)
        if temperature is not None:
            _number("temperature", temperature, 0, 2)
        if max_tokens is not None:
            _number("max_tokens", max_tokens, 1, integer=True)
        if timeout is not None:
            _number("timeout", timeout, 0)
        _number("max_retries", max_retries, 0, integer=True)
        if model_kwargs is not None and not isinstance(model_kwargs, dict):
            raise ValidationError(f"model_kwargs must be a dict, got {type(model_kwargs).__name__}")
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        if key is not None and (not isinstance(key, str) or not key):
            raise ValidationError("api_key must be a non-empty str or None (for servers that need no key)")
        self.model_name = model
        self.openai_api_base = base_url
        self.openai_api_key: Optional[SecretStr] = SecretStr(key) if key else None
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.request_timeout = timeout
        self.max_retries = max_retries
        self.streaming = streaming
        self.model_kwargs = dict(model_kwargs or {})
        self.stream_usage = stream_usage if stream_usage is not None else self.openai_api_base == DEFAULT_BASE_URL
        self.default_headers = dict(default_headers or {})
        self.backoff = backoff or Backoff()
        self.name = None
        self._client = http_client
        self._owns_client = http_client is None  # close() must not close a caller's client
        self._async_client = http_async_client
        self._client_lock = threading.Lock()

    @property
    def model(self) -> str:
        return self.model_name

    @property
    def _llm_type(self) -> str:
        return "openai-chat"

    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "base_url": self.openai_api_base,
                "temperature": self.temperature, "max_tokens": self.max_tokens}

    # -- request building (shared by all four paths) -----------------------------------
    def _secret(self) -> Optional[str]:
        return self.openai_api_key.get_secret_value() if self.openai_api_key else None

    def _request(self, client: httpx.Client | httpx.AsyncClient, messages: list[BaseMessage],
                 stop: Optional[list[str]], stream: bool, kwargs: dict[str, Any]) -> httpx.Request:
        body: dict[str, Any] = {"model": self.model_name, "messages": [message_to_openai(m) for m in messages]}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if stop:
            body["stop"] = stop
        body.update(self.model_kwargs)
        body.update({k: v for k, v in kwargs.items() if v is not None})
        if stream:
            body["stream"] = True
            if self.stream_usage:
                body["stream_options"] = {"include_usage": True}
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream" if stream else "application/json",
                   **self.default_headers}
        secret = self._secret()
        if secret:
            headers["Authorization"] = f"Bearer {secret}"
        return client.build_request("POST", f"{self.openai_api_base}/chat/completions", json=body, headers=headers,
                                    timeout=self.request_timeout)

    def _json(self, response: httpx.Response) -> Any:
        try:
            return response.json()
        except ValueError as exc:
            raise APIResponseValidationError(redact(
                f"HTTP {response.status_code} from {response.request.url} is not JSON: {response.text[:200]!r}",
                self._secret())) from exc

    def _event_chunk(self, data: str) -> Optional[AIMessageChunk]:
        if data.strip() == "[DONE]":
            return None
        try:
            event = json.loads(data)
        except ValueError as exc:
            raise APIResponseValidationError(f"a streamed event is not JSON: {data[:200]!r}") from exc
        return chunk_from_stream_event(event)

    def _send(self, client: httpx.Client, request: httpx.Request, stream: bool) -> httpx.Response:
        backoff = self.backoff
        return send_with_retries(client, request, stream=stream, max_retries=self.max_retries, policy=backoff.policy,
                                 sleep=backoff.sleep, rand=backoff.rand, now=backoff.now, secret=self._secret())

    async def _asend(self, client: httpx.AsyncClient, request: httpx.Request, stream: bool) -> httpx.Response:
        backoff = self.backoff
        return await asend_with_retries(client, request, stream=stream, max_retries=self.max_retries,
                                        policy=backoff.policy, asleep=backoff.asleep, rand=backoff.rand,
                                        now=backoff.now, secret=self._secret())

    def _sync_client(self) -> httpx.Client:
        with self._client_lock:
            if self._client is None:
                self._client = httpx.Client(timeout=self.request_timeout)
            return self._client

    # -- the four paths ---------------------------------------------------------------------
    def _generate(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> AIMessage:
        client = self._sync_client()
        response = self._send(client, self._request(client, messages, stop, False, kwargs), stream=False)
        return ai_message_from_response(self._json(response))

    async def _agenerate(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> AIMessage:
        async with self._async_client_scope() as client:
            response = await self._asend(client, self._request(client, messages, stop, False, kwargs), stream=False)
            return ai_message_from_response(self._json(response))

    def _stream(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> Iterator[AIMessageChunk]:
        client = self._sync_client()
        response = self._send(client, self._request(client, messages, stop, True, kwargs), stream=True)
        try:
            try:
                for data in iter_sse_data(response.iter_lines()):
                    chunk = self._event_chunk(data)
                    if chunk is not None:
                        yield chunk
            except httpx.TransportError as exc:  # mid-stream: the same error tree as on send
                raise transport_error(exc, response.request.url, self._secret()) from exc
        finally:
            response.close()

    async def _astream(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> AsyncIterator[AIMessageChunk]:
        async with self._async_client_scope() as client:
            response = await self._asend(client, self._request(client, messages, stop, True, kwargs), stream=True)
            try:
                try:
                    async for data in aiter_sse_data(response.aiter_lines()):
                        chunk = self._event_chunk(data)
                        if chunk is not None:
                            yield chunk
                except httpx.TransportError as exc:  # mid-stream: the same error tree as on send
                    raise transport_error(exc, response.request.url, self._secret()) from exc
            finally:
                await response.aclose()

    def _async_client_scope(self) -> Any:
        # An AsyncClient belongs to one event loop, so without a client of the user's,
        # each call opens (and closes) its own.
        if self._async_client is not None:
            return _Borrowed(self._async_client)
        return httpx.AsyncClient(timeout=self.request_timeout)

    def close(self) -> None:
        """Close the HTTP client this model opened (a user-supplied client stays open)."""
        with self._client_lock:
            if self._client is not None and self._owns_client:
                self._client.close()
                self._client = None

    def __repr__(self) -> str:
        key = "SecretStr('**********')" if self.openai_api_key else "None"
        return f"ChatOpenAI(model={self.model_name!r}, base_url={self.openai_api_base!r}, api_key={key})"


class _Borrowed:
    """``async with`` over a client we do not own: nothing is closed on exit."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def __aenter__(self) -> httpx.AsyncClient:
        return self.client

    async def __aexit__(self, *exc: Any) -> None:
        return None
