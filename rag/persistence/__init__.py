"""Saving without pickle: the index folder format, written atomically.

:mod:`rag.persistence.format` is what an index folder holds (a versioned manifest plus one
``.npy``, JSON or ``.bin`` file per named section, each with its size and sha256);
:mod:`rag.persistence.atomic` is how a folder is replaced in one step and read whole.
Everything a caller needs is here::

    write_index_folder(path, Manifest(store_class="MyStore", model_id=None, dimension=None),
                       {"vectors": array, "documents": [...]})
    folder = read_index_folder(path, store_class="MyStore")
    folder.array("vectors"), folder.json("documents")

Sections too large to hold as bytes are streamed (:mod:`rag.persistence.streams`):
``FileSection(".faiss", writer)`` and ``JsonLinesSection(values)``, read back with
``folder.verified_file(name)`` and ``folder.json_lines(name)``.
"""

from rag.persistence.format import (
    FORMAT,
    FORMAT_VERSION,
    IndexFolder,
    Manifest,
    SectionData,
    index_folder_exists,
    read_index_folder,
    write_index_folder,
)
from rag.persistence.streams import FileSection, JsonLinesSection

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Manifest",
    "IndexFolder",
    "SectionData",
    "FileSection",
    "JsonLinesSection",
    "write_index_folder",
    "read_index_folder",
    "index_folder_exists",
]
