"""The SQL of the SQLite store: schema, migrations and namespace conditions (no
connection here). Namespaces are stored dot-joined (labels cannot hold "."); a plain
prefix is matched with ``= OR GLOB`` (indexable, case-sensitive, stops at a label
boundary); a suffix or a ``"*"`` wildcard goes through a regular-expression function.

>>> _namespace_match_pattern(("uid", "*", "alice"), "prefix")
'^uid\\\\.[^.]+\\\\.alice(\\\\.|\\\\Z)'
"""

from __future__ import annotations

import re
from typing import Any, Optional, Sequence

from rag.graph.store.base import IndexConfig, ListNamespacesOp

__all__ = ["BaseSqliteStore", "SqliteIndexConfig", "NS_MATCH_FUNCTION", "MIGRATIONS"]

#: Schema steps, applied in order by ``setup()`` and recorded in ``store_migrations``
#: (never edit one: add a step).
MIGRATIONS = [
    """CREATE TABLE IF NOT EXISTS store (
    prefix TEXT NOT NULL,        -- the namespace, labels joined with '.'
    key TEXT NOT NULL,
    value TEXT NOT NULL,         -- JSON
    created_at TEXT NOT NULL,    -- ISO 8601, UTC
    updated_at TEXT NOT NULL,
    expires_at REAL,             -- unix seconds; NULL: never
    ttl_minutes REAL,
    PRIMARY KEY (prefix, key)
)""",
    "CREATE INDEX IF NOT EXISTS store_updated_idx ON store (updated_at)",
    "CREATE INDEX IF NOT EXISTS store_expires_idx ON store (expires_at) WHERE expires_at IS NOT NULL",
    """CREATE TABLE IF NOT EXISTS store_vectors (
    prefix TEXT NOT NULL,
    key TEXT NOT NULL,
    field_name TEXT NOT NULL,
    embedding BLOB NOT NULL,     -- float32 unit vector, little-endian
    PRIMARY KEY (prefix, key, field_name)
)""",
]

NS_MATCH_FUNCTION = "_rag_namespace_match"


class SqliteIndexConfig(IndexConfig, total=False):
    """:class:`~rag.graph.store.base.IndexConfig`, plus LangGraph SQLite's spellings:
    ``text_fields`` (read as ``fields``) and ``distance_type`` (only ``"cosine"``)."""

    text_fields: Optional[list[str]]
    distance_type: str


def namespace_match(prefix: Optional[str], pattern: str) -> int:
    """The SQL function :data:`NS_MATCH_FUNCTION`."""
    return 0 if prefix is None else int(re.search(pattern, prefix) is not None)


def _escape_glob_literal(text: str) -> str:
    """``text`` matched literally by GLOB (which has no ESCAPE clause: metacharacters go
    in a one-character class)."""
    return text.replace("[", "[[]").replace("*", "[*]").replace("?", "[?]")


def _namespace_match_pattern(path: Sequence[str], match_type: str) -> str:
    """A regular expression for a prefix or suffix of labels (``"*"``: any one label);
    ``\\Z``, not ``$``, so a label ending in a newline is not matched by one without."""
    body = r"\.".join(r"[^.]+" if label == "*" else re.escape(label) for label in path)
    return f"^{body}" + r"(\.|\Z)" if match_type == "prefix" else r"(^|\.)" + body + r"\Z"


def _namespace_to_text(namespace: Sequence[str]) -> str:
    return ".".join(namespace)


def _namespace_prefix_condition(prefix: Sequence[str], column: str = "prefix") -> tuple[str, list[Any]]:
    """The items at ``prefix`` or below it (``()``: every item)."""
    if not prefix:
        return "1", []
    text = _namespace_to_text(prefix)
    return f"({column} = ? OR {column} GLOB ?)", [text, _escape_glob_literal(text) + ".*"]


class BaseSqliteStore:
    """Builds the store's SQL (kept apart from running it, so it can be read and tested)."""

    MIGRATIONS = MIGRATIONS

    def _get_batch_list_namespaces_queries(self, ops: Sequence[tuple[int, ListNamespacesOp]]
                                           ) -> list[tuple[str, list[Any]]]:
        """One ``SELECT DISTINCT prefix`` per op, with its match conditions (max_depth,
        order and paging are applied to the decoded tuples)."""
        queries = []
        for _, op in ops:
            where, params = ["1"], []
            for condition in op.match_conditions or ():
                path = tuple(condition.path)
                if condition.match_type == "prefix" and "*" not in path:
                    clause, values = _namespace_prefix_condition(path)
                else:
                    clause, values = f"{NS_MATCH_FUNCTION}(prefix, ?)", [
                        _namespace_match_pattern(path, condition.match_type)]
                where.append(clause)
                params += values
            queries.append((f"SELECT DISTINCT prefix FROM store WHERE {' AND '.join(where)} "
                            "AND (expires_at IS NULL OR expires_at > ?)", params))
        return queries
