"""The on-disk index format: a folder of ``.npy`` and JSON files and a versioned manifest.

Every index (vector stores, later BM25 and the record of what was indexed) is one folder::

    index/
      manifest.json     {"format": "rag-index", "format_version": 3, "store_class": ...,
                         "embedding": {"model_id": ..., "dimension": ...},
                         "distance_strategy": ..., "config": {...},
                         "sections": {"documents": {"file": "documents.jsonl",
                                                    "sha256": ..., "bytes": ...}, ...}}
      documents.jsonl   one file per named section: .npy (numpy, pickle off), .json, .bin,
                        or a streamed section (:mod:`rag.persistence.streams`): .jsonl, or
                        a file its writer makes itself (a store's ``.faiss`` index)

Saving replaces the whole folder atomically (:mod:`rag.persistence.atomic`): an
interrupted save leaves the previous index loadable. Loading checks the format version,
every file's size and sha256, and refuses pickled arrays. Streamed sections are never
held whole in memory: they are written straight to their file and hashed in pieces.

Versions: 1 had no streamed sections (read as before); 2 is the segmented folder of
:mod:`rag.index.segments`, a format of its own; 3 adds streamed sections. A version-3
folder refused by an older rag is refused with its version named.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import weakref
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO, Iterator, Mapping, Union

import numpy as np

from rag.errors import CorruptIndexError, EmbeddingMismatchError, StorageError, ValidationError
from rag.persistence.atomic import Content, Payload, close_payloads, folder_exists, read_folder, write_folder
from rag.persistence.streams import (
    BACKGROUND_HASHING,
    BackgroundHash,
    FileSection,
    JsonLinesSection,
    hash_file,
    json_bytes,
    read_json_lines,
    verify_file,
    write_json_lines,
)

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
FORMAT_VERSION = 3
#: Versions :func:`read_index_folder` reads (2 is :mod:`rag.index.segments`' own format).
READABLE_VERSIONS = (1, 3)
MANIFEST = "manifest.json"
#: Streamed sections' files: opened when a folder is read, read later in pieces; those
#: of FileSections (hashed in the background as soon as the folder is opened) and JSON lines.
FILE_SECTION_SUFFIXES = (".faiss",)
STREAMED_SUFFIXES = (".jsonl", *FILE_SECTION_SUFFIXES)

# arrays -> .npy, bytes -> .bin, FileSection / JsonLinesSection -> streamed, else JSON
SectionData = Union[np.ndarray, bytes, FileSection, JsonLinesSection, Any]


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
        if version not in READABLE_VERSIONS:
            raise CorruptIndexError(
                f"{path} has format version {version!r}; this version of rag reads versions "
                f"{', '.join(map(str, READABLE_VERSIONS))}. Load it with the rag version that saved it "
                "(a newer one reads older folders), or rebuild the index with `rag index`."
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


def _encode(name: str, data: SectionData) -> tuple[str, Union[bytes, FileSection, JsonLinesSection]]:
    if isinstance(data, FileSection):
        if data.suffix not in FILE_SECTION_SUFFIXES:
            raise ValidationError(f"section {name!r}: a FileSection's suffix must be one of {FILE_SECTION_SUFFIXES}, "
                                  f"got {data.suffix!r}")
        return f"{name}{data.suffix}", data
    if isinstance(data, JsonLinesSection):
        return f"{name}.jsonl", data
    if isinstance(data, np.ndarray):
        if data.dtype == object:
            raise ValidationError(f"section {name!r} is an object array; only numeric arrays can be saved")
        buffer = io.BytesIO()
        np.save(buffer, data, allow_pickle=False)
        return f"{name}.npy", buffer.getvalue()
    if isinstance(data, (bytes, bytearray, memoryview)):
        return f"{name}.bin", bytes(data)
    return f"{name}.json", json_bytes(data, name)



def write_index_folder(path: Union[str, os.PathLike], manifest: Manifest, sections: Mapping[str, SectionData]) -> Path:
    """Write ``sections`` and ``manifest`` to the folder ``path``, atomically replacing it.

    Section values: numpy arrays (saved as .npy without pickle), bytes (.bin), streamed
    sections (:class:`~rag.persistence.streams.FileSection`,
    :class:`~rag.persistence.streams.JsonLinesSection`: written straight to their file,
    then hashed in pieces) or JSON data. The manifest written lists every section's file,
    size and sha256; ``manifest`` itself is left as it was. Returns the folder's path.
    Raises ValidationError for unsavable data (before touching disk, except for a value a
    streamed section yields: then the half-written new folder is discarded) and
    StorageError for I/O failures (the previous folder stays intact; see
    :mod:`rag.persistence.atomic`).
    """
    files: dict[str, Content] = {}
    background: list[str] = []  # written by a worker thread while the rest are encoded
    listing: dict[str, dict[str, Any]] = {}
    for name, data in sections.items():
        filename, payload = _encode(name, data)
        if filename == MANIFEST:
            raise ValidationError(f"section {name!r} would overwrite {MANIFEST}; choose another section name")
        if isinstance(payload, bytes):
            files[filename] = payload
            listing[name] = {"file": filename, "sha256": hashlib.sha256(payload).hexdigest(), "bytes": len(payload)}
        else:
            listing[name] = {"file": filename}  # sha256 and size once written
            files[filename] = _streamed_writer(name, payload, listing[name])
            if isinstance(payload, FileSection):
                background.append(filename)

    def write_manifest(target: Path) -> None:  # the marker, written last: every size and hash is known
        written = replace(manifest, sections=listing)
        target.write_bytes(json.dumps(written.to_json(), indent=2, ensure_ascii=False).encode("utf-8"))

    files[MANIFEST] = write_manifest
    return write_folder(path, files, marker=MANIFEST, background=background)


def _streamed_writer(name: str, section: Union[FileSection, JsonLinesSection], info: dict[str, Any]) -> Content:
    """A function writing ``section`` at the path it is given, then recording the file's
    sha256 and size in ``info`` (hashed in pieces, from the page cache)."""

    def write(target: Path) -> None:
        if isinstance(section, FileSection):
            section.write(target)
        else:
            write_json_lines(target, section, name)
        with open(target, "rb", buffering=0) as handle:
            info["sha256"], info["bytes"] = hash_file(handle)

    return write


class IndexFolder:
    """A verified, opened index folder: read its sections by name.

    The files were read together when the folder was opened (see
    :func:`read_index_folder`); each section is checked against the manifest's size and
    sha256 when it is asked for.
    """

    def __init__(self, path: Path, manifest: Manifest, payloads: Mapping[str, Payload]) -> None:
        """``payloads``: file name -> its bytes (None: missing; an OSError: unreadable; an
        open file: a streamed section, read when asked for)."""
        self.path = path
        self.manifest = manifest
        self._payloads = payloads
        # Index files are hashed from now on, in a worker thread, while the caller reads
        # the other sections (documents first): verified_file then only waits for the end.
        self._hashes = {
            file: BackgroundHash(payload) for file, payload in payloads.items()
            if BACKGROUND_HASHING and file.endswith(FILE_SECTION_SUFFIXES)
            and payload is not None and not isinstance(payload, (bytes, OSError))
        }
        # Opened files close with the folder at the latest (a caller need not use `with`).
        self._finalizer = weakref.finalize(self, _release, payloads, list(self._hashes.values()))

    def close(self) -> None:
        """Close the streamed sections' files and stop hashing them (also done when the
        folder is garbage collected)."""
        self._finalizer()

    def __enter__(self) -> "IndexFolder":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def _raw(self, name: str) -> tuple[dict[str, Any], Path, Payload]:
        info = self.manifest.sections.get(name)
        if info is None:
            raise CorruptIndexError(f"{self.path} has no section {name!r} (it lists {sorted(self.manifest.sections)})")
        file = self.path / info["file"]
        payload = self._payloads.get(info["file"])
        if payload is None:
            raise CorruptIndexError(f"{file} is missing; the index folder is incomplete")
        if isinstance(payload, OSError):
            raise StorageError(payload.errno, f"could not read {file}: {payload.strerror}", str(file)) from payload
        return info, file, payload

    def _opened(self, name: str) -> tuple[dict[str, Any], Path, BinaryIO]:
        info, file, payload = self._raw(name)
        if isinstance(payload, bytes):
            raise CorruptIndexError(f"{file}: section {name!r} is not a streamed section")
        return info, file, payload

    def _payload(self, name: str) -> bytes:
        info, file, payload = self._raw(name)
        if not isinstance(payload, bytes):
            raise CorruptIndexError(f"{file}: section {name!r} is a streamed section, not one read whole")
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

    def file_name(self, name: str) -> str:
        """The file name section ``name`` is saved in (its suffix says how it was written)."""
        info = self.manifest.sections.get(name)
        if info is None:
            raise CorruptIndexError(f"{self.path} has no section {name!r} (it lists {sorted(self.manifest.sections)})")
        return info["file"]

    def verified_file(self, name: str) -> BinaryIO:
        """A :class:`~rag.persistence.streams.FileSection`'s file, open (unbuffered, at 0)
        after its size and sha256 were checked in pieces. Owned by this folder: it closes
        with it (``os.dup`` its descriptor to keep it longer). Also from the save that
        wrote the manifest when a later save has replaced the folder since it was opened."""
        info, file, handle = self._opened(name)
        verify_file(handle, info, file, self._hashes.pop(info["file"], None))
        return handle

    def json_lines(self, name: str) -> Iterator[Any]:
        """A :class:`~rag.persistence.streams.JsonLinesSection`'s values, read in pieces and
        hashed as they go by; the size and sha256 are checked after the last value (see
        :func:`~rag.persistence.streams.read_json_lines`)."""
        info, file, handle = self._opened(name)
        return read_json_lines(handle, info, file)

    def check_embedding(self, model_id: str | None, dimension: int | None) -> None:
        """Refuse to pair this index with an embedding model other than the one that built it."""
        check_model(self.path, self.manifest.model_id, self.manifest.dimension, model_id, dimension)


def _release(payloads: Mapping[str, Payload], hashes: list[BackgroundHash]) -> None:
    for started in hashes:
        started.cancel()
    close_payloads(payloads)


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

    folder, manifest, payloads = read_folder(path, marker=MANIFEST, describe=describe, open_suffixes=STREAMED_SUFFIXES)
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
