"""The faiss index under the FAISS store: building from a factory string, id maps,
training, search parameters, rebuilding without dead vectors, and (de)serialising.

Pure functions over faiss objects; the store (:mod:`stores.faiss`) decides when to call
them and keeps its own state. faiss is imported on first use (:mod:`stores._lazy_faiss`).

faiss's Python objects come in two kinds: those that own their C++ index, and the
proxies ``downcast_index`` returns, which do not. Whoever holds a proxy must also keep
the owner referenced, or faiss frees the index under it; the functions that make proxies
return the owners to keep alongside (``keepalive``).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any, BinaryIO, Optional

import numpy as np

from rag.errors import CorruptIndexError, StorageError, ValidationError
from rag.persistence import FileSection
from stores._lazy_faiss import load_faiss

__all__ = [
    "strip_idmap",
    "new_index",
    "wrap",
    "inner",
    "ivf_of",
    "train",
    "set_search_parameters",
    "rebuild_without",
    "index_section",
    "deserialize",
    "descriptor_path",
    "read_index_file",
]


def _last_line(exc: BaseException) -> str:
    # faiss's RuntimeErrors carry a C++ trace; the last line says what went wrong.
    return str(exc).strip().splitlines()[-1]


def strip_idmap(factory: str) -> str:
    """``factory`` without a leading ``IDMap``: the store adds its own id map (IndexIDMap2,
    which can reconstruct by id)."""
    for prefix in ("IDMap2,", "IDMap,"):
        if factory.startswith(prefix):
            return factory[len(prefix):]
    return factory


def new_index(dimension: int, factory: str, metric: int) -> Any:
    """An empty faiss index from a factory string; a ValidationError with examples if faiss
    refuses the string."""
    try:
        return load_faiss().index_factory(dimension, factory, metric)
    except RuntimeError as exc:
        raise ValidationError(
            f"index_factory {factory!r} is not a faiss factory string faiss accepts "
            f"for dimension {dimension} ({_last_line(exc)}); examples: 'Flat', 'HNSW32', 'IVF256,Flat', 'IVF256,PQ32'"
        ) from exc


def ivf_of(index: Any) -> Any:
    """The IVF part of ``index`` (through wrappers), or None. Owned by ``index``: keep it alive."""
    return load_faiss().try_extract_index_ivf(index)


def inner(index: Any) -> Any:
    """The index inside the store's id map (or ``index`` itself for IVF), downcast."""
    faiss = load_faiss()
    if isinstance(index, faiss.IndexIDMap2):
        return faiss.downcast_index(index.index)
    return faiss.downcast_index(index)


def wrap(index: Any, metric: int, strategy: str) -> tuple[Any, list[Any]]:
    """``(searchable index, keepalive)`` for an empty faiss ``index``: an id map around it
    unless it keeps ids itself (IVF). ``strategy`` names the store's distance strategy in
    the error for an index of another ``metric``."""
    faiss = load_faiss()
    probe = faiss.downcast_index(index)
    if isinstance(probe, (faiss.IndexIDMap, faiss.IndexIDMap2)):
        probe = faiss.downcast_index(probe.index)
    if probe.metric_type != metric:
        raise ValidationError(
            f"the faiss index uses metric {probe.metric_type}, but distance_strategy {strategy} needs {metric}"
        )
    ivf = ivf_of(probe)
    if ivf is not None:
        # A hash table direct map lets IVF reconstruct and remove by arbitrary id.
        ivf.set_direct_map_type(faiss.DirectMap.Hashtable)
        return probe, [index]
    return faiss.IndexIDMap2(probe), [index]


def _training_minimum(index: Any) -> int:
    """Fewest training vectors this index accepts (k-means needs one per centroid)."""
    faiss = load_faiss()
    needed = 1
    ivf = ivf_of(index)
    if ivf is not None:
        needed = max(needed, int(ivf.nlist))
        ivf = faiss.downcast_index(ivf)
    probe = faiss.downcast_index(index)
    if isinstance(probe, (faiss.IndexIDMap, faiss.IndexIDMap2)):
        probe = faiss.downcast_index(probe.index)
    storage = getattr(probe, "storage", None)  # HNSW keeps its vectors in a storage index
    for part in (ivf, probe, faiss.downcast_index(storage) if storage is not None else None):
        pq = getattr(part, "pq", None)
        if pq is not None:
            needed = max(needed, int(pq.ksub))
    return needed


def train(index: Any, prepared: np.ndarray, factory: str) -> None:
    """Train ``index`` on ``prepared`` (n, d) float32 vectors unless it is trained already;
    a ValidationError saying how to fix too few vectors."""
    if index.is_trained:
        return
    needed = _training_minimum(index)
    if prepared.shape[0] < needed:
        raise ValidationError(
            f"index {factory!r} needs at least {needed} training vectors, got "
            f"{prepared.shape[0]}; add more vectors in the first call, call train(...) with a "
            f"sample, or use a smaller index (fewer IVF lists)"
        )
    try:
        index.train(prepared)
    except RuntimeError as exc:
        raise ValidationError(f"training index {factory!r} failed: {_last_line(exc)}") from exc


def set_search_parameters(index: Any, nprobe: Optional[int], ef_search: Optional[int]) -> None:
    """Set IVF's ``nprobe`` and HNSW's ``efSearch`` on ``index`` where it has them (None:
    leave faiss's value)."""
    ivf = ivf_of(index)
    if ivf is not None and nprobe is not None:
        ivf.nprobe = nprobe
    hnsw = getattr(inner(index), "hnsw", None)
    if hnsw is not None and ef_search is not None:
        hnsw.efSearch = ef_search


def rebuild_without(index: Any, dead: np.ndarray, factory: str, metric: int, strategy: str) -> tuple[Any, list[Any]]:
    """A new index (and its keepalive) holding every vector of ``index`` but the ``dead``
    labels, built, trained and filled before it is returned: a failure (too few vectors
    left to train on, say) leaves ``index`` as it was. ``index`` must have an id map."""
    faiss = load_faiss()
    # Live = what the index holds minus the dead, read from the index itself: during an
    # add-or-replace the store has not yet recorded the labels just added.
    present = faiss.vector_to_array(index.id_map)
    live = np.sort(present[~np.isin(present, dead)])
    fresh, keepalive = wrap(new_index(index.d, factory, metric), metric, strategy)
    if live.size:
        vectors = index.reconstruct_batch(live)
        train(fresh, vectors, factory)
        fresh.add_with_ids(vectors, live)
    return fresh, keepalive


def index_section(index: Any) -> FileSection:
    """``index`` as a streamed section: ``faiss.write_index`` straight to its file (faiss's
    own format, no pickle; no copy of the index in memory on the way)."""

    def write(path: Path) -> None:
        try:
            load_faiss().write_index(index, str(path))
        except RuntimeError as exc:  # faiss reports a full disk or an I/O error this way
            raise StorageError(errno.EIO, f"could not write the faiss index to {path}: {_last_line(exc)}",
                               str(path)) from exc

    return FileSection(".faiss", write)


def deserialize(payload: bytes, labels: np.ndarray, dimension: Optional[int], where: Any) -> tuple[Any, list[Any]]:
    """``(index, keepalive)`` from the bytes of a format-1 ``index.bin`` (faiss's format,
    as ``serialize_index`` gave it), checked against the saved ``labels`` and ``dimension``;
    CorruptIndexError naming ``where`` otherwise."""
    faiss = load_faiss()
    try:
        owner = faiss.deserialize_index(np.frombuffer(payload, dtype=np.uint8))
    except RuntimeError as exc:
        raise CorruptIndexError(f"{where}: the faiss index file cannot be read: {_last_line(exc)}") from exc
    return _checked(owner, labels, dimension, where)


def descriptor_path(handle: BinaryIO) -> str:
    """A path that opens the very file ``handle`` has open (``/proc/self/fd/N`` on Linux,
    ``/dev/fd/N`` on macOS and BSD), so a reader that wants a path reads the file that was
    verified, even after a save has replaced the folder since; its name elsewhere."""
    for candidate in (f"/proc/self/fd/{handle.fileno()}", f"/dev/fd/{handle.fileno()}"):  # Linux; macOS, BSD
        if os.path.exists(candidate):
            return candidate
    return str(handle.name)


def read_index_file(handle: BinaryIO, labels: np.ndarray, dimension: Optional[int], where: Any, *,
                    mapped: bool) -> tuple[Any, list[Any]]:
    """``(index, keepalive)`` read with ``faiss.read_index`` from the open, verified
    ``handle``, checked against the saved ``labels`` and ``dimension``.

    ``mapped``: memory-map the vectors (``IO_FLAG_MMAP_IFC``: flat codes, IVF lists, HNSW
    storage) instead of reading them: the load costs no memory, the pages come from the
    page cache as searches touch them, and processes opening the same index share them.
    faiss aborts the whole process on any write to a mapped index, so its owner must read
    it again unmapped before changing it (:func:`read_index_file` with ``mapped=False``).
    """
    faiss = load_faiss()
    try:
        owner = faiss.read_index(descriptor_path(handle), faiss.IO_FLAG_MMAP_IFC if mapped else 0)
    except RuntimeError as exc:
        raise CorruptIndexError(f"{where}: the faiss index file cannot be read: {_last_line(exc)}") from exc
    return _checked(owner, labels, dimension, where)


def _checked(owner: Any, labels: np.ndarray, dimension: Optional[int], where: Any) -> tuple[Any, list[Any]]:
    faiss = load_faiss()
    index = faiss.downcast_index(owner)
    if index.ntotal != labels.shape[0] or (dimension is not None and index.d != dimension):
        raise CorruptIndexError(
            f"{where}: the faiss index holds {index.ntotal} vectors of dimension {index.d}, "
            f"the documents say {labels.shape[0]} of dimension {dimension}"
        )
    if isinstance(index, faiss.IndexIDMap2):
        if not np.array_equal(np.sort(faiss.vector_to_array(index.id_map)), np.sort(labels)):
            raise CorruptIndexError(f"{where}: the faiss index's ids do not match the documents' ids")
        return index, [owner]
    ivf = ivf_of(index)
    if ivf is None:
        raise CorruptIndexError(f"{where}: the faiss index has no id map")
    ivf.set_direct_map_type(faiss.DirectMap.Hashtable)  # saved with it: a no-op unless the file predates that
    return index, [owner]
