"""Folders replaced atomically, and read whole: the mechanics under every saved index.

A write builds the complete new folder beside the old one, in a staging folder named
``.NAME.saving-PID-RANDOM``, fsyncs every file and the folder, then swaps it in with one
atomic rename (``renameat2(RENAME_EXCHANGE)`` on Linux). Where the exchange is not
supported it falls back to two renames, between which the old folder waits under the
backup name ``.NAME.previous``; readers fall back to that name, so an interrupted save
always leaves a readable folder. The next write removes staging folders whose writer died.

A read reads every file it needs in one go (or opens it, for files too large to hold as
bytes: an open file keeps its contents even after a save replaced the folder) and starts
again when a write swapped the folder meanwhile, so it never mixes files of two saves.

Nothing here knows what the files hold (see :mod:`rag.persistence.format`); each kind of
folder is recognised by a *marker* file, which a write puts in last.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import shutil
import stat
import time
import uuid
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor
from typing import BinaryIO, Callable, Collection, Iterable, Mapping, TypeVar, Union

from rag.errors import StorageError

__all__ = ["write_folder", "read_folder", "close_payloads", "resolve_folder", "folder_exists", "STALE_STAGING_SECONDS"]

#: A staging folder untouched this long (seconds) is removed even if its writer's pid lives
#: (pids are reused, and a writer on another machine sharing the disk has no pid here).
STALE_STAGING_SECONDS = 3600
#: How often a read starts again because saves keep swapping the folder under it.
READ_ATTEMPTS = 5

T = TypeVar("T")
Payload = Union[bytes, BinaryIO, OSError, None]  # None: the file is missing; BinaryIO: opened, not read
#: What a write puts in a file: its bytes, or a function that writes the file at the path
#: it is given (for contents too large to hold in memory at once).
Content = Union[bytes, Callable[[Path], None]]


def write_folder(
    path: Union[str, os.PathLike], files: Mapping[str, Content], *, marker: str, background: Collection[str] = ()
) -> Path:
    """Make the folder ``path`` hold exactly ``files`` (file name -> content), atomically.

    A content is the file's bytes or a function writing the file at the path it is given;
    files are written in the mapping's order, the marker last. The files named in
    ``background`` are written one after another in a worker thread while this thread
    writes the others (a large file that releases the GIL, such as a faiss index, then
    overlaps with encoding the rest); all are written and synced before the marker.

    ``marker`` (one of ``files``, written last) identifies folders of this kind: an
    existing folder that lacks it and holds anything is refused, because the swap would
    delete what it holds. Returns the folder's path. Raises StorageError; the previous
    folder stays intact after any failure or crash.
    """
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise StorageError(errno.ENOTDIR, f"{target} exists and is not a folder", str(target))
    if target.is_dir() and not (target / marker).exists() and any(target.iterdir()):
        raise StorageError(
            errno.EEXIST,
            f"{target} is a folder with other files in it, not an index folder (no {marker}); "
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
        later = [name for name in files if name != marker and name not in background]
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rag-save") as pool:
            # Leaving the block waits for the worker, also after a failure here: the
            # staging folder is never removed under a writer still running.
            pending = [pool.submit(_write_file, staging / name, files[name]) for name in files if name in background]
            for name in later:
                _write_file(staging / name, files[name])
            for future in pending:
                future.result()
        _write_file(staging / marker, files[marker])
        _fsync_dir(staging)
        staging = _swap_in(staging, target)
        _fsync_dir(parent)
        _remove_stale_staging(parent, target.name, keep=staging)
    except OSError as exc:
        if isinstance(exc, StorageError):
            raise
        raise StorageError(exc.errno, f"could not save index to {target}: {exc.strerror or exc}", str(target)) from exc
    finally:
        # After an exchange, staging holds the old folder: remove it. After a failure, it
        # holds a partial write: remove it too.
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return target


def _swap_in(staging: Path, target: Path) -> Path:
    """Put ``staging`` at ``target``; returns the path now holding what is to be deleted."""
    if not target.exists():
        os.rename(staging, target)
        # A crash between the fallback's two renames left the old folder as the backup;
        # the new save supersedes it.
        shutil.rmtree(_backup_path(target), ignore_errors=True)
        return staging
    if _exchange(staging, target):
        return staging
    # Portable fallback: two renames. Between them the old folder waits under the backup
    # name, which readers fall back to.
    backup = _backup_path(target)
    if backup.exists():
        shutil.rmtree(backup)
    os.rename(target, backup)
    os.rename(staging, target)
    return backup


def resolve_folder(path: Union[str, os.PathLike], *, marker: str) -> Path:
    """The folder a read of ``path`` opens: ``path``, or the previous folder an interrupted
    save left under its backup name while ``path`` itself is missing."""
    folder = Path(path)
    backup = _backup_path(folder)
    if not (folder / marker).exists() and not folder.exists() and (backup / marker).exists():
        return backup
    return folder


def folder_exists(path: Union[str, os.PathLike], *, marker: str) -> bool:
    """True when a read of ``path`` would find a folder of this kind (``marker`` in it)."""
    return (resolve_folder(path, marker=marker) / marker).exists()


def read_folder(
    path: Union[str, os.PathLike],
    *,
    marker: str,
    describe: Callable[[Path], tuple[T, Iterable[str]]],
    open_suffixes: tuple[str, ...] = (),
) -> tuple[Path, T, dict[str, Payload]]:
    """Read a folder written by :func:`write_folder`: ``(folder, description, payloads)``.

    ``describe(folder)`` reads the marker and returns what it says plus the names of the
    files to read. Payloads map each name to its bytes, to None for a missing file or to
    the OSError that reading it raised (reported by whoever asks for that file). Files
    whose names end in one of ``open_suffixes`` are opened instead (an unbuffered binary
    file, positioned at 0, which the caller closes): they are read later, from the same
    save, whatever happens to the folder meanwhile. When a save swaps a new folder in
    while the files are read or opened, the read starts again. Raises FileNotFoundError
    when there is no folder, StorageError when saves never let a read finish.
    """
    folder = resolve_folder(path, marker=marker)
    if not folder.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"no index folder at {folder}", str(folder))
    for _attempt in range(READ_ATTEMPTS):
        before = _identity(folder)
        description, names = describe(folder)
        names = list(names)
        opened = [name for name in names if name.endswith(open_suffixes)] if open_suffixes else []
        payloads = _read_files(folder, [name for name in names if name not in opened])
        payloads.update(_open_files(folder, opened))
        if _identity(folder) == before:
            return folder, description, payloads
        close_payloads(payloads)
    raise StorageError(errno.EBUSY, f"{folder} kept changing while it was read (saves in progress); try again", str(folder))


# ---------------------------------------------------------------------- file system steps
# Module-level functions on purpose: the crash-safety tests replace them to stop a save at
# a chosen point.


def _write_file(path: Path, payload: Content) -> None:
    if callable(payload):
        payload(path)
        with open(path, "rb+") as handle:  # fsync needs a descriptor open for writing on some systems
            os.fsync(handle.fileno())
        return
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
        pass  # fsync of a directory is advisory on some file systems; the data is synced
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


def _open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading, unbuffered; OSError unless it is a regular file: a
    FIFO put in an index folder would block a read forever (opened non-blocking, it is
    refused before any read), a device never end."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a FIFO, a device or a folder): refused", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=0)
    except BaseException:
        os.close(fd)
        raise


def _read_files(folder: Path, names: Iterable[str]) -> dict[str, Payload]:
    payloads: dict[str, Payload] = {}
    for name in names:
        try:
            with _open_regular(folder / name) as handle:
                payloads[name] = handle.read()
        except FileNotFoundError:
            payloads[name] = None
        except OSError as exc:
            payloads[name] = exc
    return payloads


def _open_files(folder: Path, names: Iterable[str]) -> dict[str, Payload]:
    payloads: dict[str, Payload] = {}
    for name in names:
        try:
            payloads[name] = _open_regular(folder / name)
        except FileNotFoundError:
            payloads[name] = None
        except OSError as exc:
            payloads[name] = exc
    return payloads


def close_payloads(payloads: Mapping[str, Payload]) -> None:
    """Close the files :func:`read_folder` opened."""
    for payload in payloads.values():
        if payload is not None and not isinstance(payload, (bytes, OSError)):
            payload.close()


def _identity(folder: Path) -> tuple[int, int]:
    stat = os.stat(folder)
    return stat.st_dev, stat.st_ino


def _backup_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.previous")


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
    writer process is gone, or untouched for :data:`STALE_STAGING_SECONDS`. Another live
    save's folder stays."""
    now = time.time()
    for leftover in parent.glob(f".{name}.saving-*"):
        if leftover == keep:
            continue
        pid_text = leftover.name.rsplit(".saving-", 1)[1].split("-", 1)[0]
        try:
            stale = now - leftover.stat().st_mtime > STALE_STAGING_SECONDS
        except OSError:
            continue  # removed meanwhile by its own writer
        if stale or (pid_text.isdigit() and not _process_alive(int(pid_text))):
            shutil.rmtree(leftover, ignore_errors=True)
