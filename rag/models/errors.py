"""Errors from model servers, with the names of the ``openai`` package.

The family lives in :mod:`rag.errors` (one tree for the toolkit, shared by ``ChatOpenAI``
and ``OpenAIEmbeddings``); this module keeps the names importable from here.
"""

from __future__ import annotations

from rag.errors import (
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    InternalServerError,
    PermissionDeniedError,
    RateLimitError,
    status_error_class,
)

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
