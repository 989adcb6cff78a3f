"""A store's documents as columns, its id <-> label maps, and the checks on what comes in.

Documents are kept as columns (id -> text, id -> metadata), not as Document objects; a
Document is built when one is returned. Why: a Document is an object the cyclic garbage
collector must track, and 100k of them surviving one add triggered full collections that
walked the whole heap (adds took 1.4-1.7x as long, see benchmarks/gc_add.py). Strings and
metadata dicts of plain values are not tracked, so the store stays invisible to the
collector without pausing it: the gc is process-wide, and a library must not switch it off.

Backends know vectors by int64 *labels*, handed out here and never reused.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Optional, Sequence

import numpy as np

from rag.documents import Document
from rag.errors import CorruptIndexError, ValidationError
from rag.ids import uuid4_strings
from rag.persistence.streams import JsonLinesSection
from stores._metadata_columns import MetadataColumns
from stores.filters import Expr

__all__ = ["DocumentColumns", "BLOCK_ROWS", "blocks_from_rows", "columns_from_documents", "columns_from_texts", "resolve_ids", "check_id_list"]


#: Documents per line of a saved ``documents.jsonl`` (see :meth:`DocumentColumns.to_section`).
BLOCK_ROWS = 4096


class DocumentColumns:
    """The documents of one store, keyed by id, and which backend label each id has.

    Not locked itself: the store holds its lock around every call. ``texts`` and
    ``metadatas`` always have the same keys in the same order; ``label_by_id`` and
    ``id_by_label`` are inverse maps over the same ids.
    """

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        self.metadatas: dict[str, dict[str, Any]] = {}
        self.label_by_id: dict[str, int] = {}
        self.id_by_label: dict[int, str] = {}
        self.next_label = 0
        self._filter_cache: Optional[dict[str, Document]] = None  # see filter_documents
        # Built on the first dict-filtered search, then kept in step: labels written since
        # wait in _pending until the next filtered search (adds pay nothing until then).
        self._metadata_columns: Optional[MetadataColumns] = None
        self._pending: list[int] = []

    def __len__(self) -> int:
        return len(self.texts)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.texts

    def document(self, doc_id: str) -> Document:
        """A new Document for a stored id: the caller may change it without changing ours."""
        return Document._unchecked(self.texts[doc_id], dict(self.metadatas[doc_id]), doc_id)

    def allocate(self, count: int) -> np.ndarray:
        """``count`` new int64 labels. They are used up even if the backend then refuses
        the vectors: labels are never reused, so a failed add cannot collide with anything."""
        labels = np.arange(self.next_label, self.next_label + count, dtype=np.int64)
        self.next_label += count
        return labels

    def labels_of(self, ids: Iterable[str]) -> np.ndarray:
        """The int64 labels of those ``ids`` that are stored, in order."""
        label_by_id = self.label_by_id
        if not label_by_id:  # the first add into an empty store: nothing to look up
            return np.empty(0, dtype=np.int64)
        return np.asarray([label_by_id[i] for i in ids if i in label_by_id], dtype=np.int64)

    def record(self, ids: list[str], texts: list[str], metadatas: list[dict[str, Any]], labels: np.ndarray,
               replaced: np.ndarray) -> None:
        """Add or replace documents whose vectors the backend now holds under ``labels``;
        ``replaced``: the labels the same ids had (their vectors already removed)."""
        for label in replaced.tolist():
            del self.id_by_label[label]
        label_list = labels.tolist()
        self._filter_cache = None
        if self._metadata_columns is not None:
            self._unindex(replaced)
            self._pending.extend(label_list)
        self.texts.update(zip(ids, texts))
        self.metadatas.update(zip(ids, metadatas))
        self.label_by_id.update(zip(ids, label_list))
        self.id_by_label.update(zip(label_list, ids))

    def forget(self, ids: list[str], labels: np.ndarray) -> None:
        """Drop stored ``ids`` whose vectors (under ``labels``) the backend has removed."""
        self._filter_cache = None
        if self._metadata_columns is not None:
            self._unindex(labels)
        for doc_id, label in zip(ids, labels.tolist()):
            del self.texts[doc_id], self.metadatas[doc_id], self.label_by_id[doc_id], self.id_by_label[label]

    def allowed_labels(self, predicate: Callable[[Any], bool], pass_document: bool) -> np.ndarray:
        """int64 labels of the documents ``predicate`` keeps; it receives each Document
        when ``pass_document``, else each metadata dict."""
        label_by_id = self.label_by_id
        if pass_document:
            labels = [label_by_id[doc_id] for doc_id, document in self.filter_documents().items() if predicate(document)]
        else:
            labels = [label_by_id[doc_id] for doc_id, metadata in self.metadatas.items() if predicate(metadata)]
        return np.asarray(labels, dtype=np.int64)

    def labels_matching(self, expr: Expr) -> np.ndarray:
        """int64 labels of the documents whose metadata ``expr`` keeps, evaluated over
        numpy columns (:class:`~stores._metadata_columns.MetadataColumns`)."""
        columns = self._metadata_columns
        if columns is None:
            columns = self._metadata_columns = MetadataColumns()
            self._pending = list(self.id_by_label)
        if self._pending:
            id_by_label, metadatas = self.id_by_label, self.metadatas
            alive = [label for label in self._pending if label in id_by_label]
            columns.append(alive, (metadatas[id_by_label[label]] for label in alive))
            self._pending = []
        return columns.labels_matching(expr)

    def _unindex(self, labels: np.ndarray) -> None:
        # Labels still pending were never put in the columns: they are skipped when the
        # pending ones are added, because they are no longer in id_by_label.
        columns = self._metadata_columns
        present = [label for label in labels.tolist() if columns.has(label)]
        if present:
            columns.remove(np.asarray(present, dtype=np.int64))

    def filter_documents(self) -> dict[str, Document]:
        """Every stored document as a Document, for callable filters that take one.

        Built on the first such search after a write and kept until the next write:
        building 100k costs about 20 ms, several times the filtering itself. They share
        the stored metadata dicts, as the predicate always has.
        """
        if self._filter_cache is None:
            texts, new, cache = self.texts, object.__new__, {}
            for doc_id, metadata in self.metadatas.items():
                document = new(Document)  # Document._unchecked inlined: half the time
                document.page_content, document.metadata, document.id = texts[doc_id], metadata, doc_id
                cache[doc_id] = document
            self._filter_cache = cache
        return self._filter_cache

    def in_label_order(self) -> tuple[np.ndarray, list[str]]:
        """Every label (int64, ascending) and the id stored under each."""
        labels = np.asarray(sorted(self.id_by_label), dtype=np.int64)
        id_by_label = self.id_by_label
        return labels, [id_by_label[label] for label in labels.tolist()]

    def to_section(self) -> tuple[np.ndarray, JsonLinesSection]:
        """Labels in label order and the ``documents`` section aligned with them.

        JSON lines, each a block of up to :data:`BLOCK_ROWS` documents as columns
        (``{"ids": [...], "page_contents": [...], "metadatas": [...]}``): one ``json.dumps``
        per block, so a million documents cost a few hundred encoder calls, and only one
        block is ever encoded at a time. Encoded as it is written: the store must not
        change until then (its save holds the store's lock).
        """
        labels, ids = self.in_label_order()
        texts, metadatas = self.texts, self.metadatas

        def blocks() -> Iterator[dict[str, list[Any]]]:
            for start in range(0, len(ids), BLOCK_ROWS):
                part = ids[start : start + BLOCK_ROWS]
                yield {"ids": part, "page_contents": [texts[i] for i in part], "metadatas": [metadatas[i] for i in part]}

        return labels, JsonLinesSection(blocks())

    def restore(self, blocks: Iterable[Any], where: Any) -> list[str]:
        """Fill these empty columns' texts and metadata from the blocks of a ``documents``
        section (see :meth:`to_section`); the ids in saved order, to be given their labels
        by :meth:`assign_labels` (before the columns are used). ``where`` names the folder
        in errors."""
        self._filter_cache = None
        self._metadata_columns, self._pending = None, []
        order: list[str] = []
        for block in blocks:
            try:
                ids, texts, metadatas = block["ids"], block["page_contents"], block["metadatas"]
            except (KeyError, TypeError) as exc:
                raise CorruptIndexError(f"{where}: malformed block of documents: {exc!r:.120}") from exc
            count = len(ids) if isinstance(ids, list) else -1
            if not (isinstance(texts, list) and isinstance(metadatas, list) and count == len(texts) == len(metadatas)):
                raise CorruptIndexError(f"{where}: a block of documents has columns of different lengths")
            # One C-speed pass per column (json gives exactly str and dict, never subclasses).
            if not ({str} >= set(map(type, ids)) and "" not in ids and {str} >= set(map(type, texts))
                    and {dict} >= set(map(type, metadatas))):
                raise CorruptIndexError(f"{where}: malformed document record: expected non-empty str ids, str "
                                        "page_contents and dict metadata")
            # Loaded JSON is ours alone: no copies needed.
            self.texts.update(zip(ids, texts))
            self.metadatas.update(zip(ids, metadatas))
            order.extend(ids)
            if len(self.texts) != len(order):
                raise CorruptIndexError(f"{where}: id {_first_repeat(order)!r} appears twice")
        return order

    def assign_labels(self, ids: list[str], labels: np.ndarray, where: Any) -> None:
        """Give the restored ``ids`` (saved order) the saved ``labels`` (int64, same order)."""
        if len(ids) != labels.shape[0]:
            raise CorruptIndexError(f"{where}: the documents do not match the stored vectors' count")
        label_list = labels.tolist()
        self.label_by_id = dict(zip(ids, label_list))
        self.id_by_label = dict(zip(label_list, ids))
        if len(self.id_by_label) != len(ids):
            raise CorruptIndexError(f"{where}: the saved labels repeat")
        self.next_label = int(labels.max()) + 1 if labels.size else 0


def blocks_from_rows(data: Any, where: Any) -> Iterator[dict[str, list[Any]]]:
    """The blocks :meth:`DocumentColumns.restore` reads, from a format-1 ``documents``
    section (``{"documents": [{"id", "page_content", "metadata"}, ...]}``)."""
    rows = data.get("documents") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise CorruptIndexError(f"{where}: the documents section holds no list of documents")
    try:
        yield {"ids": [row["id"] for row in rows], "page_contents": [row["page_content"] for row in rows],
               "metadatas": [row["metadata"] for row in rows]}
    except (KeyError, TypeError) as exc:
        raise CorruptIndexError(f"{where}: malformed document record: {exc!r:.120}") from exc


def _first_repeat(ids: list[str]) -> str:
    """An id that occurs twice in ``ids`` (asked for only once a repeat is known to exist)."""
    seen: set[str] = set()
    for doc_id in ids:
        if doc_id in seen:
            return doc_id
        seen.add(doc_id)
    return "?"


# ---------------------------------------------------------------------- what comes in


def check_id_list(ids: Any, what: str = "ids must be a list of ids") -> list[str]:
    """``ids`` as a list of non-empty str (ints converted), refusing a lone string."""
    if isinstance(ids, str):
        raise ValidationError(f"{what}, got the single string {ids!r:.60}; wrap it in a list")
    return [_check_id(value, position) for position, value in enumerate(ids)]


def _check_id(value: Any, position: int) -> str:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value:
        raise ValidationError(f"ids[{position}] must be a non-empty str, got {value!r:.60}")
    return value


def columns_from_documents(documents: Iterable[Document]) -> tuple[list[str], list[dict[str, Any]], list[Optional[str]]]:
    """Validate ``documents``; their texts, copies of their metadata, and their ids."""
    documents = list(documents)
    for position, document in enumerate(documents):
        if not isinstance(document, Document):
            raise ValidationError(
                f"documents[{position}] must be a Document, got {type(document).__name__}: {document!r:.60}"
            )
    return (
        [d.page_content for d in documents],
        [dict(d.metadata) for d in documents],
        [d.id for d in documents],
    )


def columns_from_texts(texts: Iterable[str], metadatas: Optional[Sequence[dict]]) -> tuple[list[str], list[dict[str, Any]]]:
    """Validate ``texts`` and ``metadatas``; the texts and copies of the metadata dicts."""
    if isinstance(texts, str):
        raise ValidationError(f"texts must be a list of strings, got the single string {texts!r:.60}; wrap it in a list")
    texts = list(texts)
    if metadatas is not None:
        metadatas = list(metadatas)
        if len(metadatas) != len(texts):
            raise ValidationError(f"got {len(metadatas)} metadatas for {len(texts)} texts; give one per text")
    copies: list[dict[str, Any]] = []
    for position, text in enumerate(texts):
        if not isinstance(text, str):
            raise ValidationError(f"texts[{position}] must be a str, got {type(text).__name__}: {text!r:.60}")
        metadata = metadatas[position] if metadatas is not None else None
        if metadata is not None and not isinstance(metadata, dict):
            raise ValidationError(f"metadatas[{position}] must be a dict, got {type(metadata).__name__}")
        copies.append(dict(metadata) if metadata else {})
    return texts, copies


def resolve_ids(own_ids: list[Optional[str]], ids: Optional[Sequence[str]]) -> list[str]:
    """The id of each new document: ``ids[i]`` if given, else its own id, else a new uuid4."""
    if ids is not None:
        resolved = check_id_list(ids, "ids must be a list")
        if len(resolved) != len(own_ids):
            raise ValidationError(f"got {len(resolved)} ids for {len(own_ids)} documents; give one per document")
    else:
        missing = sum(1 for i in own_ids if not i)
        fresh = iter(uuid4_strings(missing))
        resolved = [i if i else next(fresh) for i in own_ids]
    if len(set(resolved)) != len(resolved):
        seen: set[str] = set()
        duplicates = sorted({i for i in resolved if i in seen or seen.add(i)})  # type: ignore[func-returns-value]
        raise ValidationError(f"duplicate ids in one call: {duplicates[:5]}; each id may appear once")
    return resolved
