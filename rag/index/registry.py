"""One registry of store backends and embedding models: name -> factory, with the
optional extra each needs. The index, the command line and the evaluation use it; adding
a store backend is one module in ``stores/`` plus one :func:`register_store` call.

Factories are named by ``"module:attribute"`` strings and imported on first use, so
reading the registry imports neither faiss nor onnxruntime (entry points set their
process defaults before those load).
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional

import rag
from rag._lazy import lazy_module
from rag._optional import installed, require_installed
from rag.errors import MissingDependencyError, ValidationError

# Hints name the embeddings and the stores by module: reading the registry (``rag --help``)
# imports neither; ``typing.get_type_hints`` imports them when it resolves the hints.
if TYPE_CHECKING:
    import rag.embeddings
    import rag.persistence
    import stores.base
else:
    stores = lazy_module("stores")

__all__ = [
    "StoreBackend", "EmbeddingModel", "register_store", "register_embeddings", "store_backend",
    "store_names", "embedding_model", "make_embeddings", "check_embedding_spec", "default_embedding_spec",
    "evaluation_store_factories", "warm_up",
]


def _resolve(path: str) -> Any:
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)




@dataclass(frozen=True)
class StoreBackend:
    """A vector store kind an index can be built on.

    ``store_class``: ``"module:Class"``, a :class:`~stores.VectorStore` subclass with
    ``to_sections``/``from_sections``; ``options``: keyword arguments for a new store
    (JSON data); ``extra``: the optional extra to install, and ``modules`` the modules it
    brings (checked before use, for a message that names the fix).
    """

    name: str
    store_class: str
    options: Mapping[str, Any] = field(default_factory=dict)
    extra: Optional[str] = None
    modules: tuple[str, ...] = ()
    description: str = ""
    #: ``"module:Class"`` of the :class:`rag.index.engine.IndexEngine` for a store that
    #: keeps the whole index in a database server: an index on it is a
    #: :class:`rag.index.Index` opened by URI (``Index.open("postgresql://...")``), never a folder.
    index_engine: Optional[str] = None

    @property
    def shared(self) -> bool:
        return self.index_engine is not None

    def cls(self) -> type[stores.base.VectorStore]:
        require_installed(self.modules, feature=f"the {self.name!r} store", extra=self.extra)
        store_class: type[stores.base.VectorStore] = _resolve(self.store_class)
        return store_class

    def create(self, embeddings: rag.embeddings.Embeddings) -> stores.base.VectorStore:
        """A new, empty store of this kind over ``embeddings``."""
        if self.shared:
            raise ValidationError(
                f"store {self.name!r} keeps the whole index in a database: open it by URI with "
                f"Index.open_or_create(URI) (rag index SOURCE --store-uri URI)")
        return self.cls()(embeddings, **dict(self.options))

    def load(self, folder: rag.persistence.IndexFolder, embeddings: rag.embeddings.Embeddings, config: dict[str, Any],
             prefix: str) -> stores.base.VectorStore:
        """The store saved in ``folder``'s sections under ``prefix``."""
        from stores._persisting import Persistence

        store_class = self.cls()
        if not issubclass(store_class, Persistence):
            raise ValidationError(f"store {self.name!r} ({self.store_class}) cannot be read from a folder: it has "
                                  "no from_sections")
        return store_class.from_sections(folder, embeddings, config, prefix=prefix)


@dataclass(frozen=True)
class EmbeddingModel:
    """An embeddings choice, named on the command line as ``NAME`` or, when
    ``takes_model``, ``NAME:MODEL`` (the factory then receives ``model=MODEL``).
    ``options``: keyword arguments the factory always receives (JSON data)."""

    name: str
    factory: str
    extra: Optional[str] = None
    modules: tuple[str, ...] = ()
    takes_model: bool = False
    local: bool = True  # False: the model runs on a server (texts leave the machine)
    description: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)

    def available(self) -> bool:
        return installed(self.modules)

    def create(self, model: Optional[str] = None, **options: Any) -> rag.embeddings.Embeddings:
        require_installed(self.modules, feature=f"--embeddings {self.name}", extra=self.extra)
        factory = _resolve(self.factory)
        options = {**self.options, **options}
        return factory(model=model, **options) if self.takes_model else factory(**options)


_STORES: dict[str, StoreBackend] = {}
_EMBEDDINGS: dict[str, EmbeddingModel] = {}


def register_store(backend: StoreBackend) -> StoreBackend:
    """Make ``backend`` available to indexes by its name (a later registration replaces it)."""
    _STORES[backend.name] = backend
    return backend


def register_embeddings(model: EmbeddingModel) -> EmbeddingModel:
    """Make ``model`` available by its name (a later registration replaces it)."""
    _EMBEDDINGS[model.name] = model
    return model


def store_names() -> tuple[str, ...]:
    return tuple(_STORES)


def store_backend(name: str) -> StoreBackend:
    """The registered backend ``name``; a ValidationError lists the choices."""
    try:
        return _STORES[name]
    except (KeyError, TypeError):
        raise ValidationError(f"store {name!r} is not one of {', '.join(_STORES)}") from None


def _spec_help() -> str:
    return ", ".join(f"{m.name}:MODEL" if m.takes_model else m.name for m in _EMBEDDINGS.values())


def check_embedding_spec(spec: str) -> tuple[EmbeddingModel, Optional[str]]:
    """The model and its argument for a spec such as ``local`` or ``openai:text-embedding-3-small``."""
    name, colon, argument = str(spec).partition(":")
    model = _EMBEDDINGS.get(name)
    if model is None or bool(colon) != model.takes_model or (model.takes_model and not argument):
        raise ValidationError(f"--embeddings {spec!r} is not one of {_spec_help()} (for example "
                              "openai:text-embedding-3-small)")
    return model, (argument or None)


def embedding_model(spec: str) -> EmbeddingModel:
    return check_embedding_spec(spec)[0]


def make_embeddings(spec: str, **options: Any) -> rag.embeddings.Embeddings:
    """The embeddings object ``spec`` names (a server's client only when named)."""
    model, argument = check_embedding_spec(spec)
    return model.create(argument, **options)


def warm_up(embeddings: rag.embeddings.Embeddings, spec: str) -> None:
    """Load the model of ``embeddings`` (made from ``spec``) in a worker thread, now, when
    ``spec`` names a model that runs here: a process about to search then reads its index
    while the model loads (mostly native code, on the other core) instead of one after the
    other. A server's model is never called just to warm it up."""
    if not embedding_model(spec).local:
        return

    load_now = getattr(embeddings, "load", None)
    if not callable(load_now):
        return

    def load() -> None:
        try:
            load_now()
        except Exception:  # noqa: BLE001 -- the search's own call raises it again, where it is reported
            return

    # Not a daemon: the interpreter waits for it at exit. A daemon thread still inside
    # onnxruntime's session set-up when the process ends aborted it ("terminate called
    # without an active exception"), after the results were printed. It only loads: no
    # inference runs in it, so none can be left running either.
    threading.Thread(target=load, name="rag-model-warm-up").start()


def evaluation_store_factories() -> dict[str, Callable[[rag.embeddings.Embeddings], stores.base.VectorStore]]:
    """Store factories for :func:`rag.evaluation.build_systems`: the registered ``faiss``
    and ``memory`` backends, exactly as an index builds them."""
    return {name: store_backend(name).create for name in ("faiss", "memory")}


def default_embedding_spec() -> str:
    """The first registered local model whose extra is installed: never the network."""
    for model in _EMBEDDINGS.values():
        if model.local and not model.takes_model and model.available():
            return model.name
    raise MissingDependencyError("no local embedding model is available")


# Built-in registrations. The order of the embeddings is the order of preference for the
# default: the MiniLM model when the `local` extra is installed, else hashing (no extra).
register_store(StoreBackend(
    "faiss", "stores.faiss:FAISS", {"distance_strategy": "COSINE"}, modules=("faiss",),
    description="FAISS flat index, cosine (exact; relevance means the same for every model)",
))
register_store(StoreBackend("memory", "stores.memory:InMemoryVectorStore", description="numpy matrix in memory"))
register_store(StoreBackend(
    "pgvector", "stores.pgvector:PGVector", extra="pgvector", modules=("psycopg", "pgvector"),
    index_engine="rag.index.engine_pgvector:PGVectorEngine",
    description="PostgreSQL + pgvector: the whole index in the database (--store-uri), shared by every machine",
))
register_store(StoreBackend(
    "milvus", "stores.milvus:Milvus", extra="milvus", modules=("pymilvus",),
    index_engine="rag.index.engine_milvus:MilvusEngine",
    description="Milvus 2.3: the whole index in Milvus (--store-uri http://host:19530), shared by every machine",
))
register_embeddings(EmbeddingModel(
    "local", "rag.embeddings:LocalEmbeddings", extra="local", modules=("onnxruntime", "tokenizers"),
    description="all-MiniLM-L6-v2 int8 ONNX, offline (float arithmetic)",
))
register_embeddings(EmbeddingModel(
    "local-int8", "rag.embeddings:LocalEmbeddings", extra="local", modules=("onnxruntime", "tokenizers", "onnx"),
    options={"arithmetic": "int8"},
    description="the same model with int8 arithmetic: ~1.5x faster, cosine ~0.996 to fp32",
))
register_embeddings(EmbeddingModel("hashing", "rag.embeddings:HashingEmbeddings", description="feature hashing, no model"))
register_embeddings(EmbeddingModel(
    "openai", "rag.embeddings:OpenAIEmbeddings", takes_model=True, local=False,
    description="an OpenAI-compatible embeddings server",
))
