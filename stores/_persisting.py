"""Saving and loading a store, once for every backend: one template over the index folder
format of :mod:`rag.persistence` (a manifest plus ``.npy``/JSON/``.bin`` sections, written
atomically, pickle off).

Mixed into :class:`stores.base.VectorStore`. A backend supplies three hooks and gets
everything else (the LangChain-named methods, such as ``FAISS.save_local`` or
``InMemoryVectorStore.dump``, are one-line aliases of :meth:`Persistence._save_folder` and
:meth:`Persistence._load_folder`):

- ``_vector_sections(labels)``: its vectors for the documents' ``labels``, as sections
  (large ones streamed: :class:`~rag.persistence.streams.FileSection`);
- ``_config()``: its settings, as JSON data;
- ``_from_config(embedding, config, options, where)`` (classmethod): a new, empty store
  with those settings and the load ``options`` it declares in ``load_options``;
- ``_restore_vectors(folder, prefix)``: read its vectors back; returns their labels.

The documents (ids, texts, metadata) are saved and checked here, the same for every store.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar, Mapping, TypeVar, Union

import numpy as np

from rag.embeddings.base import model_id_of
from rag.errors import ValidationError
from rag.persistence import IndexFolder, Manifest, SectionData, read_index_folder, write_index_folder
from stores._columns import blocks_from_rows

__all__ = ["Persistence"]

P = TypeVar("P", bound="Persistence")


class Persistence:
    """The save/load template and its hooks (see the module docstring)."""

    #: Keyword arguments :meth:`from_sections` (and so every load method) accepts, on top
    #: of the saved configuration: settings a loaded store may change, such as a search
    #: breadth. Anything else is refused with this list.
    load_options: ClassVar[frozenset[str]] = frozenset()

    # ------------------------------------------------------------------ hooks

    def _vector_sections(self, labels: np.ndarray) -> dict[str, SectionData]:
        """This store's vectors for ``labels`` (int64, ascending), as named sections."""
        raise NotImplementedError(f"{type(self).__name__} cannot be saved")

    def _config(self) -> dict[str, Any]:
        """This store's settings, as JSON data (``store_class`` is added for it)."""
        return {}

    @classmethod
    def _from_config(cls: type[P], embedding: Any, config: Mapping[str, Any], options: Mapping[str, Any], where: Any) -> P:
        """A new, empty store with the saved ``config`` and load ``options``; ``where``
        names the folder in errors."""
        return cls(embedding)

    def _restore_vectors(self, folder: IndexFolder, prefix: str) -> np.ndarray:
        """Read back what :meth:`_vector_sections` saved; the labels (int64) it holds."""
        raise NotImplementedError(f"{type(self).__name__} cannot be loaded")

    # ------------------------------------------------------------------ the template

    def to_sections(self, prefix: str = "") -> tuple[dict[str, Any], dict[str, SectionData]]:
        """``(config, sections)``: this store as plain data for an index folder.

        Sections are named ``prefix + name``, so a store can share one folder (and one
        atomic save) with other parts of an index, such as a BM25 index. ``config`` is
        JSON. :meth:`from_sections` reverses it. The large sections (documents, a faiss
        index) are streamed: they read the store as they are written, so write them
        before the store changes (hold its ``_lock`` throughout, as :meth:`_save_folder`).
        """
        with self._lock:
            labels, documents = self._columns.to_section()
            vectors = self._vector_sections(labels)
            config = {"store_class": type(self).__name__, **self._config()}
        sections: dict[str, SectionData] = {f"{prefix}documents": documents}
        sections.update((prefix + name, data) for name, data in vectors.items())
        return config, sections

    @classmethod
    def from_sections(
        cls: type[P], folder: IndexFolder, embedding: Any, config: Mapping[str, Any], prefix: str = "", **options: Any
    ) -> P:
        """Rebuild a store saved by :meth:`to_sections` from an opened index folder.

        ``options``: those named in :attr:`load_options`. Raises CorruptIndexError when
        the sections do not fit together, ValidationError for an unknown option.
        """
        cls._check_load_options(options)
        store = cls._from_config(embedding, config, options, folder.path)
        store._dimension = folder.manifest.dimension
        # Documents first: meanwhile the folder hashes the large vector files in a worker
        # thread, which _restore_vectors then only waits for.
        name = f"{prefix}documents"
        if folder.file_name(name).endswith(".jsonl"):
            blocks = folder.json_lines(name)
        else:  # format 1: one JSON document
            blocks = blocks_from_rows(folder.json(name), folder.path)
        ids = store._columns.restore(blocks, folder.path)
        labels = store._restore_vectors(folder, prefix)
        store._columns.assign_labels(ids, labels, folder.path)
        return store

    @classmethod
    def _check_load_options(cls, options: Mapping[str, Any]) -> None:
        unknown = sorted(set(options) - cls.load_options)
        if unknown:
            raise ValidationError(
                f"{cls.__name__} got unexpected load options {unknown}; it accepts {sorted(cls.load_options)}"
            )

    def _save_folder(self, path: Union[str, os.PathLike]) -> Path:
        """Save to the index folder ``path`` atomically; its path. The store's lock is held
        until the files are written: adds and searches wait for the save."""
        with self._lock:
            config, sections = self.to_sections()
            manifest = Manifest(
                store_class=type(self).__name__,
                model_id=model_id_of(self._embedding) if self._embedding is not None else None,
                dimension=self._dimension,
                distance_strategy=self.distance_strategy.value,
                config=config,
            )
            return write_index_folder(path, manifest, sections)

    @classmethod
    def _load_folder(cls: type[P], path: Union[str, os.PathLike], embedding: Any, **options: Any) -> P:
        """Load what :meth:`_save_folder` wrote, refusing an index built with other embeddings.

        Raises FileNotFoundError for a missing folder, CorruptIndexError for a damaged one
        and EmbeddingMismatchError for another ``model_id`` or dimension.
        """
        cls._check_load_options(options)
        with read_index_folder(path, store_class=cls.__name__) as folder:
            if embedding is not None:
                folder.check_embedding(model_id_of(embedding), getattr(embedding, "dimension", None))
            return cls.from_sections(folder, embedding, folder.manifest.config, **options)
