"""Errors from chat model servers, with the names of the ``openai`` package.

::

    RagError
    └── APIError                         any failure talking to a model server
        ├── APIConnectionError(ConnectionError)  no HTTP answer (refused, reset, DNS)
        │   └── APITimeoutError(TimeoutError)    no answer within ``timeout`` seconds
        ├── APIResponseValidationError   a 2xx answer that is not the JSON expected
        └── APIStatusError               an HTTP error status; ``status_code``, ``body``
            ├── BadRequestError(ValueError)      400
            ├── AuthenticationError              401
            ├── PermissionDeniedError            403
            ├── RateLimitError                   429 (after the retries)
            └── InternalServerError              5xx (after the retries)

Messages carry the status and the server's own message; the API key is never in them.
"""

from __future__ import annotations

from typing import Any

from rag.errors import RagError

__all__ = [
    "APIError",
    "APIConnectionError",
    "APITimeoutError",
    "APIResponseValidationError",
    "APIStatusError",
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "RateLimitError",
    "InternalServerError",
    "status_error_class",
]


class APIError(RagError):
    """A model server call failed. ``body`` is the parsed error body, if any."""

    def __init__(self, message: str, *, body: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.body = body


class APIConnectionError(APIError, ConnectionError):
    """The server could not be reached or dropped the connection."""


class APITimeoutError(APIConnectionError, TimeoutError):
    """The server did not answer within the timeout."""


class APIResponseValidationError(APIError):
    """The server answered 2xx with something other than the expected JSON."""


class APIStatusError(APIError):
    """The server answered with an HTTP error status."""

    def __init__(self, message: str, *, status_code: int, body: Any = None) -> None:
        super().__init__(message, body=body)
        self.status_code = status_code


class BadRequestError(APIStatusError, ValueError):
    """400: the request was refused as invalid (unknown model, bad parameter...)."""


class AuthenticationError(APIStatusError):
    """401: missing or wrong API key."""


class PermissionDeniedError(APIStatusError):
    """403: the key may not use this model or endpoint."""


class RateLimitError(APIStatusError):
    """429: too many requests or tokens; still failing after the retries."""


class InternalServerError(APIStatusError):
    """5xx: the server failed; still failing after the retries."""


_BY_STATUS = {400: BadRequestError, 401: AuthenticationError, 403: PermissionDeniedError, 429: RateLimitError}


def status_error_class(status_code: int) -> type[APIStatusError]:
    """The most specific error class for an HTTP status."""
    if status_code >= 500:
        return InternalServerError
    return _BY_STATUS.get(status_code, APIStatusError)


