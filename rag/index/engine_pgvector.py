"""A shared index's parts in PostgreSQL (``rag index --store pgvector --store-uri URI``).

- Chunks: a :class:`stores.pgvector.PGVector` collection.
- Lexical side: PostgreSQL's own full-text search, over a generated ``tsvector`` column
  with a GIN index that the database keeps in step with every write, in the same
  transaction (``bm25`` searches rank by ``ts_rank`` normalised by length, not BM25).
- Record: table ``rag_index_sources`` (content hash and chunk ids per source).
- Configuration: in the collection's record (``rag_collections.config``).
- Updates are serialised across processes and machines by an advisory lock.

Credentials come from the URI, ``PGPASSWORD`` or ``~/.pgpass``.
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, Optional, Sequence

from rag.documents import Document
from rag.errors import ValidationError
from rag.index.backend import ATOMIC_COMMIT
from rag.index.engine import SourceRecord

if TYPE_CHECKING:  # the pgvector extra, imported when an engine is made
    import psycopg

    from rag.embeddings.base import Embeddings
    from stores.pgvector import PGVector

__all__ = ["PGVectorEngine"]

_SOURCES = """CREATE TABLE IF NOT EXISTS rag_index_sources (
    collection text NOT NULL, source text NOT NULL, root text NOT NULL, content_hash text NOT NULL,
    chunk_ids jsonb NOT NULL, PRIMARY KEY (collection, source))"""
# Title, and a file's stat and read time (what lets an update skip reading it): added to
# tables made before they were kept.
_DETAILS = "ALTER TABLE rag_index_sources ADD COLUMN IF NOT EXISTS details jsonb NOT NULL DEFAULT '{}'::jsonb"
_WORD = re.compile(r"\w+")


class PGVectorEngine:
    """The :class:`~rag.index.engine.IndexEngine` of PostgreSQL + pgvector (see the module docstring)."""

    store_name = "pgvector"
    description = "PGVector + PostgreSQL full-text search"
    exact_bm25 = False
    capabilities: frozenset[str] = frozenset({ATOMIC_COMMIT})

    def __init__(self, uri: str, *, collection: str, token: Optional[str] = None) -> None:
        from stores.pgvector import PGVector

        if token is not None:
            raise ValidationError("a token is for Milvus; PostgreSQL takes its password from the URI, "
                                  "$PGPASSWORD or ~/.pgpass")
        self.uri, self.collection = uri, collection
        self.store: PGVector = PGVector(None, connection=uri, collection_name=collection)  # until open_store
        self._full_text_ready = False
        self._table_ready = False

    @property
    def where(self) -> str:
        return f"{self.store.where} (collection {self.collection})"

    def read_config(self) -> Optional[dict[str, Any]]:
        return self.store.collection_config().get("index")

    def open_store(self, embeddings: Embeddings) -> PGVector:
        from stores.pgvector import PGVector

        self.store.close()
        self.store = PGVector(embeddings, connection=self.uri, collection_name=self.collection)
        return self.store

    def _execute(self, query: str, params: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        with self.store.connection_lock:
            return self.store.connection.execute(query, params)

    def _ensure_table(self) -> None:
        if not self._table_ready:
            with self.store.connection_lock:
                self.store.connection.execute(_SOURCES)
                self.store.connection.execute(_DETAILS)
            self._table_ready = True

    def records(self) -> dict[str, SourceRecord]:
        self._ensure_table()
        with self.store.connection_lock:
            rows = self.store.connection.execute(
                "SELECT source, root, content_hash, chunk_ids, details FROM rag_index_sources WHERE collection = %s",
                (self.collection,)).fetchall()
        return {source: SourceRecord.from_json({**details, "root": root, "hash": content_hash, "chunks": ids})
                for source, root, content_hash, ids, details in rows}

    def save_record(self, source: str, record: SourceRecord) -> None:
        self._ensure_table()
        row = record.to_json()
        details = {key: row[key] for key in ("title", "stat", "read_at", "plan") if key in row}
        with self.store.connection_lock, self.store.connection.transaction():
            self.store.connection.execute(
                "INSERT INTO rag_index_sources (collection, source, root, content_hash, chunk_ids, details) VALUES "
                "(%s, %s, %s, %s, %s, %s) ON CONFLICT (collection, source) DO UPDATE SET root = EXCLUDED.root, "
                "content_hash = EXCLUDED.content_hash, chunk_ids = EXCLUDED.chunk_ids, details = EXCLUDED.details",
                (self.collection, source, record.root, record.content_hash, json.dumps(record.chunk_ids),
                 json.dumps(details)))

    def held_chunk_ids(self, source: str, record: SourceRecord) -> list[str]:
        return list(record.chunk_ids)  # updates are serialised: the record names every chunk

    def forget_record(self, source: str) -> None:
        self._execute("DELETE FROM rag_index_sources WHERE collection = %s AND source = %s", (self.collection, source))

    @contextmanager
    def updating(self) -> Iterator[None]:
        """An advisory lock per collection: one update at a time, on every machine."""
        key = f"rag-index:{self.collection}"
        self._execute("SELECT pg_advisory_lock(hashtext(%s))", (key,))
        try:
            yield
        finally:
            self._execute("SELECT pg_advisory_unlock(hashtext(%s))", (key,))

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction around a commit: its chunks and the records naming them are
        seen by other connections together, or not at all. A rolled-back first commit
        takes the chunks' table (and its full-text column) with it: both are made again
        by the next."""
        full_text_ready = self._full_text_ready
        try:
            with self.store.transaction():
                yield
        except BaseException:
            self._full_text_ready = full_text_ready
            raise

    def chunks_changing(self) -> None:
        pass  # the full-text column changes in the chunks' own transaction

    def chunks_changed(self) -> None:
        if not self._full_text_ready and self.store.dimension is not None:
            # The first chunks of a new index created the table; the column is kept in step by the database.
            self.store.enable_full_text()
            self._full_text_ready = True

    def save_config(self, config: dict[str, Any]) -> None:
        self.store.enable_full_text()  # idempotent: a collection filled before had none
        self.store.update_collection_config({"index": config})

    def lexical_search(self, query: str, k: int, filter: Any) -> list[tuple[Document, float]]:
        return self.store.full_text_search(_WORD.findall(query.lower()), k, filter)

    def lexical_scores(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        return self.store.full_text_scores(_WORD.findall(query.lower()), list(ids))

    def size_bytes(self) -> int:
        if not self.store.dimension:
            return 0
        row = self._execute("SELECT coalesce(pg_total_relation_size(to_regclass(%s)), 0)",
                            (self.store.table_name,)).fetchone()
        return int(row[0]) if row is not None else 0  # SELECT of an expression: always one row

    def close(self) -> None:
        self.store.close()


if TYPE_CHECKING:  # the type checker holds the engine to the protocol the backend uses
    from rag.index.engine import IndexEngine

    _engine: type[IndexEngine] = PGVectorEngine
