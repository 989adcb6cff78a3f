"""PostgreSQL full text over a PGVector collection: a generated ``tsvector`` column with a
GIN index, and the statements that rank stored texts by ``ts_rank`` against a few words.

The words travel as one bound parameter (:func:`tsquery`); only the text search
configuration (``language``) and ``k`` are literals, quoted by psycopg.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from stores._pg_schema import LOCK_KEY
from stores._pg_sql import table_name

__all__ = ["enable_full_text", "scores_statement", "search_statement", "tsquery"]


def enable_full_text(conn: "psycopg.Connection", collection: str, language: str) -> None:
    """Add a generated ``lexemes`` tsvector column (``language``: a PostgreSQL text search
    configuration) and its GIN index, unless there are already."""
    table = sql.Identifier(table_name(collection))
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (LOCK_KEY,))
        conn.execute(sql.SQL(
            "ALTER TABLE {} ADD COLUMN IF NOT EXISTS lexemes tsvector GENERATED ALWAYS AS "
            "(to_tsvector({}::regconfig, document)) STORED").format(table, sql.Literal(language)))
        conn.execute(sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} USING gin (lexemes)").format(
            sql.Identifier(table_name(collection) + "_fts"), table))


def scores_statement(table: sql.Identifier, language: str) -> sql.Composed:
    """``id, ts_rank`` of the rows whose id is in the second parameter (a list), against the
    tsquery of the first; rows matching none of the words rank 0."""
    return sql.SQL("SELECT id, ts_rank(lexemes, q, 1) FROM {}, to_tsquery({}::regconfig, %s) AS q "
                   "WHERE id = ANY(%s)").format(table, sql.Literal(language))


def search_statement(table: sql.Identifier, language: str, where: sql.Composable, k: int) -> sql.Composed:
    """``id, document, metadata, rank`` of the ``k`` rows matching the tsquery (the first
    parameter) and ``where`` (its parameters follow), best rank first, ties by id."""
    return sql.SQL(
        "SELECT id, document, metadata, ts_rank(lexemes, q, 1) AS rank FROM {}, "
        "to_tsquery({}::regconfig, %s) AS q WHERE lexemes @@ q AND ({}) ORDER BY rank DESC, id LIMIT {}"
    ).format(table, sql.Literal(language), where, sql.Literal(k))


def tsquery(words: list[str]) -> str:
    """``words`` as one tsquery (bound as one parameter): each quoted as a literal, joined by OR."""
    return " | ".join("'" + word.replace("'", "''").replace("\\", "") + "'" for word in words)
