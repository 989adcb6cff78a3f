"""Model files read with their sha256 checked, and the check remembered between processes.

Hashing the 23 MB model on every start costs a cold ``rag search`` a noticeable part of its
time, so a verified file leaves a *stamp* in the cache folder: its path, size, mtime, ctime,
inode and device (nanosecond timestamps) plus the sha256 it had. While all of those are
unchanged the hash is not computed again; any write to the file (or ``touch``, ``chmod``, a
replacement under the same name) changes its ctime or inode, so the file is hashed again
before use. The stamp holds what was verified, never a verdict on another file.

A file changed in the last :data:`SETTLE_NS` (2 s) is hashed but not stamped, as Git treats
"racily clean" entries: file systems stamp times in ticks (Linux before 6.13 with the
coarse clock, a few ms; whole seconds on some, two on FAT), and a same-size rewrite in the
tick of the verified write would keep every field of the identity, even ctime. Once the
file is older than that, any later change gets a later ctime.

The cache folder is ``$RAG_CACHE_DIR``, else ``$XDG_CACHE_HOME/rag-toolkit``, else
``~/.cache/rag-toolkit``. Stamps are written atomically (:mod:`rag.persistence.atomic`); a
cache that cannot be written (read-only home) only costs the speed-up.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Optional, Union

from rag._optional import install_command
from rag.errors import StorageError

__all__ = ["cache_dir", "verified_bytes", "sha256_of", "STAMP_MARKER"]

STAMP_MARKER = "stamp.json"
_PathLike = Union[str, "os.PathLike[str]"]
#: A file whose mtime or ctime is less than this old (ns) is not stamped; see above.
SETTLE_NS = 2_000_000_000


def cache_dir() -> Path:
    """The toolkit's cache folder (read from the environment at each call)."""
    explicit = os.environ.get("RAG_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rag-toolkit"


def sha256_of(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()


def _identity(stat: os.stat_result) -> dict[str, int]:
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "ctime_ns": stat.st_ctime_ns,
            "inode": stat.st_ino, "device": stat.st_dev}


def _settled(identity: dict[str, int]) -> bool:
    """True when the file last changed at least SETTLE_NS ago (a forged future mtime: not)."""
    return max(identity["mtime_ns"], identity["ctime_ns"]) <= time.time_ns() - SETTLE_NS


def _stamp_folder(cache: Path, path: Path) -> Path:
    key = hashlib.sha256(os.fsencode(str(path))).hexdigest()[:24]
    return cache / "verified" / key


def _stamp_says_verified(cache: Path, path: Path, expected_sha256: str, identity: dict[str, int]) -> bool:
    try:
        stamp = json.loads((_stamp_folder(cache, path) / STAMP_MARKER).read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return (isinstance(stamp, dict) and stamp.get("path") == str(path)
            and stamp.get("sha256") == expected_sha256 and stamp.get("identity") == identity)


def _write_stamp(cache: Path, path: Path, sha256: str, identity: dict[str, int]) -> None:
    from rag.persistence.atomic import write_folder

    stamp = {"path": str(path), "sha256": sha256, "identity": identity}
    try:
        write_folder(_stamp_folder(cache, path), {STAMP_MARKER: json.dumps(stamp).encode("utf-8")}, marker=STAMP_MARKER)
    except OSError:
        pass  # an unwritable cache only means the next start hashes the file again


def verified_bytes(
    path: _PathLike, expected_sha256: str, what: str, *, cache: Optional[Path] = None, reinstall_extra: str = "local"
) -> bytes:
    """The bytes of ``path`` after checking that their sha256 is ``expected_sha256``.

    The hash is skipped when a stamp in ``cache`` (default :func:`cache_dir`) shows this very
    file, unchanged since (same size, mtime, ctime, inode, device), had that hash; a file
    changed in the last 2 s is hashed and not stamped. ``what``
    names the file in errors. Raises StorageError when the file cannot be read or has
    another hash (the message says how to reinstall it).
    """
    file = Path(os.path.abspath(path))
    cache = cache_dir() if cache is None else cache
    try:
        with open(file, "rb") as handle:
            before = _identity(os.fstat(handle.fileno()))
            payload = handle.read()
            after = _identity(os.fstat(handle.fileno()))
    except OSError as exc:
        raise StorageError(exc.errno, f"could not read the {what} {file}: {exc.strerror}", str(file)) from exc
    # A file written to while we read it has a newer mtime/ctime: hash what we got.
    if before == after and _stamp_says_verified(cache, file, expected_sha256, after):
        return payload
    digest = sha256_of(payload)
    if digest != expected_sha256:
        raise StorageError(
            f"the {what} {file} has sha256 {digest}, expected {expected_sha256}: it is damaged or "
            f"another file. Reinstall it with: {install_command(extra=reinstall_extra, reinstall=True)}"
        )
    if before == after and _settled(after):
        _write_stamp(cache, file, digest, after)
    return payload
