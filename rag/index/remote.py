"""An index folder from someone else must not send your queries to a server it names.

A folder's manifest says which embeddings built it. When that is a model computed by a
server (a registry entry with ``local=False``: ``openai:MODEL``, which posts every text
to ``$OPENAI_BASE_URL`` or OpenAI's API with ``$OPENAI_API_KEY``), opening the folder
would make every search (and every update) send its text there, with your key, because
of a file anyone could have written. The rule:

    A folder index uses embeddings from a server only when the person running it named
    that server: ``Index.open(path, embeddings="openai:MODEL")`` (``--embeddings
    openai:MODEL`` on the command line), or ``$RAG_ALLOW_EMBEDDINGS``, a comma-separated
    list of specs (``openai:text-embedding-3-small``), service names (``openai``: any of
    its models) or ``*`` (any).

Otherwise the folder still opens: ``rag info`` and BM25 search (which embed nothing) work,
and anything that would embed a text raises :class:`~rag.errors.EmbeddingsNotAllowedError`
naming the server and both ways to allow it, before any connection is made (an update
fails before it reads a source). A local model (``local``, ``hashing``) needs no
permission. An index kept in a database (``--store-uri``) is not covered: its URI was
named by its user, with the server that holds it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from rag.embeddings.base import Embeddings
from rag.errors import EmbeddingsNotAllowedError

__all__ = ["ALLOW_VARIABLE", "NotAllowedEmbeddings", "allowed_by_environment", "server_of", "folder_embeddings"]

#: The environment variable listing the embedding servers a folder index may use.
ALLOW_VARIABLE = "RAG_ALLOW_EMBEDDINGS"


def server_of(spec: str) -> str:
    """Where ``spec``'s texts would go, for a message (the URL, when the model says)."""
    name = spec.partition(":")[0]
    if name == "openai":
        from rag._openai_http import OPENAI_BASE_URL

        from stores._uri import redact_uri

        # A base URL may carry user:password@; the message shows the server, never that.
        return f"the OpenAI-compatible server at {redact_uri(os.environ.get('OPENAI_BASE_URL') or OPENAI_BASE_URL)}"
    return f"the {name} service"


def allowed_by_environment(spec: str, environ: Optional[dict[str, str]] = None) -> bool:
    """Whether ``$RAG_ALLOW_EMBEDDINGS`` names ``spec``, its service, or ``*``."""
    value = (environ if environ is not None else os.environ).get(ALLOW_VARIABLE, "")
    entries = {entry.strip() for entry in value.split(",") if entry.strip()}
    return bool(entries & {"*", spec, spec.partition(":")[0]})


class NotAllowedEmbeddings(Embeddings):
    """Stands in for a server's embeddings nobody allowed: it has the saved model's id and
    dimension (so the index opens and checks as usual) and refuses to embed anything."""

    def __init__(self, spec: str, path: Path, model_id: Optional[str], dimension: Optional[int]) -> None:
        self.spec, self.path = spec, Path(path)
        self._model_id = model_id or spec
        self.dimension = dimension

    @property
    def model_id(self) -> str:
        """The saved model's id, so the index checks as built by it."""
        return self._model_id

    def error(self) -> EmbeddingsNotAllowedError:
        return EmbeddingsNotAllowedError(
            f"the index at {self.path} was built with --embeddings {self.spec}, which sends every query and "
            f"document to {server_of(self.spec)}; nothing was sent. If you trust this index, allow it with "
            f"--embeddings {self.spec} (Index.open(path, embeddings={self.spec!r})) or "
            f"{ALLOW_VARIABLE}={self.spec}")

    # Every entry point refuses (the async ones call these in a worker thread).
    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        raise self.error()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        raise self.error()

    def embed_query_array(self, text: str) -> np.ndarray:
        raise self.error()

    def embed_query(self, text: str) -> list[float]:
        raise self.error()


def folder_embeddings(path: Path, spec: str, named: Optional[str], model_id: Optional[str],
                      dimension: Optional[int]) -> Optional[Embeddings]:
    """The embeddings a folder index built with ``spec`` may use: None (make ``spec``'s
    model as usual) when it runs here or was allowed (``named``: the spec the caller gave,
    checked to equal ``spec`` already; or the environment), else a
    :class:`NotAllowedEmbeddings` carrying the saved ``model_id`` and ``dimension``."""
    from rag.index.registry import check_embedding_spec

    model, _ = check_embedding_spec(spec)
    if model.local or named == spec or allowed_by_environment(spec):
        return None
    return NotAllowedEmbeddings(spec, path, model_id, dimension)
