"""One connection to a Milvus server, and Milvus's errors as the toolkit's.

pymilvus keeps connections in a process-wide registry under an alias; each store takes
its own alias (a uuid), so closing one store never closes another's connection. The URI
may carry ``user:password@`` and a ``token`` may be given (``user:password`` or an API
key of a managed Milvus); neither ever appears in a message: :attr:`MilvusConnection.where`
is the URI without them.
"""

from __future__ import annotations

import time
import uuid
import warnings
from contextlib import contextmanager
from typing import Any, Iterator, Optional, Sequence

from rag.errors import StoreConnectionError, ValidationError
from stores._milvus_expr import string_literal
from stores._uri import redact_uri

with warnings.catch_warnings():  # pymilvus 2.3 imports pkg_resources, which warns on import
    warnings.simplefilter("ignore", UserWarning)
    from pymilvus import MilvusException, connections, utility
    from pymilvus.exceptions import MilvusUnavailableException

__all__ = ["MilvusConnection", "CONSISTENCY_LEVELS", "DEFAULT_URI"]

CONSISTENCY_LEVELS = ("Strong", "Session", "Bounded", "Eventually")
DEFAULT_URI = "http://localhost:19530"
_UNAVAILABLE = (14, 4)  # gRPC UNAVAILABLE, DEADLINE_EXCEEDED
_GROWING = 2  # SegmentState.Growing in Milvus's protocol


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

    def load(self, collection: Any, timeout: float = 600, *, index_params: Optional[dict[str, Any]] = None,
             wait: bool = True) -> None:
        """Load ``collection`` (a no-op when it is) and, with ``wait``, wait until it is,
        polling every 50 ms (pymilvus's own wait polls every 500 ms).

        With ``index_params``, first give the ``vector`` field that index when the
        collection has none. Another process creating the collection at the same moment
        can have made it without its index yet (Milvus then refuses to load it) or be
        making the index (ours is then refused): both pass within moments, so Milvus's
        refusals are tried again every 0.1 s, for 5 s at most."""
        for attempt in range(50):
            try:
                if index_params is not None and not collection.indexes:
                    collection.create_index("vector", index_params, sync=False)  # nothing to build yet
                collection.load(_async=True)
                break
            except MilvusUnavailableException:
                raise
            except MilvusException:
                if index_params is None or attempt == 49:
                    raise
                time.sleep(0.1)
        deadline = time.monotonic() + timeout
        while wait and utility.loading_progress(collection.name, using=self.alias)["loading_progress"] != "100%":
            if time.monotonic() > deadline:
                raise ValidationError(f"Milvus at {self.where} did not load {collection.name!r} within {timeout:g} s")
            time.sleep(0.05)

    def wait_until_indexed(self, name: str, timeout: float) -> None:
        """Wait (up to ``timeout`` seconds) until the index of collection ``name`` covers
        its sealed rows and the query node holds the indexed segments."""
        deadline = time.monotonic() + timeout
        utility.wait_for_index_building_complete(name, using=self.alias, timeout=timeout)
        # The query node then swaps the growing segments (searched through a coarse
        # interim index) for the sealed, indexed ones: until then recall stays low.
        indexed = utility.index_building_progress(name, using=self.alias)["total_rows"]
        while sum(segment.num_rows for segment in utility.get_query_segment_info(name, using=self.alias)
                  if segment.state != _GROWING) < indexed:
            if time.monotonic() > deadline:
                raise ValidationError(f"the index of {name!r} was not in use after {timeout:g} s")
            time.sleep(0.05)

    def scan(self, collection: Any, fields: Sequence[str], expr: str = "", *, key: str = "id",
             batch: int = 4096, level: str = "Strong") -> Iterator[list[dict[str, Any]]]:
        """Every row of ``collection`` matching ``expr`` (all rows when empty), ``fields``
        and ``key`` (its VARCHAR primary key), in
        pages of ``batch`` rows by ascending key.

        The first page is read at ``level``; the others at "Eventually", which the query
        node serves at a time no earlier than the first page's: with "Strong", the scan sees
        every write acknowledged before it began (and possibly some made during it)
        without waiting for a time tick per page."""
        last, first = None, True
        while True:
            where = [f"({expr})"] if expr else []
            where.append(f"{key} > {string_literal(last, 'the key')}" if last is not None else f'{key} != ""')
            with self.calls(f"reading collection {collection.name!r}"):
                rows = collection.query(" and ".join(where), output_fields=[key, *fields], limit=batch,
                                        consistency_level=level if first else "Eventually")
            first = False
            if rows:
                rows.sort(key=lambda row: row[key])
                yield rows
                last = rows[-1][key]
            if len(rows) < batch:
                return

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
