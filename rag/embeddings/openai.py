"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` server, over httpx."""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Optional, Sequence

import httpx
import numpy as np

from rag._openai_http import OPENAI_BASE_URL, resolve_base_url, send_with_retries
from rag._retry import RetryPolicy, retry_after_seconds
from rag.embeddings.base import Embeddings, _check_int, _check_texts
from rag.errors import APIResponseValidationError, DimensionMismatchError, EmbeddingServiceError, ValidationError

__all__ = ["OpenAIEmbeddings", "EmbeddingServiceError", "RetryPolicy", "retry_delay"]

# Vector lengths of OpenAI's own models, so `dimension` is known before the first request.
_KNOWN_DIMENSIONS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}


def retry_delay(policy: RetryPolicy, attempt: int, retry_after: Optional[str], jitter: float) -> float:
    """Seconds before retry number ``attempt`` (0-based) by this module's former formula:
    ``policy``'s backoff with ``jitter`` (in [0, 1)) as the random draw, or the server's
    ``Retry-After`` when larger, capped at ``max_seconds``.

    Kept for callers of the old helper; the client itself now decides as ``ChatOpenAI``
    does, with :meth:`RetryPolicy.wait_before_retry`.
    """
    backoff = policy.delay(attempt + 1, None, lambda: jitter)
    asked = retry_after_seconds(retry_after, now=time.time()) or 0.0
    return min(max(backoff, asked), policy.max_seconds)


class OpenAIEmbeddings(Embeddings):
    """Embeddings from OpenAI or any server speaking its ``POST /embeddings`` API
    (vLLM, llama.cpp, Ollama, LocalAI, text-embeddings-inference...).

    ``model``: the server's model name. ``base_url``: ending in ``/v1`` (default
    ``$OPENAI_BASE_URL``, else OpenAI's). ``api_key``: default ``$OPENAI_API_KEY``; required
    for OpenAI itself, optional for local servers (no Authorization header is sent without
    one). ``dimensions``: ask text-embedding-3 models for shorter vectors. ``chunk_size``:
    texts per request (1 to 2048, default 1000). ``timeout``: seconds per request (default
    60). ``max_retries``: extra attempts after a 408/409/429/5xx (but 501/505) answer or a
    connection failure (default 2), waiting as ``retry_policy`` says (the toolkit's one
    :class:`~rag._retry.RetryPolicy`, shared with ``ChatOpenAI``: 0.5 s doubling to 8 s,
    a server's Retry-After up to 60 s); ``sleep`` is the waiting function (tests pass a
    recorder). Failures raise the same :class:`~rag.errors.APIError` classes as
    ``ChatOpenAI`` (``AuthenticationError``, ``RateLimitError``, ``APIConnectionError``...;
    ``EmbeddingServiceError`` is another name for ``APIError``), ``status_code`` set for an
    HTTP error status.

    Differences from LangChain's class: ``model`` has no default (its default, ada-002, is a
    legacy model, and the name is recorded in every index); texts are sent as they are, not
    re-split with tiktoken (``embedding_ctx_length``), so a server may reject or truncate an
    over-long text. Vectors come back as float32 arrays in input order.

    >>> emb = OpenAIEmbeddings("text-embedding-3-small", api_key="sk-...")
    >>> emb.dimension, emb.model_id
    (1536, 'openai/text-embedding-3-small')
    """

    def __init__(
        self,
        model: str,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        dimensions: Optional[int] = None,
        chunk_size: int = 1000,
        timeout: float = 60,
        max_retries: int = 2,
        *,
        retry_policy: RetryPolicy = RetryPolicy(),
        sleep: Callable[[float], None] = time.sleep,
        http_client: Optional[httpx.Client] = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValidationError(f"model must be a non-empty model name, got {model!r}")
        _check_int("dimensions", dimensions, allow_none=True)
        _check_int("chunk_size", chunk_size, high=2048)
        _check_int("max_retries", max_retries, low=0)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ValidationError(f"timeout must be a positive number of seconds, got {timeout!r}")
        base_url = resolve_base_url(base_url)
        api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        if not api_key and base_url == OPENAI_BASE_URL:
            raise ValidationError(
                "OpenAI's API needs a key: pass api_key=... or set OPENAI_API_KEY "
                "(for a local server, pass its base_url)"
            )
        self.model = model
        self.base_url = base_url
        self.dimensions = dimensions
        self.chunk_size = chunk_size
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.retry_policy = retry_policy
        self._api_key = api_key or None
        self._sleep = sleep
        self._client = http_client
        self._owns_client = http_client is None
        self.dimension = dimensions or _KNOWN_DIMENSIONS.get(model)

    @property
    def model_id(self) -> str:
        return f"openai/{self.model}" + (f"@{self.dimensions}" if self.dimensions else "")

    def _http(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(timeout=self.timeout)
        return self._client

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _post(self, batch: list[str]) -> Any:
        """One request, retried on rate limits, server errors and dropped connections."""
        payload: dict[str, Any] = {"model": self.model, "input": batch, "encoding_format": "float"}
        if self.dimensions:
            payload["dimensions"] = self.dimensions
        client = self._http()
        request = client.build_request("POST", f"{self.base_url}/embeddings", json=payload, headers=self._headers(),
                                       timeout=self.timeout)
        response = send_with_retries(client, request, stream=False, max_retries=self.max_retries,
                                     policy=self.retry_policy, sleep=self._sleep, secret=self._api_key)
        try:
            return response.json()
        except ValueError as exc:
            raise APIResponseValidationError(f"{request.url} answered with non-JSON: {response.text[:200]!r}") from exc

    def _vectors(self, body: Any, expected: int) -> np.ndarray:
        try:
            items = sorted(body["data"], key=lambda item: item["index"])
            matrix = np.asarray([item["embedding"] for item in items], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise APIResponseValidationError(f"malformed embeddings response ({exc!r}): {str(body)[:200]}") from exc
        if matrix.ndim != 2 or matrix.shape[0] != expected:
            raise APIResponseValidationError(
                f"the server returned {matrix.shape[0] if matrix.ndim else 0} embeddings for {expected} texts"
            )
        if not np.isfinite(matrix).all():
            raise APIResponseValidationError("the server returned embeddings with NaN or infinite values")
        return matrix

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        texts = _check_texts(texts)
        if not texts:
            return np.empty((0, self.dimension or 0), dtype=np.float32)
        parts = [
            self._vectors(self._post(texts[start : start + self.chunk_size]), len(texts[start : start + self.chunk_size]))
            for start in range(0, len(texts), self.chunk_size)
        ]
        widths = {part.shape[1] for part in parts}
        if len(widths) > 1 or (self.dimension is not None and widths != {self.dimension}):
            raise DimensionMismatchError(
                f"{self.model_id} returned vectors of dimension {sorted(widths)}, expected {self.dimension}"
            )
        self.dimension = parts[0].shape[1]
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def close(self) -> None:
        """Close our HTTP connection pool (a client passed in stays the caller's to close)."""
        if self._client is not None and self._owns_client:
            self._client.close()
            self._client = None

    def __repr__(self) -> str:
        return f"OpenAIEmbeddings(model={self.model!r}, base_url={self.base_url!r}, dimensions={self.dimensions!r})"
