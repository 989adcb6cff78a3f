"""Connection URIs in messages: the password removed, whatever the URI's form."""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

__all__ = ["redact_uri"]

_USER_PASSWORD = re.compile(r"((?:^|//|[\s\"'])[^:/@\s\"']*):(?!//)[^\s\"']*@")


def redact_uri(uri: str) -> str:
    """``uri`` without its password (URL or ``key=value`` form), for messages."""
    text = re.sub(r"((?:password|token)\s*=\s*)('[^']*'|\S+)", r"\1***", uri)
    # ``user:password@`` wherever it stands (also in a URI without scheme or one urlsplit
    # cannot parse, and in libpq's messages quoting them): up to the last "@" of the word.
    text = _USER_PASSWORD.sub(r"\1:***@", text)
    try:
        parts = urlsplit(text)
    except ValueError:
        return text
    if not parts.password:
        return text
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))
