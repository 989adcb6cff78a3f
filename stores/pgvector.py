"""PGVector: a vector store in PostgreSQL with the pgvector extension (extra ``pgvector``).

Each collection is one table (``id text primary key, document text, metadata jsonb,
embedding vector(d)``), named in the ``rag_collections`` table together with the
embedding model, the dimension and the distance. The engine owns the documents: nothing
is kept in this process but a connection, so several processes (or machines) can add to
and search one collection at once.

- Search is exact by default (a sequential scan); ``hnsw=True`` builds an HNSW index
  (``hnsw_m``, ``hnsw_ef_construction``) and searches it with ``ef_search`` and
  pgvector's iterative scan, so filtered searches still fill ``k`` when enough match.
  :meth:`PGVector.create_hnsw_index` builds it after a bulk load instead (faster).
- ``similarity_search_with_score`` returns the cosine distance (lower is better, as
  LangChain's PGVector); relevance is ``clip(1 - distance, 0, 1)``, the clipped cosine.
- Re-adding an id replaces it (an upsert); each write is one transaction, so a failure
  writes nothing.
- Filters are the dict language of :mod:`stores.filters`, translated to SQL over the jsonb
  metadata with bound parameters only (:mod:`stores._pg_sql`); a Python callable is
  refused (``supports_callable_filter = False``): the filter runs in the database.
- Metadata must be JSON (string keys; no NaN, dates or sets) and texts without NUL
  characters: anything else is refused before the write, naming the value.
- ``connection``: a libpq URI or ``key=value`` string, Unix sockets included
  (``postgresql://user@/db?host=/run/postgresql``); SQLAlchemy's ``postgresql+psycopg://``
  is accepted. Passwords come from the URI, ``PGPASSWORD`` or ``~/.pgpass`` (libpq's own
  rules) and never appear in messages.

>>> store = PGVector(embeddings, connection="postgresql://me@/mydb?host=/tmp", collection_name="docs")  # doctest: +SKIP
>>> store.add_texts(["cats purr"], [{"topic": "cats"}], ids=["c"])  # doctest: +SKIP
['c']
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, ClassVar, Iterator, Literal, Optional, Union

import numpy as np

from rag._optional import require_installed
from rag.documents import Document
from rag.embeddings.base import model_id_of
from rag.errors import EmbeddingMismatchError, StoreConnectionError, ValidationError
from stores.base import VectorStore
from stores.filters import Expr
from stores.scoring import DistanceStrategy, relevance_from_cosine

require_installed(("psycopg", "pgvector"), feature="stores.pgvector", extra="pgvector")

import psycopg  # noqa: E402
from psycopg import sql  # noqa: E402

from stores import _pg_fulltext as fulltext  # noqa: E402
from stores import _pg_schema as schema  # noqa: E402
from stores._pg_sql import check_text, copy_rows, metadata_json, redact_uri, table_name, where_clause  # noqa: E402

__all__ = ["PGVector"]


def _check_positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError(f"{name} must be a positive int, got {value!r}")
    return value


class PGVector(VectorStore):
    """A vector store on PostgreSQL + pgvector, with LangChain's API (see the module docstring).

    ``embeddings``: the embeddings object (LangChain's first argument). ``connection``: the
    database URI. ``collection_name``: default ``"langchain"``, as LangChain's.
    ``embedding_length``: the dimension, when known before the first add.
    ``pre_delete_collection``: drop the collection first. ``hnsw``: build an HNSW index
    (``hnsw_m`` default 16, ``hnsw_ef_construction`` default 64); ``ef_search`` (default 40)
    is the search breadth. ``connect_timeout``: seconds, default 5.
    """

    supports_callable_filter: ClassVar[bool] = False
    callable_filter_receives: ClassVar[Literal["metadata", "document"]] = "metadata"
    distance_strategy: ClassVar[DistanceStrategy] = DistanceStrategy.COSINE

    def __init__(
        self,
        embeddings: Any = None,
        *,
        connection: str,
        collection_name: str = "langchain",
        embedding_length: Optional[int] = None,
        distance_strategy: Union[DistanceStrategy, str] = DistanceStrategy.COSINE,
        pre_delete_collection: bool = False,
        hnsw: bool = False,
        hnsw_m: int = 16,
        hnsw_ef_construction: int = 64,
        ef_search: int = 40,
        connect_timeout: int = 5,
        embedding: Any = None,
    ) -> None:
        if embedding is not None and embeddings is not None and embedding is not embeddings:
            raise ValidationError("pass the embeddings once, as embeddings or as embedding, not both")
        super().__init__(embeddings if embeddings is not None else embedding)
        if DistanceStrategy(distance_strategy) != DistanceStrategy.COSINE:
            raise ValidationError(f"PGVector supports distance_strategy COSINE only, got {distance_strategy!r}")
        if not isinstance(collection_name, str) or not collection_name:
            raise ValidationError(f"collection_name must be a non-empty str, got {collection_name!r}")
        if not isinstance(connection, str) or not connection:
            raise ValidationError(f"connection must be a PostgreSQL URI such as postgresql://user@host/db, got {connection!r:.60}")
        self.collection_name = collection_name
        self.hnsw = bool(hnsw)
        self.hnsw_m = _check_positive(hnsw_m, "hnsw_m")
        self.hnsw_ef_construction = _check_positive(hnsw_ef_construction, "hnsw_ef_construction")
        self.ef_search = _check_positive(ef_search, "ef_search")
        self._uri = connection.replace("postgresql+psycopg://", "postgresql://", 1)
        self._table = sql.Identifier(table_name(collection_name))
        self._conn_lock = threading.RLock()
        self._session_ef: Optional[int] = None  # the hnsw.ef_search this connection has set
        self._conn = self._connect(_check_positive(connect_timeout, "connect_timeout"))
        if pre_delete_collection:
            self.delete_collection()
        self._open_collection(None if embedding_length is None else _check_positive(embedding_length, "embedding_length"))

    # ------------------------------------------------------------------ connection

    @property
    def where(self) -> str:
        """The connection URI without its password (safe to print)."""
        return redact_uri(self._uri)

    def _connect(self, timeout: int) -> "psycopg.Connection":
        return schema.connect(self._uri, timeout)

    @contextmanager
    def _session(self) -> Iterator["psycopg.Connection"]:
        """The connection, under its lock; a lost connection becomes a StoreConnectionError."""
        with self._conn_lock:
            try:
                yield self._conn
            except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
                reason = (str(exc).strip().splitlines() or ["connection closed"])[0]
                raise StoreConnectionError(f"lost the connection to PostgreSQL at {self.where}: {reason}") from None

    def close(self) -> None:
        """Close the connection (the data stays in the database)."""
        self._conn.close()

    def __enter__(self) -> "PGVector":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ the collection

    def _open_collection(self, dimension: Optional[int]) -> None:
        """Read the collection's record (model, dimension) and check it against ours."""
        with self._session() as conn:
            row = schema.registry_row(conn, self.collection_name)
        if row is None:
            if dimension is not None:
                self._create_table(dimension)
            return
        stored_dimension, stored_model, config = row
        model = model_id_of(self._embedding) if self._embedding is not None else None
        if model is not None and stored_model is not None and model != stored_model:
            raise EmbeddingMismatchError(
                f"collection {self.collection_name!r} at {self.where} was built with {stored_model}, not {model}; "
                "use the same embeddings or another collection_name")
        for wanted in (dimension, getattr(self._embedding, "dimension", None)):
            if wanted is not None and stored_dimension is not None and wanted != stored_dimension:
                raise EmbeddingMismatchError(
                    f"collection {self.collection_name!r} at {self.where} holds vectors of dimension "
                    f"{stored_dimension}, not {wanted}; use the same embeddings or another collection_name")
        self._dimension = stored_dimension
        if self.hnsw and not config.get("hnsw"):
            self.create_hnsw_index()
        self.hnsw = bool(config.get("hnsw")) or self.hnsw  # an index built by anyone serves every store

    def create_hnsw_index(self) -> None:
        """Build the HNSW index over the vectors already stored (faster than adding into
        an indexed table) and search with it from now on; a no-op when it exists."""
        if self._dimension is None:
            raise ValidationError("the collection has no vectors yet: add some first, or pass hnsw=True when creating it")
        with self._lock, self._session() as conn:
            schema.create_hnsw_index(conn, self.collection_name, self.hnsw_m, self.hnsw_ef_construction)
        self.hnsw = True

    def _create_table(self, dimension: int) -> None:
        """Create the table (and its record) if no other process has yet."""
        model = model_id_of(self._embedding) if self._embedding is not None else None
        config = {"hnsw": self.hnsw, "hnsw_m": self.hnsw_m, "hnsw_ef_construction": self.hnsw_ef_construction}
        with self._session() as conn:
            stored = schema.create_table(conn, self.collection_name, dimension, model=model,
                                         distance=self.distance_strategy.value, config=config)
        if stored != dimension:  # created meanwhile by another process, for other vectors
            raise EmbeddingMismatchError(
                f"collection {self.collection_name!r} holds vectors of dimension {stored}, not {dimension}")
        self._dimension = dimension

    def delete_collection(self) -> None:
        """Drop the collection's table and record (LangChain's name)."""
        with self._lock, self._session() as conn:
            schema.drop_collection(conn, self.collection_name)
            self._dimension = None

    # ------------------------------------------------------------------ for an index kept beside the collection

    @property
    def connection(self) -> "psycopg.Connection":
        """The psycopg connection (autocommit), for code that keeps its own tables beside
        the collection (:mod:`rag.index.shared`); hold :attr:`connection_lock` around use."""
        return self._conn

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction around several calls of this thread (their own transactions
        nest in it as savepoints), holding :attr:`connection_lock`. If it rolls back, so
        does a table the collection's first write created in it, and this store forgets
        that table too (it would otherwise query a table that is not there)."""
        dimension = self._dimension
        try:
            with self._session(), self._conn.transaction():
                yield
        except BaseException:
            self._dimension = dimension
            raise

    @property
    def connection_lock(self) -> threading.RLock:
        return self._conn_lock

    @property
    def table_name(self) -> str:
        """The collection's table (lower-case letters, digits and underscores)."""
        return table_name(self.collection_name)

    def collection_config(self) -> dict[str, Any]:
        """The JSON settings recorded with the collection ({} before its first add)."""
        with self._session() as conn:
            return schema.collection_config(conn, self.collection_name)

    def update_collection_config(self, values: dict[str, Any]) -> None:
        """Merge ``values`` (JSON data) into the collection's recorded settings."""
        if self._dimension is None:
            raise ValidationError("the collection has no table yet: add documents first")
        with self._session() as conn:
            schema.merge_collection_config(conn, self.collection_name, values)

    def enable_full_text(self, language: str = "english") -> None:
        """Keep a ``tsvector`` of each text (a generated column with a GIN index) for
        :meth:`full_text_search`; a no-op when there already is one."""
        if self._dimension is None:
            raise ValidationError("the collection has no table yet: add documents first")
        with self._lock, self._session() as conn:
            fulltext.enable_full_text(conn, self.collection_name, language)

    def full_text_scores(self, words: list[str], ids: list[str], language: str = "english") -> dict[str, float]:
        """id -> the ``ts_rank`` :meth:`full_text_search` would give each stored document of
        ``ids`` (0 for one matching none of ``words``; absent ids left out): one statement."""
        if self._dimension is None or not words or not ids:
            return {}
        with self._session() as conn:
            rows = conn.execute(fulltext.scores_statement(self._table, language), [fulltext.tsquery(words), ids]).fetchall()
        return {doc_id: float(rank) for doc_id, rank in rows}

    def full_text_search(self, words: list[str], k: int, filter: Any = None,
                         language: str = "english") -> list[tuple[Document, float]]:
        """The ``k`` documents matching any of ``words`` best by PostgreSQL's ``ts_rank``
        normalised by the log of the document's length (needs :meth:`enable_full_text`),
        with that rank; ``filter`` as for searches. It has no IDF: on SciFact its nDCG@10
        is 0.598 where BM25's is 0.686 (``ts_rank_cd``: 0.372; see docs/benchmarks/postgres.md)."""
        expr = self._parsed_filter(filter)
        if self._dimension is None or not words:
            return []
        where, params = (sql.SQL("true"), []) if expr is None else where_clause(expr)
        query = fulltext.search_statement(self._table, language, where, k)
        with self._session() as conn:
            rows = conn.execute(query, [fulltext.tsquery(words), *params]).fetchall()
        return [(Document._unchecked(document, metadata, doc_id), float(rank)) for doc_id, document, metadata, rank in rows]

    def _query(self, query: Any, params: Any = ()) -> list[tuple]:
        """Rows of a read; no rows when the collection has no table yet."""
        if self._dimension is None:
            return []
        with self._session():
            return self._conn.execute(query, params).fetchall()

    # ------------------------------------------------------------------ engine primitives

    def _write(self, ids: list[str], texts: list[str], metadatas: list[dict[str, Any]], vectors: np.ndarray) -> None:
        # Everything that PostgreSQL would refuse is checked before the transaction starts.
        rows = []
        for position, (doc_id, text, metadata) in enumerate(zip(ids, texts, metadatas)):
            check_text(text, f"texts[{position}]")
            check_text(doc_id, f"ids[{position}]")
            rows.append((doc_id, text, metadata_json(metadata, position)))
        if self._dimension is None:
            self._create_table(int(vectors.shape[1]))
        with self._session(), self._conn.transaction():
            self._conn.execute("CREATE TEMP TABLE incoming (id text, document text, metadata jsonb, embedding vector) "
                               "ON COMMIT DROP")
            with self._conn.cursor().copy(
                    "COPY incoming (id, document, metadata, embedding) FROM STDIN (FORMAT BINARY)") as copy:
                copy.write(copy_rows(rows, vectors))
            self._conn.execute(sql.SQL(
                "INSERT INTO {} (id, document, metadata, embedding) SELECT id, document, metadata, embedding "
                "FROM incoming ON CONFLICT (id) DO UPDATE SET document = EXCLUDED.document, "
                "metadata = EXCLUDED.metadata, embedding = EXCLUDED.embedding").format(self._table))

    def _delete_ids(self, ids: list[str]) -> None:
        if self._dimension is not None:
            with self._session(), self._conn.transaction():
                self._conn.execute(sql.SQL("DELETE FROM {} WHERE id = ANY(%s)").format(self._table), (ids,))

    def _documents_by_ids(self, ids: list[str]) -> list[Document]:
        rows = self._query(sql.SQL("SELECT id, document, metadata FROM {} WHERE id = ANY(%s)").format(self._table), (ids,))
        found = {doc_id: Document._unchecked(text, metadata, doc_id) for doc_id, text, metadata in rows}
        return [found[i] for i in ids if i in found]

    def _vectors_by_ids(self, ids: list[str]) -> np.ndarray:
        rows = self._query(sql.SQL("SELECT id, embedding FROM {} WHERE id = ANY(%s)").format(self._table), (ids,))
        found = {doc_id: vector.to_numpy() for doc_id, vector in rows}
        vectors = [found[i] for i in ids if i in found]
        return np.stack(vectors).astype(np.float32) if vectors else np.empty((0, self._dimension or 0), np.float32)

    def _count(self) -> int:
        rows = self._query(sql.SQL("SELECT count(*) FROM {}").format(self._table))
        return int(rows[0][0]) if rows else 0

    def _relevance(self, raw_scores: np.ndarray, query: np.ndarray) -> np.ndarray:
        return relevance_from_cosine(1.0 - raw_scores)

    def _raw_scores_by_ids(self, query: np.ndarray, ids: list[str]) -> tuple[list[str], np.ndarray]:
        # The cosine distance a search orders by, for these rows only: one statement.
        rows = self._query(sql.SQL("SELECT id, embedding <=> %s FROM {} WHERE id = ANY(%s)").format(self._table),
                           (query, ids))
        found = {doc_id: float(distance) for doc_id, distance in rows}
        present = [doc_id for doc_id in ids if doc_id in found]
        return present, np.asarray([found[doc_id] for doc_id in present], dtype=np.float32)

    def _select(self, filter: Optional[Expr], k: int, with_vectors: bool) -> tuple[sql.Composable, list[Any]]:
        columns = sql.SQL("id, document, metadata, embedding <=> %s AS distance" + (", embedding" if with_vectors else ""))
        where, params = (sql.SQL("true"), []) if filter is None else where_clause(filter)
        query = sql.SQL("SELECT {} FROM {} WHERE {} ORDER BY embedding <=> %s LIMIT {}").format(
            columns, self._table, where, sql.Literal(k))
        return query, params

    def _run_search(self, query: np.ndarray, k: int, filter: Optional[Expr], with_vectors: bool) -> list[tuple]:
        if self._dimension is None:
            return []
        statement, params = self._select(filter, k, with_vectors)
        with self._session():
            if self.hnsw:
                self._set_search_breadth(max(self.ef_search, k))
            rows = self._conn.execute(statement, [query, *params, query]).fetchall()
        if self.hnsw:
            # The graph walk orders by distances computed in float4; the distances returned
            # are recomputed and can differ in the 8th digit: order by what is returned.
            rows.sort(key=lambda row: row[3])
        return rows

    def _set_search_breadth(self, ef_search: int) -> None:
        """Session settings for HNSW searches, sent only when they change (a round trip each).
        Iterative scans keep reading the graph until k rows pass the filter."""
        if self._session_ef != ef_search:
            self._conn.execute(sql.SQL("SET hnsw.ef_search = {}").format(sql.Literal(ef_search)))
            self._conn.execute("SET hnsw.iterative_scan = strict_order")
            self._session_ef = ef_search

    def _search_documents(
        self, queries: np.ndarray, k: int, filter: Union[Expr, Callable[..., bool], None], fetch_k: Optional[int]
    ) -> list[list[tuple[Document, float]]]:
        results = []
        for query in queries:
            rows = self._run_search(query, k, filter, with_vectors=False)  # type: ignore[arg-type]
            results.append([(Document._unchecked(text, metadata, doc_id), float(distance))
                            for doc_id, text, metadata, distance in rows])
        return results

    def _mmr_candidates(self, query: np.ndarray, fetch: int, filter: Any) -> tuple[list[tuple[Document, float]], np.ndarray]:
        # Documents and their vectors in one statement: no other writer can slip in between.
        rows = self._run_search(query, fetch, self._parsed_filter(filter), with_vectors=True)
        pairs = [(Document._unchecked(text, metadata, doc_id), float(distance)) for doc_id, text, metadata, distance, _ in rows]
        vectors = np.stack([row[4].to_numpy() for row in rows]).astype(np.float32) if rows else np.empty((0, query.shape[0]), np.float32)
        return pairs, vectors

