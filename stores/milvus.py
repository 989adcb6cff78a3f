"""Milvus: a vector store in the Milvus vector database (extra ``milvus``: pymilvus 2.3.x).

One store is one Milvus collection with the fields ``id`` (VARCHAR primary key), ``text``
(VARCHAR), ``metadata`` (JSON), ``shadow`` (JSON: the values Milvus cannot compare in an
expression, see :mod:`stores._milvus_expr`) and ``vector`` (FLOAT_VECTOR). The collection's
description records the embedding model, the dimension and the index, which every store
opening it checks. The engine owns the documents: several processes or machines can add
to and search one collection at once; the same code runs against Milvus standalone, a
cluster or a managed Milvus (only ``uri`` and ``token`` change).

- COSINE over an HNSW index (``hnsw_m``, ``hnsw_ef_construction``; ``ef_search`` at least
  ``k``) or ``index_type="FLAT"`` (exact). The collection is loaded when the store opens.
- ``similarity_search_with_score`` returns Milvus's COSINE score, the cosine similarity
  (higher is better, as langchain-milvus); relevance is ``clip(similarity, 0, 1)``, in
  [0, 1] (langchain-milvus computes ``1 - similarity`` there, which can be negative).
- Results carry ``Document.id``; ids are generated (uuid4) when none are given.
- Re-adding an id replaces it: writes are Milvus ``upsert`` (an ``insert`` of an existing
  primary key would leave two rows in Milvus 2.3). Everything Milvus would refuse (ids or
  texts over 65,535 bytes, metadata that is not JSON, integers beyond 64 bits, NaN) is
  refused before the first row is sent. Milvus has no transactions: a write of more than
  one batch (``batch_size`` rows, default 1000) that loses its connection midway leaves
  the batches sent before; re-adding the same ids repairs it.
- Filters are the dict language of :mod:`stores.filters`, translated to Milvus boolean
  expressions with the reference's meaning; a string is a raw Milvus expression (the
  escape hatch; ``expr=`` on :meth:`similarity_search` as in langchain-milvus). A Python
  callable is refused (``supports_callable_filter = False``).
- ``consistency_level``: ``"Session"`` (default: this process reads its own writes at
  once; others' within Milvus's time tick), ``"Strong"`` (every read sees every write
  acknowledged before it, by any process; a search may wait up to one time tick,
  200 ms by default), ``"Bounded"`` or ``"Eventually"``.

>>> store = Milvus(embeddings, connection_args={"uri": "http://127.0.0.1:19530"}, collection_name="docs")  # doctest: +SKIP
>>> store.add_texts(["cats purr"], [{"topic": "cats"}], ids=["c"])  # doctest: +SKIP
['c']
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, ClassVar, Iterator, Literal, Mapping, Optional, Sequence, Union

import numpy as np

from rag._optional import require_installed
from rag.documents import Document
from rag.embeddings.base import model_id_of
from rag.errors import EmbeddingMismatchError, ValidationError
from stores import _milvus_collection as layout
from stores._milvus_conn import CONSISTENCY_LEVELS, MilvusConnection
from stores._milvus_expr import RawExpr, check_text, expression, id_list, one_filter, row_fields, string_literal
from stores.base import VectorStore
from stores.filters import Expr
from stores.scoring import DistanceStrategy, cosine_similarity, relevance_from_cosine

require_installed(("pymilvus",), feature="stores.milvus", extra="milvus")

with warnings.catch_warnings():  # pymilvus 2.3 imports pkg_resources, which warns on import
    warnings.simplefilter("ignore", UserWarning)
    from pymilvus import Collection, CollectionSchema, MilvusException  # noqa: E402

__all__ = ["Milvus"]

_MAX_SEARCH_LIMIT = 16384  # Milvus's topk limit


def _check_positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError(f"{name} must be a positive int, got {value!r}")
    return value


class Milvus(VectorStore):
    """A vector store on Milvus, with LangChain's API (see the module docstring).

    ``embedding_function``: the embeddings (langchain-milvus's first argument; ``embedding``
    also works). ``collection_name``: default ``"LangChainCollection"``, as langchain-milvus.
    ``connection_args``: ``{"uri": ..., "token": ..., "db_name": ...}`` (default uri
    ``http://localhost:19530``); ``uri=`` and ``token=`` may be given directly instead.
    ``drop_old``: drop the collection first. ``index_type``: ``"HNSW"`` (default) or
    ``"FLAT"``; ``hnsw_m`` (default 16), ``hnsw_ef_construction`` (default 64), ``ef_search``
    (default 64, raised to ``k``). ``timeout``: seconds for connecting, default 5.
    """

    supports_callable_filter: ClassVar[bool] = False
    callable_filter_receives: ClassVar[Literal["metadata", "document"]] = "metadata"
    distance_strategy: ClassVar[DistanceStrategy] = DistanceStrategy.COSINE

    def __init__(
        self,
        embedding_function: Any = None,
        collection_name: str = "LangChainCollection",
        connection_args: Optional[Mapping[str, Any]] = None,
        consistency_level: str = "Session",
        drop_old: bool = False,
        *,
        uri: Optional[str] = None,
        token: Optional[str] = None,
        index_type: Literal["HNSW", "FLAT"] = "HNSW",
        hnsw_m: int = 16,
        hnsw_ef_construction: int = 64,
        ef_search: int = 64,
        batch_size: int = 1000,
        timeout: float = 5,
        embedding: Any = None,
    ) -> None:
        if embedding is not None and embedding_function is not None and embedding is not embedding_function:
            raise ValidationError("pass the embeddings once, as embedding_function or as embedding, not both")
        super().__init__(embedding_function if embedding_function is not None else embedding)
        if not isinstance(collection_name, str) or not collection_name:
            raise ValidationError(f"collection_name must be a non-empty str, got {collection_name!r}")
        if consistency_level not in CONSISTENCY_LEVELS:
            raise ValidationError(f"consistency_level must be one of {', '.join(CONSISTENCY_LEVELS)}, got {consistency_level!r}")
        if index_type not in ("HNSW", "FLAT"):
            raise ValidationError(f"index_type must be 'HNSW' or 'FLAT', got {index_type!r}")
        self.collection_name = collection_name
        self.consistency_level = consistency_level
        self.index_type = index_type
        self.hnsw_m = _check_positive(hnsw_m, "hnsw_m")
        self.hnsw_ef_construction = _check_positive(hnsw_ef_construction, "hnsw_ef_construction")
        self.ef_search = _check_positive(ef_search, "ef_search")
        self.batch_size = _check_positive(batch_size, "batch_size")
        self._connection = MilvusConnection.open(dict(connection_args or {}), uri=uri, token=token, timeout=timeout)
        self._collection: Optional[Collection] = None
        # Milvus 2.3 returns no timestamp for a delete, so pymilvus's session cannot wait for
        # it: the read after a delete of this store is Strong (else it may still see the rows).
        self._deleted_since_read = False
        if drop_old:
            self.delete_collection()
        self._open_collection()

    # ------------------------------------------------------------------ connection

    @property
    def where(self) -> str:
        """The server's URI without credentials (safe to print)."""
        return self._connection.where

    @property
    def connection(self) -> MilvusConnection:
        """The connection, for code that keeps its own collections beside this one (:mod:`rag.index.shared`)."""
        return self._connection

    def close(self) -> None:
        """Disconnect (the data stays in Milvus)."""
        self._connection.close()

    def __enter__(self) -> "Milvus":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ the collection

    def _index_params(self) -> dict[str, Any]:
        return layout.index_params(self.index_type, self.hnsw_m, self.hnsw_ef_construction)

    def _open_collection(self) -> None:
        """Open the collection if it exists, checking its record against our embeddings."""
        with self._connection.calls(f"opening collection {self.collection_name!r}"):
            if not self._connection.has_collection(self.collection_name):
                return
            collection = Collection(self.collection_name, using=self._connection.alias)
        record = self._record_of(collection)
        model = model_id_of(self._embedding) if self._embedding is not None else None
        stored_model = record.get("model_id")
        if model is not None and stored_model is not None and model != stored_model:
            raise EmbeddingMismatchError(
                f"collection {self.collection_name!r} at {self.where} was built with {stored_model}, not {model}; "
                "use the same embeddings or another collection_name")
        dimension = layout.vector_dimension(collection)
        wanted = getattr(self._embedding, "dimension", None)
        if wanted is not None and wanted != dimension:
            raise EmbeddingMismatchError(
                f"collection {self.collection_name!r} at {self.where} holds vectors of dimension {dimension}, "
                f"not {wanted}; use the same embeddings or another collection_name")
        self.index_type = record.get("index", {}).get("index_type", self.index_type)
        with self._connection.calls(f"loading collection {self.collection_name!r}"):
            self._connection.load(collection, index_params=self._index_params())
        self._collection, self._dimension = collection, dimension

    def _record_of(self, collection: Collection) -> dict[str, Any]:
        return layout.read_record(collection, self.collection_name, self.where)

    def _schema(self, dimension: int) -> CollectionSchema:
        model = model_id_of(self._embedding) if self._embedding is not None else None
        return layout.collection_schema(dimension, self._index_params(), model)

    def _create_collection(self, dimension: int) -> None:
        """Create, index and load the collection (or open it, if another process just made it)."""
        with self._connection.calls(f"creating collection {self.collection_name!r}"):
            try:
                Collection(self.collection_name, self._schema(dimension), using=self._connection.alias,
                           consistency_level=self.consistency_level)
            except MilvusException:
                if not self._connection.has_collection(self.collection_name):
                    raise  # else created meanwhile by another process: opened as it is
        self._open_collection()  # indexes it (when it has no index yet) and loads it
        if self._dimension != dimension:
            raise EmbeddingMismatchError(
                f"collection {self.collection_name!r} holds vectors of dimension {self._dimension}, not {dimension}")

    def delete_collection(self) -> None:
        """Drop the collection (LangChain's name); the store is empty afterwards."""
        with self._lock, self._connection.calls(f"dropping collection {self.collection_name!r}"):
            if self._connection.has_collection(self.collection_name):
                Collection(self.collection_name, using=self._connection.alias).drop()
            self._collection, self._dimension = None, None

    def flush(self, *, wait_for_index: bool = True, timeout: float = 600) -> None:
        """Seal the rows added so far and, with ``wait_for_index``, wait (up to ``timeout``
        seconds) until the index covers them and the query node holds the indexed segments:
        after a bulk load, so that searches use the index (Milvus builds it on sealed
        segments). Milvus 2.3 goes on searching the growing segments, through a coarse
        interim index, for a few seconds after this returns."""
        if self._collection is None:
            return
        with self._connection.calls(f"flushing collection {self.collection_name!r}"):
            self._collection.flush(timeout=timeout)
            if wait_for_index:
                self._connection.wait_until_indexed(self.collection_name, timeout)

    def scan(self, fields: Sequence[str] = ("text",), expr: str = "", *, batch: int = 4096,
             level: str = "Strong") -> Iterator[list[dict[str, Any]]]:
        """The ``id`` and ``fields`` of every stored row matching ``expr`` (a raw Milvus
        expression; default all rows), in pages of ``batch`` rows by ascending id; the first
        page read at consistency ``level`` (see :meth:`MilvusConnection.scan`)."""
        if self._collection is None:
            return iter(())
        return self._connection.scan(self._collection, fields, expr, batch=batch, level=level)

    @property
    def record(self) -> dict[str, Any]:
        """What the collection's description records (model, dimension, index); {} before the first add."""
        return {} if self._collection is None else self._record_of(self._collection)

    # ------------------------------------------------------------------ filters

    def _parsed_filter(self, filter: Any) -> Any:
        if isinstance(filter, str):
            return RawExpr(filter)  # the escape hatch: a Milvus expression, passed as it is
        return super()._parsed_filter(filter)

    def _expr(self, filter: Any) -> str:
        if filter is None:
            return ""
        return filter.text if isinstance(filter, RawExpr) else expression(filter)

    def similarity_search(self, query: str, k: int = 4, filter: Any = None, *, fetch_k: Optional[int] = None,
                          expr: Optional[str] = None) -> list[Document]:
        """As :meth:`VectorStore.similarity_search`; ``expr``: a raw Milvus expression
        (langchain-milvus's parameter) instead of ``filter``."""
        return super().similarity_search(query, k, one_filter(filter, expr), fetch_k=fetch_k)

    def similarity_search_with_score(self, query: str, k: int = 4, filter: Any = None, *,
                                     fetch_k: Optional[int] = None, expr: Optional[str] = None) -> list[tuple[Document, float]]:
        """As :meth:`VectorStore.similarity_search_with_score` (scores: cosine similarity); ``expr`` as above."""
        return super().similarity_search_with_score(query, k, one_filter(filter, expr), fetch_k=fetch_k)

    # ------------------------------------------------------------------ engine primitives

    def _write(self, ids: list[str], texts: list[str], metadatas: list[dict[str, Any]], vectors: np.ndarray) -> None:
        # Everything Milvus would refuse is checked before the first batch is sent.
        metadata_column, shadow_column = [], []
        for position, (doc_id, text, metadata) in enumerate(zip(ids, texts, metadatas)):
            check_text(text, f"texts[{position}]")
            check_text(doc_id, f"ids[{position}]")
            string_literal(doc_id, f"ids[{position}]")  # an id must be expressible, to be read or deleted
            plain, shadow = row_fields(metadata, position)
            metadata_column.append(plain)
            shadow_column.append(shadow)
        if self._collection is None:
            self._create_collection(int(vectors.shape[1]))
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        with self._connection.calls(f"writing to collection {self.collection_name!r}"):
            for start in range(0, len(ids), self.batch_size):
                end = start + self.batch_size
                self._collection.upsert([ids[start:end], texts[start:end], metadata_column[start:end],
                                         shadow_column[start:end], vectors[start:end]])

    def _delete_ids(self, ids: list[str]) -> None:
        if self._collection is None:
            return
        with self._connection.calls(f"deleting from collection {self.collection_name!r}"):
            for start in range(0, len(ids), self.batch_size):
                self._collection.delete(id_list(ids[start:start + self.batch_size]))
        self._deleted_since_read = self.consistency_level != "Strong"

    def _read_level(self) -> str:
        """The consistency level of the next read (see ``_deleted_since_read``)."""
        if self._deleted_since_read:
            self._deleted_since_read = False
            return "Strong"
        return self.consistency_level

    def _rows_by_ids(self, ids: list[str], fields: list[str]) -> dict[str, dict[str, Any]]:
        if self._collection is None:
            return {}
        found: dict[str, dict[str, Any]] = {}
        level = self._read_level()
        with self._connection.calls(f"reading collection {self.collection_name!r}"):
            for start in range(0, len(ids), self.batch_size):
                for row in self._collection.query(id_list(ids[start:start + self.batch_size]), output_fields=fields,
                                                  consistency_level=level):
                    found[row["id"]] = row
        return found

    def _documents_by_ids(self, ids: list[str]) -> list[Document]:
        rows = self._rows_by_ids(ids, ["text", "metadata"])
        return [Document._unchecked(rows[i]["text"], rows[i]["metadata"], i) for i in ids if i in rows]

    def _vectors_by_ids(self, ids: list[str]) -> np.ndarray:
        rows = self._rows_by_ids(ids, ["vector"])
        vectors = [np.asarray(rows[i]["vector"], dtype=np.float32) for i in ids if i in rows]
        return np.stack(vectors) if vectors else np.empty((0, self._dimension or 0), np.float32)

    def _count(self) -> int:
        if self._collection is None:
            return 0
        with self._connection.calls(f"counting collection {self.collection_name!r}"):
            rows = self._collection.query("", output_fields=["count(*)"], consistency_level=self._read_level())
        return int(rows[0]["count(*)"])

    def _relevance(self, raw_scores: np.ndarray, query: np.ndarray) -> np.ndarray:
        return relevance_from_cosine(raw_scores)

    def _raw_scores_by_ids(self, query: np.ndarray, ids: list[str]) -> tuple[list[str], np.ndarray]:
        # The cosine similarity a COSINE search reports, from the stored vectors (one query
        # per batch of ids): exact, where a search restricted to them could miss some in HNSW.
        rows = self._rows_by_ids(ids, ["vector"])
        present = [doc_id for doc_id in ids if doc_id in rows]
        if not present:
            return [], np.empty(0, dtype=np.float32)
        vectors = np.asarray([rows[doc_id]["vector"] for doc_id in present], dtype=np.float32)
        return present, cosine_similarity(query[None, :], vectors)[0].astype(np.float32)

    def _run_search(self, queries: np.ndarray, k: int, filter: Any, fields: list[str]) -> list[Any]:
        if self._collection is None:
            return [[] for _ in range(queries.shape[0])]
        if k > _MAX_SEARCH_LIMIT:
            raise ValidationError(f"Milvus returns at most {_MAX_SEARCH_LIMIT} results per search, got k={k}")
        params: dict[str, Any] = {"metric_type": "COSINE", "params": {}}
        if self.index_type == "HNSW":
            params["params"]["ef"] = max(self.ef_search, k)
        with self._connection.calls(f"searching collection {self.collection_name!r}"):
            return list(self._collection.search(
                np.ascontiguousarray(queries, dtype=np.float32), "vector", params, limit=k,
                expr=self._expr(filter) or None, output_fields=fields, consistency_level=self._read_level()))

    def _search_documents(
        self, queries: np.ndarray, k: int, filter: Union[Expr, Callable[..., bool], None], fetch_k: Optional[int]
    ) -> list[list[tuple[Document, float]]]:
        return [[(Document._unchecked(hit.entity.get("text"), hit.entity.get("metadata"), hit.id), float(hit.distance))
                 for hit in hits] for hits in self._run_search(queries, k, filter, ["text", "metadata"])]

    def _mmr_candidates(self, query: np.ndarray, fetch: int, filter: Any) -> tuple[list[tuple[Document, float]], np.ndarray]:
        # Documents and their vectors in one search: no other writer can slip in between.
        hits = self._run_search(query[None, :], fetch, self._parsed_filter(filter), ["text", "metadata", "vector"])[0]
        pairs = [(Document._unchecked(hit.entity.get("text"), hit.entity.get("metadata"), hit.id), float(hit.distance))
                 for hit in hits]
        vectors = (np.asarray([hit.entity.get("vector") for hit in hits], dtype=np.float32) if pairs
                   else np.empty((0, query.shape[0]), np.float32))
        return pairs, vectors

