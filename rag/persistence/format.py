"""The on-disk index format: a folder of ``.npy`` and JSON files and a versioned manifest.

Every index (vector stores, later BM25 and the record of what was indexed) is one folder::

    index/
      manifest.json     {"format": "rag-index", "format_version": 1, "store_class": ...,
                         "embedding": {"model_id": ..., "dimension": ...},
                         "distance_strategy": ..., "config": {...},
                         "sections": {"documents": {"file": "documents.json",
                                                    "sha256": ..., "bytes": ...}, ...}}
      documents.json    one file per named section: .npy (numpy, pickle off), .json or .bin

Saving replaces the whole folder atomically (:mod:`rag.persistence.atomic`): an
interrupted save leaves the previous index loadable. Loading checks the format version,
every file's size and sha256, and refuses pickled arrays.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Union

import numpy as np

from rag.errors import CorruptIndexError, EmbeddingMismatchError, StorageError, ValidationError
from rag.persistence.atomic import Payload, folder_exists, read_folder, write_folder

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Manifest",
    "IndexFolder",
    "write_index_folder",
    "read_index_folder",
    "index_folder_exists",
]

FORMAT = "rag-index"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"

SectionData = Union[np.ndarray, bytes, Any]  # arrays -> .npy, bytes -> .bin, else JSON


@dataclass
class Manifest:
    """What an index folder holds and how it was built."""

    store_class: str
    model_id: str | None
    dimension: int | None
    distance_strategy: str | None = None
    config: dict[str, Any] = field(default_factory=dict)
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)
    format_version: int = FORMAT_VERSION

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": self.format_version,
            "store_class": self.store_class,
            "embedding": {"model_id": self.model_id, "dimension": self.dimension},
            "distance_strategy": self.distance_strategy,
            "config": self.config,
            "sections": self.sections,
        }

    @classmethod
    def from_json(cls, data: Any, path: Path) -> "Manifest":
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CorruptIndexError(f"{path} is not a rag index manifest (no \"format\": \"{FORMAT}\")")
        version = data.get("format_version")
        if version != FORMAT_VERSION:
            raise CorruptIndexError(
                f"{path} has format version {version!r}; this version of rag reads version "
                f"{FORMAT_VERSION} only. Rebuild the index with `rag index`."
            )
        try:
            embedding = data["embedding"]
            sections = data["sections"]
            if not isinstance(sections, dict):
                raise TypeError("sections is not an object")
            for name, info in sections.items():
                if not {"file", "sha256", "bytes"} <= set(info):
                    raise KeyError(f"section {name!r} lacks file, sha256 or bytes")
                if Path(info["file"]).name != info["file"]:
                    raise CorruptIndexError(f"{path}: section {name!r} names a file outside the folder: {info['file']!r}")
            return cls(
                store_class=data["store_class"],
                model_id=embedding["model_id"],
                dimension=embedding["dimension"],
                distance_strategy=data.get("distance_strategy"),
                config=dict(data.get("config") or {}),
                sections=sections,
                format_version=version,
            )
        except (KeyError, TypeError) as exc:
            raise CorruptIndexError(f"{path} is incomplete: {exc}") from exc


def _encode(name: str, data: SectionData) -> tuple[str, bytes]:
    if isinstance(data, np.ndarray):
        if data.dtype == object:
            raise ValidationError(f"section {name!r} is an object array; only numeric arrays can be saved")
        buffer = io.BytesIO()
        np.save(buffer, data, allow_pickle=False)
        return f"{name}.npy", buffer.getvalue()
    if isinstance(data, (bytes, bytearray, memoryview)):
        return f"{name}.bin", bytes(data)
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise ValidationError(
            f"section {name!r} cannot be saved as JSON: {exc}. Metadata values must be JSON "
            "types (str, int, float, bool, None, lists and dicts of them)."
        ) from exc
    return f"{name}.json", text.encode("utf-8")


def write_index_folder(path: Union[str, os.PathLike], manifest: Manifest, sections: Mapping[str, SectionData]) -> Path:
    """Write ``sections`` and ``manifest`` to the folder ``path``, atomically replacing it.

    Section values: numpy arrays (saved as .npy without pickle), bytes (.bin) or JSON data.
    The manifest written lists every section's file, size and sha256; ``manifest`` itself
    is left as it was. Returns the folder's path. Raises ValidationError for unsavable data
    (before touching disk) and StorageError for I/O failures (the previous folder stays
    intact; see :mod:`rag.persistence.atomic`).
    """
    files: dict[str, bytes] = {}
    listing: dict[str, dict[str, Any]] = {}
    for name, data in sections.items():
        filename, payload = _encode(name, data)
        if filename == MANIFEST:
            raise ValidationError(f"section {name!r} would overwrite {MANIFEST}; choose another section name")
        files[filename] = payload
        listing[name] = {"file": filename, "sha256": hashlib.sha256(payload).hexdigest(), "bytes": len(payload)}
    written = replace(manifest, sections=listing)
    files[MANIFEST] = json.dumps(written.to_json(), indent=2, ensure_ascii=False).encode("utf-8")
    return write_folder(path, files, marker=MANIFEST)


class IndexFolder:
    """A verified, opened index folder: read its sections by name.

    The files were read together when the folder was opened (see
    :func:`read_index_folder`); each section is checked against the manifest's size and
    sha256 when it is asked for.
    """

    def __init__(self, path: Path, manifest: Manifest, payloads: Mapping[str, Payload]) -> None:
        """``payloads``: file name -> its bytes (None: missing; an OSError: unreadable)."""
        self.path = path
        self.manifest = manifest
        self._payloads = payloads

    def _payload(self, name: str) -> bytes:
        info = self.manifest.sections.get(name)
        if info is None:
            raise CorruptIndexError(f"{self.path} has no section {name!r} (it lists {sorted(self.manifest.sections)})")
        file = self.path / info["file"]
        payload = self._payloads.get(info["file"])
        if payload is None:
            raise CorruptIndexError(f"{file} is missing; the index folder is incomplete")
        if isinstance(payload, OSError):
            raise StorageError(payload.errno, f"could not read {file}: {payload.strerror}", str(file)) from payload
        if len(payload) != info["bytes"]:
            raise CorruptIndexError(
                f"{file} has {len(payload)} bytes, the manifest says {info['bytes']}: truncated or replaced"
            )
        if hashlib.sha256(payload).hexdigest() != info["sha256"]:
            raise CorruptIndexError(f"{file} does not match its sha256 in the manifest: the file was altered")
        return payload

    def has(self, name: str) -> bool:
        return name in self.manifest.sections

    def array(self, name: str) -> np.ndarray:
        """A numeric array section (loaded with pickle off)."""
        try:
            return np.load(io.BytesIO(self._payload(name)), allow_pickle=False)
        except ValueError as exc:
            raise CorruptIndexError(f"{self.path}: section {name!r} is not a plain numeric .npy: {exc}") from exc

    def json(self, name: str) -> Any:
        """A JSON section."""
        try:
            return json.loads(self._payload(name).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CorruptIndexError(f"{self.path}: section {name!r} is not valid JSON: {exc}") from exc

    def bytes(self, name: str) -> bytes:
        """A raw bytes section."""
        return self._payload(name)

    def check_embedding(self, model_id: str | None, dimension: int | None) -> None:
        """Refuse to pair this index with an embedding model other than the one that built it."""
        check_model(self.path, self.manifest.model_id, self.manifest.dimension, model_id, dimension)


def check_model(path: Path, saved_id: str | None, saved_dim: int | None, model_id: str | None,
                dimension: int | None) -> None:
    """Refuse to pair the index at ``path`` (built by ``saved_id``, ``saved_dim``
    dimensions) with an embedding model other than the one that built it."""
    if model_id is not None and saved_id is not None and model_id != saved_id:
        raise EmbeddingMismatchError(
            f"the index at {path} was built with embeddings {saved_id!r}, not {model_id!r}; "
            f"load it with the same model, or rebuild it with the new one"
        )
    if dimension is not None and saved_dim is not None and dimension != saved_dim:
        raise EmbeddingMismatchError(
            f"the index at {path} holds {saved_dim}-dimensional vectors, the embeddings give "
            f"{dimension}; load it with the model that built it, or rebuild it"
        )


def index_folder_exists(path: Union[str, os.PathLike]) -> bool:
    """True when :func:`read_index_folder` would find an index at ``path`` (including the
    previous folder an interrupted save left under its backup name)."""
    return folder_exists(path, marker=MANIFEST)


def read_index_folder(path: Union[str, os.PathLike], *, store_class: str | None = None) -> IndexFolder:
    """Open an index folder: its manifest and every file it lists, read together.

    A save running at the same time swaps a whole new folder in; if that happens while
    the files are being read, they are read again from the new folder, so a reader never
    mixes an old manifest with new files. Falls back to the previous folder left by an
    interrupted save when ``path`` itself is missing. Raises FileNotFoundError when neither
    exists, CorruptIndexError for a bad manifest or a ``store_class`` other than the one
    asked for (the files' sizes and hashes are checked as sections are read).
    """

    def describe(folder: Path) -> tuple[Manifest, list[str]]:
        manifest = _read_manifest(folder)
        if store_class is not None and manifest.store_class != store_class:
            raise CorruptIndexError(
                f"{folder} holds a {manifest.store_class} index, not a {store_class}; "
                f"load it with {manifest.store_class}"
            )
        return manifest, [info["file"] for info in manifest.sections.values()]

    folder, manifest, payloads = read_folder(path, marker=MANIFEST, describe=describe)
    return IndexFolder(folder, manifest, payloads)


def _read_manifest(folder: Path) -> Manifest:
    manifest_path = folder / MANIFEST
    try:
        data = json.loads(manifest_path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CorruptIndexError(f"{folder} has no {MANIFEST}: not an index folder, or an incomplete one") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptIndexError(f"{manifest_path} is not valid JSON: {exc}") from exc
    return Manifest.from_json(data, manifest_path)
