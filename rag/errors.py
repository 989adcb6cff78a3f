"""The exception tree.

Every error the toolkit raises on purpose derives from :class:`RagError` and also from
the builtin a LangChain user would already catch, so ``except ValueError`` keeps working::

    RagError
    ├── ValidationError(ValueError)        bad argument or input value
    │   ├── DimensionMismatchError         vector of the wrong length
    │   └── OutputParserException          a model's output a parser cannot read (``llm_output``)
    ├── InvalidTypeError(TypeError)        an argument of the wrong type (not a str, not a list...)
    ├── EmbeddingMismatchError(ValueError) index built with another embedding model
    ├── NotFoundError(KeyError)            a name or id that is required but absent
    ├── UsageError(RuntimeError)           an object used out of order (fetch() outside ``async with``)
    ├── UnsupportedOperationError(NotImplementedError)  an index backend cannot do this (save_local of a database)
    ├── EmbeddingsNotAllowedError(PermissionError)  an index folder names a model server nobody allowed
    ├── StorageError(OSError)              an index folder or a SQLite/JSONL store failed to read or write
    │   ├── CorruptIndexError              folder truncated, tampered with or of another version
    │   ├── CorruptHistoryError            a chat history record that is no message (rag.memory)
    │   ├── CorruptCheckpointError         a graph checkpoint that does not read back (rag.graph.checkpoint)
    │   ├── IndexNotFoundError(FileNotFoundError)  no index at the path given
    │   └── StoreConnectionError(ConnectionError)  a database store unreachable or refusing the credentials
    ├── FetchError(OSError)                a URL could not be fetched (``url``, ``status``)
    │   ├── PageNotFoundError(FileNotFoundError)  the server answered 404 or 410
    │   └── RequestRefusedError            a guard refused a URL (a redirect hop) before it was sent
    ├── APIError(RuntimeError)             a model server (chat or embeddings) failed; alias
    │   │                                  EmbeddingServiceError; ``status_code`` (None here)
    │   ├── APIConnectionError(ConnectionError)  no HTTP answer (refused, reset, DNS)
    │   │   └── APITimeoutError(TimeoutError)    no answer within ``timeout`` seconds
    │   ├── APIResponseValidationError     a 2xx answer that is not the JSON expected
    │   └── APIStatusError                 an HTTP error status; ``status_code``, ``body``
    │       ├── BadRequestError(ValueError)      400
    │       ├── AuthenticationError              401
    │       ├── PermissionDeniedError            403
    │       ├── RateLimitError                   429 (after the retries)
    │       └── InternalServerError              5xx (after the retries)
    └── MissingDependencyError(ImportError) an optional extra is not installed

The API family keeps the names of the ``openai`` package; ``ChatOpenAI`` and
``OpenAIEmbeddings`` talk to the same servers and raise the same classes. Messages carry
the status and the server's own message; an API key is never in them.

What is *not* here is a bug: the command line reports a bare ``ValueError`` or
``KeyError`` as an internal error, so raise one of these for anything a user can cause.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = [
    "OutputParserException",
    "RagError",
    "ValidationError",
    "DimensionMismatchError",
    "InvalidTypeError",
    "EmbeddingMismatchError",
    "NotFoundError",
    "UsageError",
    "UnsupportedOperationError",
    "EmbeddingsNotAllowedError",
    "StorageError",
    "CorruptIndexError",
    "IndexNotFoundError",
    "StoreConnectionError",
    "ClusterConnectionError",
    "WorkerLostError",
    "MissingDependencyError",
    "FetchError",
    "PageNotFoundError",
    "RequestRefusedError",
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
    "EmbeddingServiceError",
    "status_error_class",
]


class RagError(Exception):
    """Root of every error raised on purpose by this toolkit."""


class ValidationError(RagError, ValueError):
    """An argument or input value is not what was expected; the message shows it."""


class DimensionMismatchError(ValidationError):
    """A vector's length differs from the dimension the store or model uses."""


class OutputParserException(ValidationError):
    """A parser could not read a model's output (LangChain's name); ``llm_output`` is the
    text it was given. ``observation`` (default None) is what an agent run with
    ``handle_parsing_errors=True`` shows the model when ``send_to_llm`` (default False)
    is True; both must be given together, as in LangChain."""

    def __init__(self, message: Any, *, observation: Optional[str] = None, llm_output: Optional[str] = None,
                 send_to_llm: bool = False) -> None:
        super().__init__(message)
        if send_to_llm and (observation is None or llm_output is None):
            raise ValueError("Arguments 'observation' & 'llm_output' are required if 'send_to_llm' is True")
        self.llm_output = llm_output
        self.observation = observation
        self.send_to_llm = send_to_llm


class InvalidTypeError(RagError, TypeError):
    """An argument is of the wrong type; the message shows what it was."""


class EmbeddingMismatchError(RagError, ValueError):
    """An index was built with another embedding model (``model_id``) or dimension."""


class NotFoundError(RagError, KeyError):
    """A required key, id or variable is absent."""

    def __str__(self) -> str:
        # KeyError's str() is the repr of its argument; keep the message readable.
        return str(self.args[0]) if self.args else ""


class UsageError(RagError, RuntimeError):
    """An object was used out of order, e.g. a fetcher outside its ``async with`` block."""


class UnsupportedOperationError(RagError, NotImplementedError):
    """An index backend cannot do what was asked (``save_local`` of an index kept in a
    database); the message names the backend and the operation. LangChain's stores raise
    ``NotImplementedError`` for the same."""


class EmbeddingsNotAllowedError(RagError, PermissionError):
    """An index folder's manifest names embeddings computed by a server (``openai:MODEL``)
    that the caller did not name: its queries and documents are not sent there (see
    :mod:`rag.index.remote`); the message names the server and how to allow it."""


class StorageError(RagError, OSError):
    """An index folder, a chat history or a checkpoint database could not be read or
    written (a damaged SQLite file included); the message names the file."""


class IndexNotFoundError(StorageError, FileNotFoundError):
    """No index folder at the path given (the message says how to create one)."""


class StoreConnectionError(StorageError, ConnectionError):
    """A database store could not be reached, or refused the credentials; the message
    names the URI without its password."""


class ClusterConnectionError(RagError, ConnectionError):
    """The scheduler of an embedding cluster (``--cluster``) could not be reached."""


class WorkerLostError(RagError, RuntimeError):
    """A local embedding worker process died mid-run (``--workers``); what was committed
    before is kept."""


class CorruptIndexError(StorageError):
    """An index folder is incomplete, altered, or written by an unsupported format version."""


class MissingDependencyError(RagError, ImportError):
    """An optional extra is not installed; the message gives the ``pip install`` command."""


class FetchError(RagError, OSError):
    """A URL could not be fetched: connection error, timeout, HTTP error status, size cap.

    ``url`` is the URL requested and ``status`` the final HTTP status (None when no
    response arrived). Subclasses OSError, as ``requests``' errors do.
    """

    def __init__(self, message: str, *, url: str, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.url = url
        self.status = status


class PageNotFoundError(FetchError, FileNotFoundError):
    """The server answered 404 or 410: like a missing file, it is a FileNotFoundError."""


class RequestRefusedError(FetchError):
    """A fetch guard refused ``url`` (usually a redirect hop) before it was sent; ``reason`` says why."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"{url}: {reason}", url=url)
        self.reason = reason


class APIError(RagError, RuntimeError):
    """A model server call failed (chat completions or embeddings).

    ``body`` is the parsed error body, if any; ``status_code`` is the HTTP status, None
    when no usable answer arrived (set by :class:`APIStatusError`).
    """

    status_code: Optional[int] = None

    def __init__(self, message: str, *, body: Any = None, status_code: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        self.body = body
        if status_code is not None:  # the old EmbeddingServiceError(message, status_code=...) call
            self.status_code = status_code


#: The name embeddings errors had before the two clients shared one family.
EmbeddingServiceError = APIError


class APIConnectionError(APIError, ConnectionError):
    """The server could not be reached or dropped the connection."""


class APITimeoutError(APIConnectionError, TimeoutError):
    """The server did not answer within the timeout."""


class APIResponseValidationError(APIError):
    """The server answered 2xx with something other than the expected JSON."""


class APIStatusError(APIError):
    """The server answered with an HTTP error status."""

    status_code: int

    def __init__(self, message: str, *, status_code: int, body: Any = None) -> None:
        super().__init__(message, body=body, status_code=status_code)


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
    """The most specific :class:`APIStatusError` class for an HTTP status."""
    if status_code >= 500:
        return InternalServerError
    return _BY_STATUS.get(status_code, APIStatusError)
