"""One connection to a Milvus server, and Milvus's errors as the toolkit's.

pymilvus keeps connections in a process-wide registry under an alias; each store takes
its own alias (a uuid), so closing one store never closes another's connection. The URI
may carry ``user:password@`` and a ``token`` may be given (``user:password`` or an API
key of a managed Milvus); neither ever appears in a message: :attr:`MilvusConnection.where`
is the URI without them.
"""

from __future__ import annotations

import uuid
import warnings
from contextlib import contextmanager
from typing import Any, Iterator, Optional

from rag.errors import StoreConnectionError, ValidationError
from stores._uri import redact_uri

with warnings.catch_warnings():  # pymilvus 2.3 imports pkg_resources, which warns on import
    warnings.simplefilter("ignore", UserWarning)
    from pymilvus import MilvusException, connections, utility
    from pymilvus.exceptions import MilvusUnavailableException

__all__ = ["MilvusConnection", "CONSISTENCY_LEVELS", "DEFAULT_URI"]

CONSISTENCY_LEVELS = ("Strong", "Session", "Bounded", "Eventually")
DEFAULT_URI = "http://localhost:19530"
_UNAVAILABLE = (14, 4)  # gRPC UNAVAILABLE, DEADLINE_EXCEEDED


def _reason(exc: BaseException) -> str:
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return " ".join(str(message).split())[:300]


class MilvusConnection:
    """A connection under its own alias; use :meth:`open`."""

    def __init__(self, alias: str, where: str) -> None:
        self.alias, self.where = alias, where

    @classmethod
    def open(cls, connection_args: dict[str, Any], *, uri: Optional[str], token: Optional[str],
             timeout: float) -> "MilvusConnection":
        """Connect within ``timeout`` seconds, or raise StoreConnectionError in one line."""
        args = dict(connection_args)
        if uri is not None:
            args["uri"] = uri
        if token is not None:
            args["token"] = token
        if not any(args.get(key) for key in ("uri", "address", "host")):
            args["uri"] = DEFAULT_URI
        target = str(args.get("uri") or args.get("address") or f"{args.get('host')}:{args.get('port', 19530)}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ValidationError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if args.get("uri") is not None and (not isinstance(args["uri"], str) or "://" not in args["uri"]):
            raise ValidationError(
                f"the Milvus URI must look like http://host:19530 or https://host, got {redact_uri(str(args['uri']))!r:.80}")
        connection = cls(f"rag-{uuid.uuid4().hex}", redact_uri(target))
        try:
            connections.connect(alias=connection.alias, timeout=timeout, **args)
        except MilvusException as exc:
            connections.remove_connection(connection.alias)
            reason = _reason(exc)
            if "Timeout" in reason or "Fail connecting" in reason:
                reason = f"no Milvus server answered within {timeout:g} s"
            raise StoreConnectionError(f"cannot connect to Milvus at {connection.where}: {redact_uri(reason)}") from None
        except Exception as exc:  # pymilvus raises bare exceptions for malformed addresses
            connections.remove_connection(connection.alias)
            raise StoreConnectionError(f"cannot connect to Milvus at {connection.where}: {redact_uri(_reason(exc))}") from None
        return connection

    def has_collection(self, name: str) -> bool:
        return bool(utility.has_collection(name, using=self.alias))

    def server_version(self) -> str:
        with self.calls("asking the server's version"):
            return str(utility.get_server_version(using=self.alias))

    @contextmanager
    def calls(self, doing: str) -> Iterator[None]:
        """Map Milvus's errors raised while ``doing`` to StoreConnectionError (the server
        is gone) or ValidationError (it refused the request), naming the server."""
        try:
            yield
        except MilvusUnavailableException as exc:
            raise StoreConnectionError(f"lost the connection to Milvus at {self.where} while {doing}: {_reason(exc)}") from None
        except MilvusException as exc:
            if getattr(exc, "code", None) in _UNAVAILABLE or "UNAVAILABLE" in str(exc):
                raise StoreConnectionError(
                    f"lost the connection to Milvus at {self.where} while {doing}: {_reason(exc)}") from None
            raise ValidationError(f"Milvus at {self.where} refused {doing}: {_reason(exc)}") from exc

    def close(self) -> None:
        connections.disconnect(self.alias)
        connections.remove_connection(self.alias)
