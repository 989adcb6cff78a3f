"""Saving and loading the FAISS store: the hooks of :mod:`stores._persisting`, and
LangChain's ``save_local``/``load_local``.

A saved store is an index folder (:mod:`rag.persistence`, written atomically): the faiss
index in faiss's own file format (``index.faiss``, written by ``faiss.write_index``
straight to disk, never copied in memory), the documents as JSON lines
(``documents.jsonl``, streamed block by block), the labels (``labels.npy``) and the
settings in the manifest. Every file's sha256 is checked in pieces when the folder is
loaded, and the index is then memory-mapped (``faiss.IO_FLAG_MMAP_IFC``): loading costs
no memory for the vectors, and several processes opening one index share its pages. The
first change to a loaded store reads the index into memory (faiss cannot write to a
mapped index). Nothing here unpickles. Folders saved before (format 1: one ``index.bin``
and one ``documents.json``) still load, into memory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Union

import numpy as np

from rag.errors import CorruptIndexError, ValidationError
from rag.persistence import IndexFolder
from stores import _faiss_index as faiss_index
from stores._lazy_faiss import load_faiss
from stores.scoring import DistanceStrategy

import stores  # type hints name stores.faiss.FAISS, which imports this module

__all__ = ["FaissPersistence"]


class FaissPersistence:
    """The FAISS store's persistence (mixed into :class:`stores.faiss.FAISS`)."""

    def _vector_sections(self: stores.faiss.FAISS, labels: np.ndarray) -> dict[str, Any]:
        # Tombstoned vectors are compacted away first: the saved index holds exactly `labels`.
        self.compact()
        sections: dict[str, Any] = {"labels": labels}
        if self._index is not None:
            sections["index"] = faiss_index.index_section(self._index)
        return sections

    def _config(self: stores.faiss.FAISS) -> dict[str, Any]:
        return {
            "distance_strategy": self.distance_strategy.value,
            "index_factory": self.index_factory,
            "normalize_L2": self._normalize_L2,
            "nprobe": self._nprobe,
            "efSearch": self._ef_search,
            "all_unit": self._all_unit,
            "faiss_version": load_faiss().__version__,
        }

    @classmethod
    def _from_config(cls, embedding: Any, config: Mapping[str, Any], options: Mapping[str, Any], where: Any) -> stores.faiss.FAISS:
        # normalize_L2 and distance_strategy shape the saved vectors: a load may repeat them, not change them.
        for name in ("normalize_L2", "distance_strategy"):
            if name in options:
                given = options[name].value if isinstance(options[name], DistanceStrategy) else options[name]
                if given != config.get(name):
                    raise ValidationError(
                        f"{name}={options[name]!r} differs from the saved index's {config.get(name)!r}; rebuild the index to change it"
                    )
        try:
            store = cls(
                embedding=embedding,
                distance_strategy=config["distance_strategy"],
                normalize_L2=bool(config["normalize_L2"]),
                index_factory=config["index_factory"],
                nprobe=options.get("nprobe", config.get("nprobe")),
                efSearch=options.get("efSearch", config.get("efSearch")),
                relevance_score_fn=options.get("relevance_score_fn"),
            )
        except KeyError as exc:
            raise CorruptIndexError(f"{where}: the FAISS configuration lacks {exc}") from exc
        store._all_unit = bool(config.get("all_unit", False))
        return store

    def _restore_vectors(self: stores.faiss.FAISS, folder: IndexFolder, prefix: str) -> np.ndarray:
        labels = folder.array(f"{prefix}labels")
        if labels.dtype != np.int64 or labels.ndim != 1:
            raise CorruptIndexError(f"{folder.path}: labels must be a 1-D int64 array, got {labels.dtype} {labels.shape}")
        name = f"{prefix}index"
        if not folder.has(name):
            return labels
        dimension = folder.manifest.dimension
        if folder.file_name(name).endswith(".bin"):  # format 1: faiss's bytes, read whole
            self._use(*faiss_index.deserialize(folder.bytes(name), labels, dimension, folder.path))
            return labels
        verified = folder.verified_file(name)
        # Our own descriptor of the verified file: the folder closes its own, and the mapped
        # index is read from it again, unmapped, before the first change (see FAISS._writable).
        handle = os.fdopen(os.dup(verified.fileno()), "rb", buffering=0)
        handle.name = str(folder.path / folder.file_name(name))  # for messages, and where no fd path exists
        try:
            index, keepalive = faiss_index.read_index_file(handle, labels, dimension, folder.path, mapped=True)
        except BaseException:
            handle.close()
            raise
        self._use(index, keepalive, mapped_file=handle)
        return labels

    def save_local(self: stores.faiss.FAISS, folder_path: Union[str, os.PathLike], index_name: str = "index") -> None:
        """Save to ``folder_path/index_name/`` atomically: manifest, faiss index file, JSON
        lines, .npy. Tombstoned vectors are compacted away first. Adds and searches wait
        until the files are written (the store's lock is held)."""
        self._save_folder(Path(folder_path) / index_name)

    @classmethod
    def load_local(
        cls,
        folder_path: Union[str, os.PathLike],
        embeddings: Any,
        index_name: str = "index",
        *,
        allow_dangerous_deserialization: bool = False,
        **kwargs: Any,
    ) -> stores.faiss.FAISS:
        """Load a store written by :meth:`save_local`, its index memory-mapped.

        ``allow_dangerous_deserialization`` is accepted for LangChain compatibility and
        ignored: nothing here unpickles. ``kwargs``: ``relevance_score_fn``, ``nprobe``,
        ``efSearch``; ``normalize_L2`` and ``distance_strategy`` may be given only if they
        equal the saved ones. Raises FileNotFoundError, CorruptIndexError or
        EmbeddingMismatchError.
        """
        del allow_dangerous_deserialization  # no pickle anywhere: nothing dangerous to allow
        return cls._load_folder(Path(folder_path) / index_name, embeddings, **kwargs)
