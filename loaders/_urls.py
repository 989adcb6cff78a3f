"""URL checks for the web loaders: validation, normalisation and scope tests (pure functions)."""

from __future__ import annotations

from urllib.parse import SplitResult, urljoin, urlsplit, urlunsplit

from rag.errors import ValidationError

__all__ = ["validate_http_url", "normalize_url", "url_directory", "is_within", "origin"]

_SCHEMES = ("http", "https")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def validate_http_url(url: object, *, name: str = "url") -> str:
    """``url`` unchanged if it is an absolute http(s) URL with a host; else ValidationError.

    The message names ``name`` (the parameter), shows the value and says what was expected.

    >>> validate_http_url("https://example.com/a")
    'https://example.com/a'
    """
    if not isinstance(url, str):
        raise ValidationError(
            f"Invalid {name} {url!r}: expected a string such as 'https://example.com/page', "
            f"got {type(url).__name__}"
        )
    if not url or url != url.strip() or any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise ValidationError(
            f"Invalid {name} {url!r}: expected an absolute http(s) URL without spaces, "
            "such as 'https://example.com/page'"
        )
    try:
        parts = urlsplit(url)
        parts.port
    except ValueError as exc:
        raise ValidationError(f"Invalid {name} {url!r}: malformed URL ({exc})") from exc
    if parts.scheme.lower() not in _SCHEMES:
        shown = parts.scheme or "no scheme"
        raise ValidationError(
            f"Invalid {name} {url!r}: unsupported scheme ({shown}); expected http:// or https://"
        )
    if not parts.hostname:
        raise ValidationError(
            f"Invalid {name} {url!r}: no host; expected an absolute URL such as "
            "'https://example.com/page'"
        )
    return url


def normalize_url(url: str) -> str:
    """A canonical spelling for de-duplication: lower-case scheme and host, default port
    dropped, empty path as ``/``, fragment dropped. Path and query are kept as written
    (servers may treat case and parameter order as meaningful).

    >>> normalize_url("HTTP://Example.COM:80/a?b=1#top")
    'http://example.com/a?b=1'
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    port = parts.port
    netloc = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    if parts.username is not None:
        userinfo = parts.username + (f":{parts.password}" if parts.password is not None else "")
        netloc = f"{userinfo}@{netloc}"
    return urlunsplit(SplitResult(scheme, netloc, parts.path or "/", parts.query, ""))


def url_directory(url: str) -> str:
    """The directory holding ``url``'s page, normalised and ending with ``/``.

    >>> url_directory("https://example.com/docs/intro.html?x=1")
    'https://example.com/docs/'
    >>> url_directory("https://example.com/docs")
    'https://example.com/'
    """
    return normalize_url(urljoin(normalize_url(url), "."))


def origin(url: str) -> tuple[str, str]:
    """``(scheme, host[:port])`` of ``url``, normalised: what "the same site" compares."""
    parts = urlsplit(normalize_url(url))
    return parts.scheme, parts.netloc


def is_within(url: str, base_url: str) -> bool:
    """True when normalised ``url`` has ``base_url``'s origin and starts with its path.

    >>> is_within("https://example.com/docs/a", "https://example.com/docs/")
    True
    >>> is_within("https://example.com.evil.org/docs/a", "https://example.com")
    False
    >>> is_within("https://example.com/docs-private", "https://example.com/docs")
    False
    """
    target, base = normalize_url(url), normalize_url(base_url)
    if origin(target) != origin(base):
        return False
    # Path segments, not characters: "/docs" covers "/docs" and "/docs/a", not "/docs-private".
    return target == base or target.startswith(base if base.endswith("/") else base + "/")
