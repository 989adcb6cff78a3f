"""The tables of a PGVector collection in PostgreSQL (DDL), and the connection that reaches them.

- ``rag_collections``: one row a collection (name, table, dimension, embedding model,
  distance, and a jsonb ``config`` of settings such as the HNSW parameters).
- One table a collection: ``id text primary key, document text, metadata jsonb,
  embedding vector(d)``; optionally an HNSW index on ``embedding`` (and the full-text
  column of :mod:`stores._pg_fulltext`).

Creating and dropping take one advisory lock (:data:`LOCK_KEY`) inside their transaction,
so that processes creating the same collection at once serialise instead of racing.
Every statement here runs on a connection the caller holds (under its lock); the checks of
what a collection holds against the store's embeddings stay with :class:`stores.pgvector.PGVector`.
"""

from __future__ import annotations

import json
from typing import Any, Optional

import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql

from rag.errors import StoreConnectionError
from stores._pg_sql import redact_uri, table_name

__all__ = ["REGISTRY", "LOCK_KEY", "connect", "registry_row", "create_table", "create_hnsw_index",
           "drop_collection", "collection_config", "merge_collection_config"]

REGISTRY = sql.SQL("""CREATE TABLE IF NOT EXISTS rag_collections (
    name text PRIMARY KEY, table_name text NOT NULL, dimension integer, model_id text,
    distance_strategy text NOT NULL, config jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL DEFAULT now())""")
LOCK_KEY = "rag-collections"  # advisory lock serialising collection creation across processes


def connect(uri: str, timeout: int) -> "psycopg.Connection":
    """An autocommit connection to ``uri`` (within ``timeout`` seconds) with the pgvector
    extension created if missing and its types registered; StoreConnectionError otherwise,
    naming the server without its password."""
    where = redact_uri(uri)
    try:
        conn = psycopg.connect(uri, connect_timeout=timeout, autocommit=True)
    except psycopg.Error as exc:
        reason = redact_uri((str(exc).strip().splitlines() or ["no reason given"])[-1])  # libpq may quote the URI
        raise StoreConnectionError(f"cannot connect to PostgreSQL at {where}: {reason}") from None
    try:
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        register_vector(conn)
    except psycopg.Error as exc:
        conn.close()
        raise StoreConnectionError(
            f"PostgreSQL at {where} lacks the pgvector extension and it could not be created "
            f"({str(exc).strip().splitlines()[0]}); run CREATE EXTENSION vector as a superuser") from None
    return conn


def registry_row(conn: "psycopg.Connection", collection: str) -> Optional[tuple[Optional[int], Optional[str], dict]]:
    """The collection's (dimension, model id, config), creating the registry table if
    missing; None when the collection has no record yet."""
    conn.execute(REGISTRY)
    return conn.execute(
        "SELECT dimension, model_id, config FROM rag_collections WHERE name = %s", (collection,)).fetchone()


def _hnsw_index(conn: "psycopg.Connection", collection: str, m: int, ef_construction: int) -> None:
    conn.execute(sql.SQL(
        "CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw (embedding vector_cosine_ops) "
        "WITH (m = {}, ef_construction = {})").format(
            sql.Identifier(table_name(collection) + "_hnsw"), sql.Identifier(table_name(collection)),
            sql.Literal(m), sql.Literal(ef_construction)))


def create_table(conn: "psycopg.Connection", collection: str, dimension: int, *, model: Optional[str],
                 distance: str, config: dict[str, Any]) -> int:
    """Create the collection's table of ``dimension``-long vectors (with the HNSW index
    when ``config["hnsw"]``) and its record, in one transaction, unless another process
    has meanwhile: the dimension the collection has (``dimension`` when this call made it)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (LOCK_KEY,))
        row = conn.execute("SELECT dimension FROM rag_collections WHERE name = %s", (collection,)).fetchone()
        if row is not None:  # created meanwhile by another process
            return int(row[0])
        conn.execute(sql.SQL(
            "CREATE TABLE {} (id text PRIMARY KEY, document text NOT NULL, metadata jsonb NOT NULL, "
            "embedding vector({}) NOT NULL)").format(sql.Identifier(table_name(collection)), sql.Literal(dimension)))
        if config["hnsw"]:
            _hnsw_index(conn, collection, config["hnsw_m"], config["hnsw_ef_construction"])
        conn.execute(
            "INSERT INTO rag_collections (name, table_name, dimension, model_id, distance_strategy, config) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            (collection, table_name(collection), dimension, model, distance, json.dumps(config)))
    return dimension


def create_hnsw_index(conn: "psycopg.Connection", collection: str, m: int, ef_construction: int) -> None:
    """Build the HNSW index (``m``, ``ef_construction``) over the table and record it; a
    no-op for the index when it exists."""
    with conn.transaction():
        _hnsw_index(conn, collection, m, ef_construction)
        merge_collection_config(conn, collection, {"hnsw": True, "hnsw_m": m, "hnsw_ef_construction": ef_construction})


def drop_collection(conn: "psycopg.Connection", collection: str) -> None:
    """Drop the collection's table and record (nothing when there are none)."""
    with conn.transaction():
        conn.execute(REGISTRY)
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (LOCK_KEY,))
        conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(table_name(collection))))
        conn.execute("DELETE FROM rag_collections WHERE name = %s", (collection,))


def collection_config(conn: "psycopg.Connection", collection: str) -> dict[str, Any]:
    """The JSON settings recorded with the collection ({} without a record)."""
    row = conn.execute("SELECT config FROM rag_collections WHERE name = %s", (collection,)).fetchone()
    return dict(row[0]) if row else {}


def merge_collection_config(conn: "psycopg.Connection", collection: str, values: dict[str, Any]) -> None:
    """Merge ``values`` (JSON data) into the collection's recorded settings."""
    conn.execute("UPDATE rag_collections SET config = config || %s::jsonb WHERE name = %s",
                 (json.dumps(values), collection))

