"""Argument checks shared by the loaders: fail in ``__init__``, showing the value."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bs4.builder import builder_registry

from rag._optional import missing_dependency
from rag.errors import ValidationError

__all__ = ["positive_int", "optional_positive", "non_negative_int", "parser_name", "http_options"]

_PARSER_INSTALL = {"lxml": "lxml", "xml": "lxml", "lxml-xml": "lxml", "html5lib": "html5lib"}


def positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError(f"{name} must be an integer >= 1. Currently, {name} is {value!r}")
    return value


def non_negative_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValidationError(f"{name} must be an integer >= 0. Currently, {name} is {value!r}")
    return value


def optional_positive(name: str, value: object, *, unit: str) -> float | None:
    """None, or a number > 0 (``unit`` goes in the message, e.g. "seconds")."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValidationError(
            f"{name} must be a number of {unit} > 0, or None. Currently, {name} is {value!r}"
        )
    return value


def parser_name(name: str, value: object) -> str:
    """A BeautifulSoup parser that is installed; the stdlib ``html.parser`` always is."""
    if not isinstance(value, str) or not value:
        raise ValidationError(f"{name} must be a parser name such as 'html.parser', got {value!r}")
    if builder_registry.lookup(value) is None:
        package = _PARSER_INSTALL.get(value)
        if package is not None:
            raise missing_dependency(
                f"{name}={value!r}", [package], alternative="or use 'html.parser'"
            )
        raise ValidationError(
            f"Unknown {name} {value!r}: expected 'html.parser', 'lxml', 'xml', 'lxml-xml' or "
            "'html5lib'"
        )
    return value


# requests.get keyword -> how the web loaders use it; anything else is refused.
_REQUESTS_KEYS = frozenset(
    {"headers", "cookies", "timeout", "verify", "auth", "params", "allow_redirects", "proxies"}
)


def http_options(requests_kwargs: Mapping[str, Any] | None) -> dict[str, Any]:
    """Check LangChain's ``requests_kwargs`` (keyword arguments of ``requests.get``).

    Supported: ``headers``, ``cookies``, ``timeout``, ``verify``, ``auth`` (a
    ``(user, password)`` pair), ``params``, ``allow_redirects`` and ``proxies``.
    """
    if requests_kwargs is None:
        return {}
    if not isinstance(requests_kwargs, Mapping):
        raise ValidationError(f"requests_kwargs must be a dict, got {requests_kwargs!r}")
    unknown = sorted(set(requests_kwargs) - _REQUESTS_KEYS)
    if unknown:
        raise ValidationError(
            f"Unsupported requests_kwargs key(s) {unknown}: expected some of "
            f"{sorted(_REQUESTS_KEYS)}"
        )
    options = dict(requests_kwargs)
    auth = options.get("auth")
    if auth is not None and not (isinstance(auth, tuple) and len(auth) == 2):
        raise ValidationError(
            f"requests_kwargs['auth'] must be a (user, password) pair, got {auth!r}"
        )
    return options
