"""Conformance: saving and loading, checked and atomic (backends that persist)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rag.documents import Document
from rag.embeddings import DeterministicFakeEmbedding, HashingEmbeddings
from rag.errors import CorruptIndexError, EmbeddingMismatchError
from stores.base import VectorStore
from stores.testing._support import DIM, largest_data_file, unit_rows

__all__ = ["PersistenceTests"]


class PersistenceTests:
    """Saved stores load with the same documents and results; damage is detected.

    A backend that persists overrides :meth:`save` and :meth:`load`; the tests skip
    otherwise.
    """

    def save(self, store: VectorStore, path: Path) -> None:
        """Persist ``store`` to the folder ``path``."""
        pytest.skip(f"{type(store).__name__} does not persist")

    def load(self, store_class: type, path: Path, embedding: Any) -> VectorStore:
        """Load a store saved by :meth:`save`."""
        pytest.skip(f"{store_class.__name__} does not persist")

    def test_a_saved_store_loads_with_the_same_documents_and_results(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        loaded = self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)
        assert len(loaded) == 50
        assert loaded.get_by_ids(["7"]) == vector_store.get_by_ids(["7"])
        query = unit_rows(3, 1)[0]
        assert [d.id for d in loaded.similarity_search_by_vector(query, k=5)] == [
            d.id for d in vector_store.similarity_search_by_vector(query, k=5)]

    def test_a_loaded_store_accepts_new_documents(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        loaded = self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)
        loaded.add_vectors(unit_rows(123, 1), [Document("new")], ids=["new"])
        assert len(loaded) == 51 and loaded.get_by_ids(["7"])[0].page_content == "doc 7"

    def test_saving_again_replaces_the_previous_index(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        vector_store.delete(["0", "1"])
        self.save(vector_store, tmp_path / "index")
        assert len(self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)) == 48
        assert [p.name for p in tmp_path.iterdir()] == ["index"]

    def test_loading_with_another_embedding_model_raises(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        with pytest.raises(EmbeddingMismatchError, match="DeterministicFakeEmbedding"):
            self.load(type(vector_store), tmp_path / "index", HashingEmbeddings(dim=DIM))

    def test_loading_with_another_dimension_raises(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        with pytest.raises(EmbeddingMismatchError):
            self.load(type(vector_store), tmp_path / "index", DeterministicFakeEmbedding(size=DIM + 1))

    def test_a_truncated_file_is_detected(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        victim = largest_data_file(tmp_path / "index")
        victim.write_bytes(victim.read_bytes()[:-10])
        with pytest.raises(CorruptIndexError, match="truncated"):
            self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)

    def test_a_missing_file_is_detected(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        largest_data_file(tmp_path / "index").unlink()
        with pytest.raises(CorruptIndexError, match="missing"):
            self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)

    def test_an_altered_file_is_detected_by_its_hash(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        victim = largest_data_file(tmp_path / "index")
        data = bytearray(victim.read_bytes())
        data[-1] ^= 0xFF
        victim.write_bytes(bytes(data))
        with pytest.raises(CorruptIndexError, match="sha256"):
            self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)

    def test_another_format_version_is_refused(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        manifest_path = tmp_path / "index" / "manifest.json"
        manifest = json.loads(manifest_path.read_text())
        manifest["format_version"] = 99
        manifest_path.write_text(json.dumps(manifest))
        with pytest.raises(CorruptIndexError, match="version 99"):
            self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)

    def test_a_missing_folder_raises_file_not_found(self, vector_store, tmp_path):
        with pytest.raises(FileNotFoundError):
            self.load(type(vector_store), tmp_path / "nothing-here", vector_store.embeddings)

    def test_an_interrupted_save_leaves_the_previous_index_loadable(self, vector_store, tmp_path, monkeypatch):
        import rag.persistence.atomic as persistence

        self.save(vector_store, tmp_path / "index")
        vector_store.delete(["0"])
        calls = {"n": 0}
        real_write = persistence._write_file

        def crash_on_second_file(path, payload):
            calls["n"] += 1
            if calls["n"] == 2:
                raise OSError(28, "No space left on device")
            real_write(path, payload)

        monkeypatch.setattr(persistence, "_write_file", crash_on_second_file)
        with pytest.raises(OSError):
            self.save(vector_store, tmp_path / "index")
        monkeypatch.undo()
        assert len(self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)) == 50
        assert [p.name for p in tmp_path.iterdir()] == ["index"]
