"""Failing calls, as middleware: :class:`ModelRetryMiddleware`, :class:`ToolRetryMiddleware`,
:class:`ModelFallbackMiddleware` and :class:`ToolErrorMiddleware` (langchain 1.x's
parameters and defaults; messages worded as LangChain's).

A pause (``interrupt()``) is never retried. Backoff: the n-th retry waits
``min(initial_delay * backoff_factor ** n, max_delay)`` seconds, +-25% with ``jitter``.

>>> ModelRetryMiddleware(max_retries=3, initial_delay=0).max_retries
3
"""

from __future__ import annotations

import asyncio
import random
import time
import warnings
from typing import Any, Awaitable, Callable, Literal, Optional, Sequence, Union

from rag.agents.middleware.types import AgentMiddleware, ModelRequest, ModelResponse, ToolCallRequest
from rag.errors import APIStatusError, InvalidTypeError, ValidationError
from rag.graph.errors import GraphInterrupt
from rag.messages import AIMessage, ToolMessage

__all__ = ["ModelRetryMiddleware", "ToolRetryMiddleware", "ModelFallbackMiddleware", "ToolErrorMiddleware",
           "default_retry_on"]

RetryOn = Union[tuple[type[Exception], ...], Callable[[Exception], bool]]
OnFailure = Union[Literal["error", "continue"], Callable[[Exception], str]]


def default_retry_on(exc: BaseException) -> bool:
    """Retry any Exception except a server's refusal that a retry cannot change (an HTTP
    4xx other than 408 timeout, 409 conflict and 429 rate limit)."""
    if not isinstance(exc, Exception):
        return False
    if isinstance(exc, APIStatusError):
        return not (400 <= exc.status_code < 500) or exc.status_code in (408, 409, 429)
    return True


class _Backoff:
    """The retry settings shared by the model and tool retries."""

    def __init__(self, max_retries: int, retry_on: RetryOn, on_failure: OnFailure, backoff_factor: float,
                 initial_delay: float, max_delay: float, jitter: bool) -> None:
        for name, value in (("max_retries", max_retries), ("initial_delay", initial_delay),
                            ("max_delay", max_delay), ("backoff_factor", backoff_factor)):
            if value < 0:
                raise ValidationError(f"{name} must be >= 0, got {value!r}")
        if on_failure not in ("error", "continue") and not callable(on_failure):
            raise ValidationError(f"on_failure must be 'error', 'continue' or a function of the exception, "
                                  f"got {on_failure!r}")
        self.max_retries, self.retry_on, self.on_failure = max_retries, retry_on, on_failure
        self.backoff_factor, self.initial_delay, self.max_delay, self.jitter = backoff_factor, initial_delay, max_delay, jitter

    def retries(self, exc: Exception) -> bool:
        return self.retry_on(exc) if callable(self.retry_on) and not isinstance(self.retry_on, tuple) \
            else isinstance(exc, self.retry_on)

    def delay(self, retry: int) -> float:
        delay = self.initial_delay if self.backoff_factor == 0 else self.initial_delay * self.backoff_factor ** retry
        delay = min(delay, self.max_delay)
        if self.jitter and delay > 0:  # spread clients that failed together
            delay = max(0.0, delay + random.uniform(-0.25 * delay, 0.25 * delay))
        return delay

    def last_try(self, exc: Exception, attempt: int) -> bool:
        """Whether ``attempt`` (0-based) was the last; re-raises an error not to retry."""
        if not self.retries(exc):
            raise exc
        return attempt == self.max_retries

    def run(self, call: Callable[[], Any], give_up: Callable[[Exception, int], Any]) -> Any:
        for attempt in range(self.max_retries + 1):
            try:
                return call()
            except GraphInterrupt:
                raise
            except Exception as exc:
                if self.last_try(exc, attempt):
                    return give_up(exc, attempt + 1)
            time.sleep(self.delay(attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    async def arun(self, call: Callable[[], Awaitable[Any]], give_up: Callable[[Exception, int], Any]) -> Any:
        for attempt in range(self.max_retries + 1):
            try:
                return await call()
            except GraphInterrupt:
                raise
            except Exception as exc:
                if self.last_try(exc, attempt):
                    return give_up(exc, attempt + 1)
            await asyncio.sleep(self.delay(attempt))
        raise AssertionError("unreachable")  # pragma: no cover


class _RetrySettings:
    """LangChain's public retry attributes, read from the middleware's :class:`_Backoff`."""

    backoff: _Backoff
    retry_on = property(lambda self: self.backoff.retry_on)
    backoff_factor = property(lambda self: self.backoff.backoff_factor)
    initial_delay = property(lambda self: self.backoff.initial_delay)
    max_delay = property(lambda self: self.backoff.max_delay)
    jitter = property(lambda self: self.backoff.jitter)


def _attempts(n: int) -> str:
    return f"{n} attempt" if n == 1 else f"{n} attempts"


class ModelRetryMiddleware(_RetrySettings, AgentMiddleware):
    """Retry a failing model call up to ``max_retries`` times (default 2) when
    ``retry_on`` (exception classes or a predicate; default :func:`default_retry_on`)
    accepts the error. Then ``on_failure``: ``"continue"`` (default) answers with an
    AIMessage naming the error, ``"error"`` raises it, a function gives the answer's text.
    Delays: ``initial_delay=1.0`` s, ``backoff_factor=2.0``, ``max_delay=60.0`` s, ``jitter=True``."""

    def __init__(self, *, max_retries: int = 2, retry_on: RetryOn = default_retry_on,
                 on_failure: OnFailure = "continue", backoff_factor: float = 2.0, initial_delay: float = 1.0,
                 max_delay: float = 60.0, jitter: bool = True) -> None:
        on_failure = _current(on_failure)
        self.backoff = _Backoff(max_retries, retry_on, on_failure, backoff_factor, initial_delay, max_delay, jitter)
        self.max_retries, self.on_failure = max_retries, on_failure

    def _give_up(self, exc: Exception, attempts: int) -> ModelResponse:
        if self.on_failure == "error":
            raise exc
        text = self.on_failure(exc) if callable(self.on_failure) else \
            f"Model call failed after {_attempts(attempts)} with {type(exc).__name__}: {exc}"
        return ModelResponse([AIMessage(text)])

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Any]) -> Any:
        return self.backoff.run(lambda: handler(request), self._give_up)

    async def awrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[Any]]) -> Any:
        return await self.backoff.arun(lambda: handler(request), self._give_up)


def _tool_names(tools: Optional[Sequence[Any]]) -> Optional[list[str]]:
    return None if tools is None else [t if isinstance(t, str) else t.name for t in tools]


def _current(on_failure: Any) -> Any:
    """LangChain's older on_failure names, still accepted with a DeprecationWarning."""
    renamed = {"raise": "error", "return_message": "continue"}
    if isinstance(on_failure, str) and on_failure in renamed:
        warnings.warn(f"on_failure={on_failure!r} is deprecated and will be removed in a future version. Use "
                      f"on_failure={renamed[on_failure]!r} instead.", DeprecationWarning, stacklevel=3)
        return renamed[on_failure]
    return on_failure


class ToolRetryMiddleware(_RetrySettings, AgentMiddleware):
    """Retry a raising tool up to ``max_retries`` times (default 2), for the ``tools``
    named (tool objects or names; None: all). Then ``on_failure``: ``"continue"``
    (default) answers with an error ToolMessage naming the error, ``"error"`` raises it,
    a function gives the message text. Delays as :class:`ModelRetryMiddleware`."""

    def __init__(self, *, max_retries: int = 2, tools: Optional[Sequence[Any]] = None,
                 retry_on: RetryOn = default_retry_on, on_failure: OnFailure = "continue",
                 backoff_factor: float = 2.0, initial_delay: float = 1.0, max_delay: float = 60.0,
                 jitter: bool = True) -> None:
        on_failure = _current(on_failure)
        self.backoff = _Backoff(max_retries, retry_on, on_failure, backoff_factor, initial_delay, max_delay, jitter)
        self.max_retries, self.on_failure = max_retries, on_failure
        self._tool_filter = _tool_names(tools)
        self.tools = []  # it registers none: ``tools`` above only selects

    def _give_up(self, request: ToolCallRequest) -> Callable[[Exception, int], ToolMessage]:
        def give_up(exc: Exception, attempts: int) -> ToolMessage:
            if self.on_failure == "error":
                raise exc
            name = request.tool_call["name"]
            text = self.on_failure(exc) if callable(self.on_failure) else \
                f"Tool '{name}' failed after {_attempts(attempts)} with {type(exc).__name__}: {exc}. Please try again."
            return ToolMessage(text, tool_call_id=request.tool_call["id"], name=name, status="error")
        return give_up

    def wrap_tool_call(self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Any]) -> Any:
        if self._tool_filter is not None and request.tool_call["name"] not in self._tool_filter:
            return handler(request)
        return self.backoff.run(lambda: handler(request), self._give_up(request))

    async def awrap_tool_call(self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[Any]]) -> Any:
        if self._tool_filter is not None and request.tool_call["name"] not in self._tool_filter:
            return await handler(request)
        return await self.backoff.arun(lambda: handler(request), self._give_up(request))


class ModelFallbackMiddleware(AgentMiddleware):
    """When the model call fails, try ``first_model`` then each of ``additional_models``
    in turn; the last error is raised when all fail. Models are chat model objects (names
    such as ``"openai:gpt-4o"`` are not resolved to providers here).

    >>> from rag.models import FakeListChatModel
    >>> len(ModelFallbackMiddleware(FakeListChatModel(responses=["x"])).models)
    1
    """

    def __init__(self, first_model: Any, *additional_models: Any) -> None:
        for model in (first_model, *additional_models):
            if isinstance(model, str):
                raise InvalidTypeError(f"ModelFallbackMiddleware needs chat model objects, got the name {model!r}; "
                                       "model names are not resolved to providers")
        self.models = [first_model, *additional_models]

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Any]) -> Any:
        try:
            return handler(request)
        except GraphInterrupt:
            raise
        except Exception as exc:
            last = exc
        for model in self.models:
            try:
                return handler(request.override(model=model))
            except GraphInterrupt:
                raise
            except Exception as exc:
                last = exc
        raise last

    async def awrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[Any]]) -> Any:
        try:
            return await handler(request)
        except GraphInterrupt:
            raise
        except Exception as exc:
            last = exc
        for model in self.models:
            try:
                return await handler(request.override(model=model))
            except GraphInterrupt:
                raise
            except Exception as exc:
                last = exc
        raise last


class ToolErrorMiddleware(AgentMiddleware):
    """Answer a raising tool (of ``tools``; None: all) with an error ToolMessage whose text
    is ``on_error(exc, request)``; when that returns None the error is raised."""

    def __init__(self, on_error: Optional[Callable[[Exception, ToolCallRequest], Optional[str]]] = None, *,
                 aon_error: Optional[Callable[[Exception, ToolCallRequest], Awaitable[Optional[str]]]] = None,
                 tools: Optional[Sequence[Any]] = None) -> None:
        if on_error is None and aon_error is None:
            raise ValidationError("ToolErrorMiddleware requires `on_error` and/or `aon_error`.")
        self.on_error, self.aon_error = on_error, aon_error
        self._tool_filter = _tool_names(tools)
        self.tools = []

    def _answer(self, request: ToolCallRequest, text: Optional[str], exc: Exception) -> ToolMessage:
        if text is None:
            raise exc
        return ToolMessage(text, tool_call_id=request.tool_call["id"], name=request.tool_call["name"], status="error")

    def wrap_tool_call(self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Any]) -> Any:
        if self._tool_filter is not None and request.tool_call["name"] not in self._tool_filter:
            return handler(request)
        try:
            return handler(request)
        except GraphInterrupt:
            raise
        except Exception as exc:
            if self.on_error is None:
                raise RuntimeError("ToolErrorMiddleware has no sync `on_error`; run async (ainvoke/astream) "
                                   "or provide `on_error`.") from exc
            return self._answer(request, self.on_error(exc, request), exc)

    async def awrap_tool_call(self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[Any]]) -> Any:
        if self._tool_filter is not None and request.tool_call["name"] not in self._tool_filter:
            return await handler(request)
        try:
            return await handler(request)
        except GraphInterrupt:
            raise
        except Exception as exc:
            text = await self.aon_error(exc, request) if self.aon_error is not None else self.on_error(exc, request)  # type: ignore[misc]
            return self._answer(request, text, exc)
