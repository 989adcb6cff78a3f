"""The shape of a Milvus store's collection: its fields, its index, and the record its
description keeps.

One store is one collection with the fields ``id`` (VARCHAR primary key), ``text``
(VARCHAR), ``metadata`` (JSON), ``shadow`` (JSON, see :mod:`stores._milvus_expr`) and
``vector`` (FLOAT_VECTOR). The description is a JSON record (embedding model, dimension,
distance, index) marked with :data:`RECORD_KEY`, so that a store refuses a collection it
did not make instead of misreading it.
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Optional

from rag.errors import ValidationError

with warnings.catch_warnings():  # pymilvus 2.3 imports pkg_resources, which warns on import
    warnings.simplefilter("ignore", UserWarning)
    from pymilvus import Collection, CollectionSchema, DataType, FieldSchema

__all__ = ["RECORD_KEY", "FIELDS", "index_params", "collection_schema", "read_record", "vector_dimension"]

RECORD_KEY = "rag_toolkit_store"  # marks a collection description written by this store
FIELDS = ("id", "text", "metadata", "shadow", "vector")


def index_params(index_type: str, m: int, ef_construction: int) -> dict[str, Any]:
    """Milvus's index parameters: COSINE over ``"FLAT"`` (exact) or ``"HNSW"`` (``m``, ``ef_construction``)."""
    if index_type == "FLAT":
        return {"index_type": "FLAT", "metric_type": "COSINE", "params": {}}
    return {"index_type": "HNSW", "metric_type": "COSINE", "params": {"M": m, "efConstruction": ef_construction}}


def collection_schema(dimension: int, index: dict[str, Any], model_id: Optional[str]) -> CollectionSchema:
    """The fields of a collection of ``dimension``-long vectors, its description recording
    ``index`` (see :func:`index_params`) and the embedding model's id."""
    record = {RECORD_KEY: 1, "dimension": dimension, "distance": "COSINE", "index": index, "model_id": model_id}
    fields = [
        FieldSchema("id", DataType.VARCHAR, is_primary=True, max_length=65535),
        FieldSchema("text", DataType.VARCHAR, max_length=65535),
        FieldSchema("metadata", DataType.JSON),
        FieldSchema("shadow", DataType.JSON),
        FieldSchema("vector", DataType.FLOAT_VECTOR, dim=dimension),
    ]
    return CollectionSchema(fields, description=json.dumps(record))


def read_record(collection: Collection, name: str, where: str) -> dict[str, Any]:
    """What the description of collection ``name`` (at ``where``, for the message) records;
    ValidationError when this store did not make it."""
    names = [field.name for field in collection.schema.fields]
    try:
        record = json.loads(collection.description or "{}")
    except ValueError:
        record = {}
    if sorted(names) != sorted(FIELDS) or not isinstance(record, dict) or RECORD_KEY not in record:
        raise ValidationError(
            f"collection {name!r} at {where} was not made by this store (fields "
            f"{', '.join(names)}); use another collection_name")
    return record


def vector_dimension(collection: Collection) -> int:
    """The length of the collection's vectors."""
    return int(next(f for f in collection.schema.fields if f.name == "vector").params["dim"])
