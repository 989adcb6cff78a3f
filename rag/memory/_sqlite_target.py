"""Which SQLite database a chat history's ``connection`` string names, and how to open it.

The forms LangChain users write (SQLAlchemy URLs, as ``create_engine`` takes them) and the
ones ``sqlite3`` users write:

- a file path, taken literally (``chats.sqlite``; a ``?`` in it is part of the name, as
  for ``sqlite3.connect``);
- ``sqlite://`` or ``sqlite:///:memory:`` (a private in-memory database),
  ``sqlite:///relative/path.db``, ``sqlite:////absolute/path.db`` (``%XX`` decoded, as
  SQLAlchemy does); ``sqlite+pysqlite://`` and ``sqlite+aiosqlite://`` name the same files;
- a query string on such a URL: SQLAlchemy's driver options ``timeout`` (seconds; default
  30), ``uri`` and ``check_same_thread`` (the history serialises its own use of the
  connection, so any value is fine), and SQLite's URI parameters (``mode``, ``cache``,
  ``immutable``, ``nolock``, ``psow``, ``vfs``, ``modeof``), which open the file as a
  SQLite URI (``sqlite3.connect(..., uri=True)``): ``sqlite:///chats.db?mode=ro`` and
  SQLAlchemy's ``sqlite:///file:chats.db?mode=ro&uri=true`` both open ``chats.db``
  read-only;
- a SQLite URI, ``file:chats.db?mode=ro``, opened with ``uri=True``.

Anything else (another database's URL, a host in a sqlite URL, an unknown query
parameter, a repeated one) is refused with :class:`~rag.errors.ValidationError` naming it.
SQLAlchemy, by contrast, drops SQLite parameters without ``uri=true`` (with a warning) and
opens the file read-write, and with ``uri=true`` opens ``chats.db?mode=ro``, a new file
of that name, unless the database part starts with ``file:``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Optional, Union
from urllib.parse import parse_qsl, quote, unquote, urlencode

from rag.errors import ValidationError

__all__ = ["SqliteTarget", "sqlite_target"]

#: SQLite's own URI parameters (https://www.sqlite.org/uri.html).
SQLITE_URI_PARAMETERS = ("mode", "cache", "immutable", "nolock", "psow", "vfs", "modeof")
#: SQLAlchemy's pysqlite driver options that mean something for a history.
DRIVER_OPTIONS = ("timeout", "uri", "check_same_thread")
DEFAULT_TIMEOUT = 30.0

_SQLITE_URL = re.compile(r"sqlite(\+(pysqlite|aiosqlite))?://", re.IGNORECASE)
_OTHER_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_TRUE, _FALSE = ("true", "yes", "on", "y", "t", "1"), ("false", "no", "off", "n", "f", "0")


@dataclass(frozen=True)
class SqliteTarget:
    """What to hand ``sqlite3.connect``: ``database`` (a path, ``:memory:`` or a ``file:``
    URI), ``uri`` (open ``database`` as a URI) and ``timeout`` (seconds a writer waits for
    the lock); ``folder``: the folder to make first, the parent of a file the open may
    create (None for memory, a ``file:`` URI as given, or a read-only or immutable open)."""

    database: str
    uri: bool = False
    timeout: float = DEFAULT_TIMEOUT
    folder: Optional[str] = None


def sqlite_target(connection: Union[str, "os.PathLike[str]"]) -> SqliteTarget:
    """The database ``connection`` names (see the module docstring for the forms)."""
    text = os.fspath(connection)
    if text.startswith("file:"):
        return _uri_target(text)
    url = _SQLITE_URL.match(text)
    if url is not None:
        return _url_target(text, text[url.end():])
    if _OTHER_URL.match(text):
        raise ValidationError(f"SQLChatMessageHistory stores in SQLite: give a file path, sqlite:///path or a "
                              f"file: URI, got {text!r}")
    return SqliteTarget(text, folder=_parent(text))


def _uri_target(text: str) -> SqliteTarget:
    _, _, query = text.partition("?")
    parameters = _parameters(query, text)
    unknown = sorted(set(parameters) - set(SQLITE_URI_PARAMETERS))
    if unknown:
        raise ValidationError(f"unknown SQLite URI parameter(s) {', '.join(unknown)} in {text!r}; SQLite's are "
                              f"{', '.join(SQLITE_URI_PARAMETERS)}")
    return SqliteTarget(text, uri=True)


def _url_target(text: str, rest: str) -> SqliteTarget:
    if rest and not rest.startswith(("/", "?")):
        raise ValidationError(f"a sqlite URL has no host: write sqlite:///relative/path or sqlite:////absolute/path, "
                              f"got {text!r}")
    path, _, query = rest[1:].partition("?") if rest.startswith("/") else ("", "", rest[1:])
    database = unquote(path) or ":memory:"
    parameters = _parameters(query, text)
    unknown = sorted(set(parameters) - set(SQLITE_URI_PARAMETERS) - set(DRIVER_OPTIONS))
    if unknown:
        raise ValidationError(f"unknown parameter(s) {', '.join(unknown)} in {text!r}; accepted: SQLite's URI "
                              f"parameters {', '.join(SQLITE_URI_PARAMETERS)} and the driver options "
                              f"{', '.join(DRIVER_OPTIONS)}")
    timeout = _timeout(parameters.pop("timeout", None), text)
    as_uri = _flag(parameters.pop("uri", "false"), "uri", text)
    _flag(parameters.pop("check_same_thread", "false"), "check_same_thread", text)
    if not parameters and not as_uri:
        return SqliteTarget(database, timeout=timeout, folder=_parent(database))
    if database == ":memory:":
        base, folder = "file::memory:", None
    elif database.startswith("file:"):
        base, folder = database, None
    else:
        base, folder = "file:" + quote(database, safe="/"), _parent(database)
    uri = f"{base}?{urlencode(parameters, safe=':/')}" if parameters else base
    may_create = parameters.get("mode", "rwc") == "rwc" and parameters.get("immutable", "0").lower() not in _TRUE
    return SqliteTarget(uri, uri=True, timeout=timeout, folder=folder if may_create else None)


def _parameters(query: str, text: str) -> dict[str, str]:
    pairs = parse_qsl(query, keep_blank_values=True)
    parameters = dict(pairs)
    if len(parameters) != len(pairs):
        repeated = sorted({key for key, _ in pairs if [k for k, _ in pairs].count(key) > 1})
        raise ValidationError(f"parameter(s) {', '.join(repeated)} given more than once in {text!r}")
    return parameters


def _flag(value: str, name: str, text: str) -> bool:
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ValidationError(f"{name} must be true or false in {text!r}, got {value!r}")


def _timeout(value: Union[str, None], text: str) -> float:
    if value is None:
        return DEFAULT_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise ValidationError(f"timeout must be a number of seconds >= 0 in {text!r}, got {value!r}")
    return seconds


def _parent(path: str) -> Optional[str]:
    return None if path == ":memory:" else os.path.dirname(path) or None
