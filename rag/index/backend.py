"""The seam between :class:`~rag.index.Index` and where an index lives.

An index is written once (:mod:`rag.index.core`): selection of sources, chunking, vector
reuse, checkpoints, fan-out to workers, search dispatch, retriever, answers, chat and
info. Where its parts live is a backend's business, behind :class:`IndexBackend`:

- a folder (:mod:`rag.index.backend_folder`): segments, BM25 postings and an atomic
  manifest; a checkpoint is one new segment and a manifest swap;
- a database engine (:mod:`rag.index.backend_engine` over :mod:`rag.index.engine`):
  PostgreSQL + pgvector (a checkpoint is one transaction) or Milvus (write stamps).

A backend declares what it cannot do in :attr:`IndexBackend.capabilities`; the index
refuses such an operation with an :class:`~rag.errors.UnsupportedOperationError` naming
the backend. :func:`parse_target` tells a folder from a URI, so nothing above this
module branches on the kind of backend.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Mapping, Optional, Protocol, Sequence, Union

from rag.documents import Document
from rag.errors import ValidationError

if TYPE_CHECKING:
    from rag.embeddings.base import Embeddings
    from rag.index.config import IndexConfig
    from rag.index.lexical import Predicate
    from rag.index.segments import Batch
    from rag.index.state import SourceRecord
    from stores.base import VectorStore

__all__ = ["IndexBackend", "BackendFacts", "Target", "parse_target", "URI_SCHEMES", "SAVE_LOCAL", "EXPRESSION_FILTER",
           "ATOMIC_COMMIT",
           "Exclusive", "OnWait"]

#: A target: a folder path, or a URI naming a database (see :func:`parse_target`).
Target = Union[str, Path]
#: A context manager factory under which no search of this process runs (the index's write lock).
Exclusive = Callable[[], ContextManager[None]]
#: Called when another process holds the index's write lock and the update waits for it.
OnWait = Optional[Callable[[], None]]

#: Capability: the index can be copied to a folder (:meth:`rag.index.Index.save_local`).
SAVE_LOCAL = "save_local"
#: Capability: a commit is all or nothing, so an update killed part way leaves no chunk the
#: record of sources does not name (a folder: a manifest swap; PostgreSQL: one transaction).
#: Without it (Milvus 2.3: no transactions), a killed update's last checkpoint may leave
#: searchable chunks of sources not yet recorded: an update that indexes those sources again
#: rewrites them, but chunks beyond a source's new length (or of a source since gone) stay.
ATOMIC_COMMIT = "atomic_commit"
#: Capability: a filter may be a string in the engine's own expression language (Milvus's
#: ``metadata["source"] != ""``), for dense searches.
EXPRESSION_FILTER = "expression_filter"

#: URI scheme -> the store backend that keeps an index there.
URI_SCHEMES: Mapping[str, str] = {
    "postgresql": "pgvector", "postgres": "pgvector",
    "http": "milvus", "https": "milvus", "tcp": "milvus", "grpc": "milvus",
}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


@dataclass(frozen=True)
class BackendFacts:
    """What ``Index.info()`` takes from the backend: the store's description, bytes taken
    (0 when the backend cannot say), when it was saved (None: unknown) and whether the
    lexical side is the project's BM25 (False: the database's own full-text ranking)."""

    store: str
    size_bytes: int
    saved_at: Optional[str]
    bm25: bool


class IndexBackend(Protocol):
    """Where an index's parts live: the chunks (a vector store), the lexical side, the
    record of indexed sources and the configuration. Written to by :meth:`commit` only,
    which the index calls with its locks held."""

    #: ``folder``, ``pgvector`` or ``milvus``: for messages.
    name: str
    #: What this backend can do beyond the common operations (e.g. :data:`SAVE_LOCAL`).
    capabilities: frozenset[str]

    @property
    def where(self) -> str:
        """The folder, or the database URI without credentials and the collection: safe to print."""

    @property
    def config(self) -> IndexConfig:
        """The configuration as last committed (or as created, before the first commit)."""

    @property
    def embeddings(self) -> Embeddings:
        """The model the index is built with."""

    @property
    def store(self) -> VectorStore:
        """The vector store holding the chunks (a folder backend reads it on first use)."""

    @property
    def record(self) -> Mapping[str, SourceRecord]:
        """source -> what the index holds of it, as of the last commit this process saw."""

    @property
    def dimension(self) -> Optional[int]:
        """The vectors' dimension (None before the first chunk)."""

    @property
    def chunk_count(self) -> int:
        """Chunks in the index, from the record."""

    @property
    def chats_folder(self) -> Path:
        """A local folder where chat sessions over this index are kept."""

    def held_chunk_ids(self, source: str, record: SourceRecord) -> list[str]:
        """The ids of the stored chunks of ``source``: what a change of it replaces or deletes."""

    def lexical_search(self, query: str, k: int, filter: Any, predicate: Optional[Predicate]
                       ) -> list[tuple[Document, float]]:
        """The ``k`` best lexical matches, ``(chunk, score)``; ``filter`` in the stores' dict
        language (or a predicate), ``predicate`` the same compiled over metadata."""

    def lexical_scores(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        """chunk id -> the lexical side's score of ``query`` for each stored chunk of ``ids``,
        as :meth:`lexical_search` would report it (0 for a chunk matching no query term;
        unknown ids may be left out): one vectorised pass or round trip. No filter: the
        caller names chunks that passed it on the other side."""

    def before_read(self) -> None:
        """Make the store readable before a search (a folder reads its segments here)."""

    def writing(self, on_wait: OnWait) -> ContextManager[None]:
        """Held for a whole update: excludes other writers where the backend can (a folder:
        a lock file; PostgreSQL: an advisory lock; Milvus: nothing), and brings this
        process up to date with the newest commit first."""

    def commit(self, batch: Batch, config: IndexConfig, *, final: bool, exclusive: Exclusive) -> None:
        """Apply ``batch`` (chunks with vectors, removals, record changes) and make it
        durable together with ``config``; ``final``: the update's last commit. On failure
        nothing this process serves shows a change that was not saved."""

    def refresh(self, exclusive: Exclusive) -> bool:
        """Catch up with a commit made by another process; True if there was one."""

    def facts(self) -> BackendFacts:
        """What info() reports of the backend itself."""

    def save_local(self, folder: Path) -> None:
        """Copy the index to ``folder`` (only with :data:`SAVE_LOCAL`)."""

    def close(self) -> None:
        """Release connections; the index stays where it is."""


def parse_target(target: Target) -> tuple[str, Union[Path, str]]:
    """``("folder", Path)`` or ``(store backend name, URI)`` for an index target.

    A URI names its backend by scheme: ``postgresql://`` / ``postgres://`` (PostgreSQL +
    pgvector), ``http(s)://``, ``tcp://`` or ``grpc://`` (Milvus's proxy). Anything else
    with a scheme is refused, as is a path that reads as a misspelt URI
    (``postgresql:/host/db``), which would otherwise become a folder of that name.
    """
    if isinstance(target, Path):
        return "folder", target
    if not isinstance(target, str) or not target.strip():
        raise ValidationError(f"an index is a folder path or a database URI, got {target!r:.80}")
    match = _SCHEME.match(target)
    if match is None or len(match.group(1)) == 1:  # "C:\\..." is a Windows drive, not a scheme
        return "folder", Path(target)
    scheme = match.group(1).lower()
    from stores._uri import redact_uri

    shown = redact_uri(target)
    if scheme not in URI_SCHEMES:
        if not target[match.end():].startswith("//"):
            return "folder", Path(target)  # a folder named "notes:2024"
        known = ", ".join(f"{name}://" for name in URI_SCHEMES)
        raise ValidationError(f"{shown!r:.80} has the scheme {scheme!r}, which names no index backend; expected a "
                              f"folder path or a URI starting {known}")
    if not target[match.end():].startswith("//"):
        raise ValidationError(f"{shown!r:.80} reads as a {scheme}:// URI without '//' after the scheme; write "
                              f"{scheme}://HOST/... (or start it with ./ for a folder of that name)")
    return URI_SCHEMES[scheme], target
