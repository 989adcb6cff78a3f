"""Chat models: the interface, an OpenAI-compatible HTTP client and a scripted fake.

>>> from rag.models import FakeListChatModel
>>> FakeListChatModel(responses=["Paris."]).invoke("Capital of France?").content
'Paris.'
"""

from rag.models._http import Backoff
from rag.models._secret import SecretStr
from rag.models._tools import convert_to_openai_tool
from rag.models.base import BaseChatModel, ChatGeneration, LLMResult
from rag.models.errors import (
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
)
from rag.models.fake import FakeListChatModel
from rag.models.fake_generic import GenericFakeChatModel
from rag.models.openai import ChatOpenAI

__all__ = [
    "BaseChatModel",
    "ChatOpenAI",
    "FakeListChatModel",
    "GenericFakeChatModel",
    "ChatGeneration",
    "LLMResult",
    "Backoff",
    "SecretStr",
    "convert_to_openai_tool",
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
]
