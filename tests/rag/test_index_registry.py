"""One registry of store backends and embedding models, shared by the library and the CLI."""

from __future__ import annotations

import pytest

from rag.cli import build_parser
from rag.errors import MissingDependencyError, ValidationError
from rag.index import EmbeddingModel, Index, StoreBackend, register_embeddings, register_store
from rag.index import registry
from stores import InMemoryVectorStore


class CountingStore(InMemoryVectorStore):
    """A backend defined outside the toolkit: the in-memory store, counting its adds."""

    adds = 0

    def add_vectors(self, *args, **kwargs):
        CountingStore.adds += 1
        return super().add_vectors(*args, **kwargs)


@pytest.fixture
def counting_backend():
    backend = register_store(StoreBackend("counting", f"{__name__}:CountingStore"))
    yield backend
    registry._STORES.pop("counting")


def test_a_registered_backend_builds_saves_and_reopens_an_index(counting_backend, tmp_path):
    (tmp_path / "a.txt").write_text("Apples are red.")
    index = Index.create(tmp_path / "ix", embeddings="hashing", store="counting")
    index.update([str(tmp_path / "a.txt")])
    reopened = Index.open(tmp_path / "ix")
    assert CountingStore.adds >= 1 and reopened.config.store == "counting"
    assert isinstance(reopened.backend._state.store, CountingStore) and len(reopened) == 1


def test_the_command_line_offers_every_registered_backend(counting_backend):
    index_command = build_parser()._subparsers._group_actions[0].choices["index"]
    store_option = next(a for a in index_command._actions if "--store" in a.option_strings)
    assert "counting" in store_option.choices and "faiss" in store_option.choices


def test_an_unknown_store_lists_the_registered_ones(tmp_path):
    with pytest.raises(ValidationError, match="'nosuch' is not one of faiss, memory"):
        Index.create(tmp_path / "ix", embeddings="hashing", store="nosuch")


def test_a_backend_whose_extra_is_missing_names_the_pip_install(tmp_path):
    register_store(StoreBackend("absent", "stores.memory:InMemoryVectorStore", extra="absent",
                                modules=("no_such_module_xyz",)))
    try:
        with pytest.raises(MissingDependencyError, match=r'pip install "ragpath\[absent\]"'):
            Index.create(tmp_path / "ix", embeddings="hashing", store="absent")
    finally:
        registry._STORES.pop("absent")


def test_a_registered_embedding_model_is_a_valid_spec(tmp_path):
    register_embeddings(EmbeddingModel("tiny", "rag.embeddings:HashingEmbeddings"))
    try:
        assert len(registry.make_embeddings("tiny").embed_query("x")) == 1024
        with pytest.raises(ValidationError, match="not one of local, local-int8, hashing, openai:MODEL, tiny"):
            registry.make_embeddings("huge")
    finally:
        registry._EMBEDDINGS.pop("tiny")


def test_a_model_spec_needs_its_model_name():
    with pytest.raises(ValidationError, match="'openai' is not one of"):
        registry.make_embeddings("openai")
