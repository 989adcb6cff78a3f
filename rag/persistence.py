"""The on-disk index format: a folder of ``.npy`` and JSON files and a versioned manifest.

Every index (vector stores, later BM25 and the record of what was indexed) is one folder::

    index/
      manifest.json     {"format": "rag-index", "format_version": 1, "store_class": ...,
                         "embedding": {"model_id": ..., "dimension": ...},
                         "distance_strategy": ..., "config": {...},
                         "sections": {"documents": {"file": "documents.json",
                                                    "sha256": ..., "bytes": ...}, ...}}
      documents.json    one file per named section: .npy (numpy, pickle off), .json or .bin

Saving writes a complete new folder beside the old one, fsyncs it, then swaps it in with
one atomic rename (``renameat2(RENAME_EXCHANGE)`` on Linux); an interrupted save leaves the
previous index loadable. Loading checks the format version, every file's size and sha256,
and refuses pickled arrays.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import hashlib
import io
import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Union

import numpy as np

from rag.errors import CorruptIndexError, EmbeddingMismatchError, StorageError, ValidationError

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


def _write_file(path: Path, payload: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # some platforms cannot open directories; the rename is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2 RENAME_EXCHANGE); False if unsupported."""
    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise StorageError(code, f"could not swap {a} into place: {os.strerror(code)}", str(b))


def _backup_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.previous")


def write_index_folder(path: Union[str, os.PathLike], manifest: Manifest, sections: Mapping[str, SectionData]) -> Path:
    """Write ``sections`` and ``manifest`` to the folder ``path``, atomically replacing it.

    Section values: numpy arrays (saved as .npy without pickle), bytes (.bin) or JSON data.
    Returns the folder's path. Raises ValidationError for unsavable data (before touching
    disk) and StorageError for I/O failures (the previous folder stays intact).
    """
    target = Path(path)
    encoded = {name: _encode(name, data) for name, data in sections.items()}
    if target.exists() and not target.is_dir():
        raise StorageError(errno.ENOTDIR, f"{target} exists and is not a folder", str(target))
    if target.is_dir() and not (target / MANIFEST).exists() and any(target.iterdir()):
        # The swap below deletes what the folder held: never do that to someone's files.
        raise StorageError(
            errno.EEXIST,
            f"{target} is a folder with other files in it, not an index folder (no {MANIFEST}); "
            "choose a new or empty folder for the index",
            str(target),
        )
    parent = target.parent
    # The writer's pid is in the name, so a later save can tell a crashed save's leftovers
    # from one still running in another process.
    staging = parent / f".{target.name}.saving-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    try:
        parent.mkdir(parents=True, exist_ok=True)
        staging.mkdir()
        manifest.sections = {}
        for name, (filename, payload) in encoded.items():
            _write_file(staging / filename, payload)
            manifest.sections[name] = {
                "file": filename,
                "sha256": hashlib.sha256(payload).hexdigest(),
                "bytes": len(payload),
            }
        manifest_bytes = json.dumps(manifest.to_json(), indent=2, ensure_ascii=False).encode("utf-8")
        _write_file(staging / MANIFEST, manifest_bytes)
        _fsync_dir(staging)
        if target.exists():
            if not _exchange(staging, target):
                # Portable fallback: two renames. Between them the old folder waits under
                # the backup name, which read_index_folder falls back to.
                backup = _backup_path(target)
                if backup.exists():
                    shutil.rmtree(backup)
                os.rename(target, backup)
                os.rename(staging, target)
                staging = backup
        else:
            os.rename(staging, target)
            # A crash between the fallback's two renames left the old index as the backup;
            # the new save supersedes it.
            shutil.rmtree(_backup_path(target), ignore_errors=True)
        _fsync_dir(parent)
        _remove_stale_staging(parent, target.name, keep=staging)
    except OSError as exc:
        if isinstance(exc, StorageError):
            raise
        raise StorageError(exc.errno, f"could not save index to {target}: {exc.strerror or exc}", str(target)) from exc
    finally:
        # After an exchange, staging holds the old index: remove it. After a failure, it
        # holds a partial write: remove it too.
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return target


STALE_STAGING_SECONDS = 3600


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists but not ours, or cannot tell: assume alive
    return True


def _remove_stale_staging(parent: Path, name: str, keep: Path) -> None:
    """Delete half-written folders left by saves that crashed (best effort): those whose
    writer process is gone, or untouched for an hour. Another live save's folder stays."""
    now = time.time()
    for leftover in parent.glob(f".{name}.saving-*"):
        if leftover == keep:
            continue
        pid_text = leftover.name.rsplit(".saving-", 1)[1].split("-", 1)[0]
        try:
            stale = now - leftover.stat().st_mtime > STALE_STAGING_SECONDS
        except OSError:
            continue
        if stale or (pid_text.isdigit() and not _process_alive(int(pid_text))):
            shutil.rmtree(leftover, ignore_errors=True)


class IndexFolder:
    """A verified, opened index folder: read its sections by name.

    The files were read together when the folder was opened (see
    :func:`read_index_folder`); each section is checked against the manifest's size and
    sha256 when it is asked for.
    """

    def __init__(self, path: Path, manifest: Manifest, payloads: Mapping[str, Union[bytes, OSError, None]]) -> None:
        self.path = path
        self.manifest = manifest
        self._payloads = payloads

    def _payload(self, name: str) -> bytes:
        info = self.manifest.sections.get(name)
        if info is None:
            raise CorruptIndexError(f"{self.path} has no section {name!r} (it lists {sorted(self.manifest.sections)})")
        file = self.path / info["file"]
        payload = self._payloads.get(name)
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
        saved_id, saved_dim = self.manifest.model_id, self.manifest.dimension
        if model_id is not None and saved_id is not None and model_id != saved_id:
            raise EmbeddingMismatchError(
                f"the index at {self.path} was built with embeddings {saved_id!r}, not {model_id!r}; "
                f"load it with the same model, or rebuild it with the new one"
            )
        if dimension is not None and saved_dim is not None and dimension != saved_dim:
            raise EmbeddingMismatchError(
                f"the index at {self.path} holds {saved_dim}-dimensional vectors, the embeddings give "
                f"{dimension}; load it with the model that built it, or rebuild it"
            )


def index_folder_exists(path: Union[str, os.PathLike]) -> bool:
    """True when :func:`read_index_folder` would find an index at ``path`` (including the
    previous folder an interrupted save left under its backup name)."""
    folder = Path(path)
    if (folder / MANIFEST).exists():
        return True
    return not folder.exists() and (_backup_path(folder) / MANIFEST).exists()


def _read_files(folder: Path, manifest: Manifest) -> dict[str, Union[bytes, OSError, None]]:
    payloads: dict[str, Union[bytes, OSError, None]] = {}
    for name, info in manifest.sections.items():
        if Path(info["file"]).name != info["file"]:
            raise CorruptIndexError(f"{folder}: section {name!r} names a file outside the folder: {info['file']!r}")
        try:
            payloads[name] = (folder / info["file"]).read_bytes()
        except FileNotFoundError:
            payloads[name] = None
        except OSError as exc:
            payloads[name] = exc
    return payloads


def _identity(folder: Path) -> tuple[int, int]:
    stat = os.stat(folder)
    return stat.st_dev, stat.st_ino


def read_index_folder(path: Union[str, os.PathLike], *, store_class: str | None = None) -> IndexFolder:
    """Open an index folder: its manifest and every file it lists, read together.

    A save running at the same time swaps a whole new folder in; if that happens while
    the files are being read, they are read again from the new folder, so a reader never
    mixes an old manifest with new files. Falls back to the previous folder left by an
    interrupted save when ``path`` itself is missing. Raises FileNotFoundError when neither
    exists, CorruptIndexError for a bad manifest or a ``store_class`` other than the one
    asked for (the files' sizes and hashes are checked as sections are read).
    """
    folder = Path(path)
    if not (folder / MANIFEST).exists() and (_backup_path(folder) / MANIFEST).exists() and not folder.exists():
        folder = _backup_path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"no index folder at {folder}", str(folder))
    for _attempt in range(5):
        before = _identity(folder)
        manifest = _read_manifest(folder)
        if store_class is not None and manifest.store_class != store_class:
            raise CorruptIndexError(
                f"{folder} holds a {manifest.store_class} index, not a {store_class}; "
                f"load it with {manifest.store_class}"
            )
        payloads = _read_files(folder, manifest)
        if _identity(folder) == before:
            return IndexFolder(folder, manifest, payloads)
    raise StorageError(errno.EBUSY, f"{folder} kept changing while it was read (saves in progress); try again", str(folder))


def _read_manifest(folder: Path) -> Manifest:
    manifest_path = folder / MANIFEST
    try:
        data = json.loads(manifest_path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CorruptIndexError(f"{folder} has no {MANIFEST}: not an index folder, or an incomplete one") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptIndexError(f"{manifest_path} is not valid JSON: {exc}") from exc
    return Manifest.from_json(data, manifest_path)
