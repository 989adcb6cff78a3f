"""A shared index's parts in Milvus 2.3 (``rag index --store milvus --store-uri URI``).

- Chunks: a :class:`stores.milvus.Milvus` collection named after the index (default
  ``rag``), HNSW over COSINE.
- Record and configuration: a side collection ``<collection>_rag_index`` (Milvus 2.3
  needs a vector in every collection: each row carries a 2-d dummy one). One row per
  source (keyed by the SHA-1 of the source: its root, content hash and chunk count; the
  chunk ids follow from the source, see :mod:`rag.index.chunk_ids`), one for the
  configuration and one *write stamp*.
- Lexical side: Milvus 2.3 has no full-text search (2.5 has BM25 built in), so each
  process builds BM25 (:mod:`rag.index.lexical`, the folder indexes' own) from the
  engine's chunk texts on its first lexical search, and keeps it. An update writes a new
  write stamp *after* changing chunks and before the records that name them (one stamp
  and one request of records per up to 256 sources); a search first reads the stamp
  (consistency Session: another process's stamp is seen within one time tick, 200 ms by
  default) and rebuilds when it changed. A rebuild reads the stamp, then the chunks, both
  at consistency Strong, so what it reads is at least as new as the stamp it keeps: a
  process never keeps a stale BM25 past its next search after the stamp is visible. A
  chunk deleted under a cached BM25 also triggers a rebuild. A rebuild reads every chunk
  text; its postings are then kept on local disk under the stamp
  (:mod:`rag.index.engine_milvus_cache`), so the next process on this machine reads them
  instead while the stamp is unchanged (figures in docs/benchmarks/milvus.md). Before its first
  chunk change, an update also writes a stamp marked ``writing``, under which nothing is
  kept on disk: a writer that dies between its chunks and its settled stamp leaves no
  cache without its chunks (new processes rebuild until the next update).
- Concurrent updates are **not serialised**: Milvus 2.3 has no transaction and no
  compare-and-set, so no lock can be built on it honestly (a lease row can be taken by
  two processes that write it at once). What holds without one: runs on *different*
  sources lose nothing (each source's chunks and record row are its own; chunk ids are
  derived from the source). Two runs on the *same* source at once are safe when they read
  the same content (they write the same ids and texts); if the source changes between
  their reads, the later record wins and chunks the other run wrote beyond the winner's
  count can stay behind (searchable, but not in the record) until that source changes
  again or goes: a change or removal deletes every stored chunk with the source's id stem,
  recorded or not. Run one ``rag index`` per source set at a time, as a scheduled job does.

The URI is Milvus's (``http://host:19530``, ``https://...`` for TLS); the token
(``user:password`` or a managed Milvus's API key) is passed apart and never printed.
"""

from __future__ import annotations

import hashlib
import re
import uuid
import warnings
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Optional, Sequence, TypeGuard

from rag.documents import Document
from rag.errors import CorruptIndexError, ValidationError
from rag.hybrid import lexical_ranking
from rag.index.backend import EXPRESSION_FILTER
from rag.index.chunk_ids import chunk_ids
from rag.index.engine import SourceRecord
from rag.index.engine_milvus_cache import cache_folder, load_postings, save_postings
from rag.index.lexical import LexicalSettings, SegmentedBM25
from stores._milvus_conn import MilvusConnection

if TYPE_CHECKING:
    from rag.embeddings.base import Embeddings
    from stores.milvus import Milvus

with warnings.catch_warnings():  # pymilvus 2.3 imports pkg_resources, which warns on import
    warnings.simplefilter("ignore", UserWarning)
    from pymilvus import Collection, CollectionSchema, DataType, FieldSchema, MilvusException

__all__ = ["MilvusEngine", "SIDE_SUFFIX"]

#: The side collection holding an index's record and configuration is ``<collection>`` + this.
SIDE_SUFFIX = "_rag_index"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,190}$")  # Milvus: letters, digits, "_"; at most 255 with the suffix
_SIDE_FIELDS = ("key", "kind", "body", "vector")
_CONFIG, _STAMP = "config", "stamp"
_RECORD_BATCH = 256
_SIDE_INDEX = {"index_type": "FLAT", "metric_type": "L2", "params": {}}


def _source_key(source: str) -> str:
    return hashlib.sha1(source.encode("utf-8", "surrogatepass")).hexdigest()


def _settled(stamp: Optional[dict[str, Any]]) -> TypeGuard[dict[str, Any]]:
    """Whether BM25 built at ``stamp`` may be kept on disk: a stamp of a finished write,
    not one marked ``writing`` (chunks changing, or their writer died)."""
    return isinstance(stamp, dict) and not stamp.get("writing")


class MilvusEngine:
    """The :class:`~rag.index.engine.IndexEngine` of Milvus 2.3 (see the module docstring)."""

    store_name = "milvus"
    description = "Milvus + BM25 rebuilt in each process from the chunks"
    exact_bm25 = True
    capabilities = frozenset({EXPRESSION_FILTER})

    def __init__(self, uri: str, *, collection: str, token: Optional[str] = None, timeout: float = 5) -> None:
        if not isinstance(collection, str) or not _NAME.match(collection):
            raise ValidationError(f"--collection {collection!r:.80} cannot name a Milvus collection: use letters, "
                                  "digits and _ (not starting with a digit), at most 191 characters")
        self.uri, self.collection, self.token = uri, collection, token
        self._connection = MilvusConnection.open({}, uri=uri, token=token, timeout=timeout)
        self._side_name = collection + SIDE_SUFFIX
        self._side: Optional[Collection] = None
        self._side_loading: Optional[Collection] = None
        self._side_new = False
        self.store: Optional[Milvus] = None  # until open_store
        # Within an update, records wait here (up to _RECORD_BATCH) for the stamp that
        # follows their chunks: a stamp and a batch of records are two requests, not one
        # or two per source.
        self._pending: list[tuple[str, str, Mapping[str, Any]]] = []
        self._changed = self._updating = False
        self._marked = False  # a stamp "writing" is out since the last settled stamp
        self._bm25: Optional[SegmentedBM25] = None
        self._bm25_stamp: Optional[dict[str, Any]] = None
        self._cache = cache_folder(self._connection.where, collection)
        self._open_side()

    @property
    def where(self) -> str:
        return f"{self._connection.where} (collection {self.collection})"

    @property
    def _chunks(self) -> Milvus:
        """The chunks' store, once opened (the backend opens it before any other use)."""
        assert self.store is not None, "open_store() first"
        return self.store

    # ------------------------------------------------------------------ the side collection

    def _open_side(self) -> None:
        with self._connection.calls(f"opening collection {self._side_name!r}"):
            if not self._connection.has_collection(self._side_name):
                return
            side = Collection(self._side_name, using=self._connection.alias)
        names = sorted(field.name for field in side.schema.fields)
        if names != sorted(_SIDE_FIELDS):
            raise ValidationError(f"collection {self._side_name!r} at {self._connection.where} was not made by rag "
                                  f"index (fields {', '.join(names)}); use another --collection")
        with self._connection.calls(f"loading collection {self._side_name!r}"):
            self._connection.load(side, index_params=_SIDE_INDEX)
        self._side = side

    def _begin_side(self) -> None:
        """Create the side collection when missing (by this process or, at the same moment,
        another) and start loading it; :meth:`_side_collection` waits for the load. Loading
        takes Milvus seconds: begun when an update begins, it overlaps the chunks' own."""
        if self._side is not None or self._side_loading is not None:
            return
        schema = CollectionSchema([
            FieldSchema("key", DataType.VARCHAR, is_primary=True, max_length=64),
            FieldSchema("kind", DataType.VARCHAR, max_length=16),
            FieldSchema("body", DataType.JSON),
            FieldSchema("vector", DataType.FLOAT_VECTOR, dim=2),  # unused: Milvus 2.3 requires one
        ], description=f"rag index record of collection {self.collection}")
        with self._connection.calls(f"creating collection {self._side_name!r}"):
            existed = self._connection.has_collection(self._side_name)
            try:
                side = Collection(self._side_name, schema, using=self._connection.alias, consistency_level="Session")
                self._side_new = not existed  # made now: it holds no record yet
            except MilvusException:
                if not self._connection.has_collection(self._side_name):
                    raise
                side = Collection(self._side_name, using=self._connection.alias)  # made meanwhile by another process
        with self._connection.calls(f"loading collection {self._side_name!r}"):
            self._connection.load(side, index_params=_SIDE_INDEX, wait=False)
        self._side_loading = side

    def _side_collection(self) -> Collection:
        """The side collection, loaded (created first when missing)."""
        if self._side is None:
            self._begin_side()
            self._side_loading = None
            self._open_side()
        assert self._side is not None
        return self._side

    def _upsert(self, rows: list[tuple[str, str, Mapping[str, Any]]]) -> None:
        """Write ``(key, kind, body)`` rows, in one request."""
        side = self._side_collection()
        with self._connection.calls(f"writing to collection {self._side_name!r}"):
            side.upsert([[key for key, _, _ in rows], [kind for _, kind, _ in rows],
                         [dict(body) for _, _, body in rows], [[0.0, 0.0]] * len(rows)])

    def _flush(self) -> None:
        """Write the new stamp (if the chunks changed), then the records waiting for it."""
        if self._changed or self._marked:  # marked only: a write failed midway, chunks may have changed
            self._upsert([(_STAMP, "stamp", {"stamp": uuid.uuid4().hex})])
            self._changed = self._marked = False
        if self._pending:
            self._upsert(self._pending)
            self._pending = []

    def _row(self, key: str, level: str) -> Optional[dict[str, Any]]:
        if self._side is None:
            self._open_side()  # another process may have created it since
            if self._side is None:
                return None
        with self._connection.calls(f"reading collection {self._side_name!r}"):
            rows = self._side.query(f'key == "{key}"', output_fields=["body"], consistency_level=level)
        return rows[0]["body"] if rows else None

    # ------------------------------------------------------------------ IndexEngine

    def read_config(self) -> Optional[dict[str, Any]]:
        return self._row(_CONFIG, "Session")  # a config is written once, by the first update

    def open_store(self, embeddings: Embeddings) -> Milvus:
        from stores.milvus import Milvus

        self.store = Milvus(embeddings, collection_name=self.collection, uri=self.uri, token=self.token)
        return self.store

    def records(self) -> dict[str, SourceRecord]:
        """Read at consistency Strong: every record written before, by any process."""
        if self._side is None and self._side_new:
            return {}  # still loading, and empty: it was created by this update
        if self._side is None:
            self._open_side()
            if self._side is None:
                return {}
        found: dict[str, SourceRecord] = {}
        for page in self._connection.scan(self._side, ["body"], f'kind == "source"', key="key", level="Strong"):
            for row in page:
                body = row["body"]
                found[body["source"]] = SourceRecord.from_json(
                    {**body, "chunks": chunk_ids(body["source"], body["chunks"])})
        return found

    def save_record(self, source: str, record: SourceRecord) -> None:
        if list(record.chunk_ids) != chunk_ids(source, len(record.chunk_ids)):
            raise ValidationError(f"the chunks of {source!r:.80} do not have the index's ids (rag.index.chunk_ids)")
        # The chunk ids follow from the source and their count (rag.index.chunk_ids).
        self._pending.append((_source_key(source), "source", {**record.to_json(), "source": source,
                                                              "chunks": len(record.chunk_ids)}))
        if len(self._pending) >= _RECORD_BATCH or not self._updating:
            self._flush()

    def held_chunk_ids(self, source: str, record: SourceRecord) -> list[str]:
        """The record's ids and every stored chunk id with the source's stem: chunks a
        concurrent run on the same source left beyond the record are found here, and go
        with the source's next change."""
        stem = chunk_ids(source, 1)[0].rpartition("-")[0]  # 16 hex digits
        found = {row["id"] for page in self._chunks.scan((), f'id like "{stem}-%"', level="Session") for row in page}
        return sorted(found.union(record.chunk_ids))

    def forget_record(self, source: str) -> None:
        self._flush()  # the stamp after the deleted chunks
        if self._side is not None:
            with self._connection.calls(f"deleting from collection {self._side_name!r}"):
                self._side.delete(f'key in ["{_source_key(source)}"]')

    @contextmanager
    def updating(self) -> Iterator[None]:
        """No lock: Milvus 2.3 cannot lock (see the module docstring for what holds
        without). A new index's side collection starts loading here; the records and the
        stamp still waiting are written on the way out (also when the update failed: each
        record follows its own source's chunks)."""
        self._begin_side()
        self._updating = True
        try:
            yield
        except BaseException:
            with suppress(Exception):  # the update's own error is the one to report
                self._flush()
            raise
        else:
            self._flush()
        finally:
            self._updating = False

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Milvus 2.3 has no transactions: the write stamps order a commit's writes."""
        yield

    def chunks_changing(self) -> None:
        """Before the first chunk change since the last stamp: a stamp marked ``writing``,
        which no process keeps BM25 on disk under. A writer that dies before its settled
        stamp thus leaves no machine's cache without its chunks (each new process rebuilds
        from Milvus until the next update settles the stamp). Not while the side collection
        this process created is still loading: nobody can open an index before its first
        update ends, and the mark would wait for the load."""
        if not self._marked and not (self._side_new and self._side is None):
            self._upsert([(_STAMP, "stamp", {"stamp": uuid.uuid4().hex, "writing": True})])
            self._marked = True

    def chunks_changed(self) -> None:
        self._changed = True
        if not self._updating:
            self._flush()

    def save_config(self, config: dict[str, Any]) -> None:
        self._flush()
        self._upsert([(_CONFIG, "config", config)])

    def size_bytes(self) -> int:
        return 0  # Milvus 2.3 reports no size per collection

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
        self._connection.close()

    # ------------------------------------------------------------------ the lexical side

    def lexical_search(self, query: str, k: int, filter: Any) -> list[tuple[Document, float]]:
        """BM25 over the chunks, rebuilt here when the write stamp changed (see the module docstring)."""
        from stores.filters import compile_filter

        if isinstance(filter, str):
            raise ValidationError("a raw Milvus expression filters dense searches only: bm25 and hybrid searches of "
                                  "an index take a dict filter such as {'source': 'a.md'}")
        predicate = compile_filter(filter)
        if not self._bm25_current():
            return []
        try:
            return lexical_ranking(self._bm25, query, k, predicate)
        except CorruptIndexError:  # a chunk deleted under this BM25: another process updated the index
            self._rebuild()
            return lexical_ranking(self._bm25, query, k, predicate)

    def lexical_scores(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        """BM25 of these chunks from the postings :meth:`lexical_search` ranked with: a
        hybrid search's lexical side has just brought them up to the write stamp, so no
        round trip (the stamp is read only when this process has no BM25 yet)."""
        if self._bm25 is None:
            self._bm25_current()
        return {} if self._bm25 is None else self._bm25.scores_of(query, ids)

    def _bm25_current(self) -> bool:
        """Bring this process's BM25 up to the write stamp (see the module docstring);
        False when there are no chunks."""
        if self.store is None or self.store.dimension is None:
            return False
        stamp = self._row(_STAMP, "Session")
        if self._bm25 is None or stamp != self._bm25_stamp:
            self._load(stamp)
        return True

    def _load(self, stamp: Optional[dict[str, Any]]) -> None:
        """BM25 at ``stamp``: from the local cache when it holds that stamp's, else rebuilt."""
        kept = load_postings(self._cache, stamp) if _settled(stamp) else None
        if kept is None:
            self._rebuild()
            return
        bm25 = SegmentedBM25(LexicalSettings.default(), self._chunks.get_by_ids)
        bm25.append(*kept, settle=False)
        self._bm25, self._bm25_stamp = bm25, stamp

    def _rebuild(self) -> None:
        stamp = self._row(_STAMP, "Strong")  # before the chunks: what they hold is at least this new
        settings = LexicalSettings.default()
        bm25 = SegmentedBM25(settings, self._chunks.get_by_ids)
        for page in self._chunks.scan(("text",), level="Strong"):
            # A page at a time: only its terms are held, never every chunk's text.
            bm25.append([row["id"] for row in page], settings.postings([row["text"] for row in page]), settle=False)
        bm25.consolidate()
        self._bm25, self._bm25_stamp = bm25, stamp
        whole = bm25.single_part()
        if _settled(stamp) and whole is not None:
            save_postings(self._cache, stamp, *whole)


if TYPE_CHECKING:  # the type checker holds the engine to the protocol the backend uses
    from rag.index.engine import IndexEngine

    _engine: type[IndexEngine] = MilvusEngine
