"""Conformance: adding, replacing, getting and deleting documents, and what is refused."""

from __future__ import annotations

import numpy as np
import pytest

from rag.documents import Document
from rag.embeddings import HashingEmbeddings
from rag.errors import DimensionMismatchError, ValidationError
from stores.testing._support import DIM

__all__ = ["AddingTests", "InputValidationTests"]


class AddingTests:
    """Ids, add-or-replace, get and delete."""

    def test_add_texts_returns_the_given_ids(self, store):
        assert store.add_texts(["a", "b"], ids=["x", "y"]) == ["x", "y"]

    def test_add_texts_generates_distinct_ids_when_none_given(self, store):
        ids = store.add_texts(["a", "b", "c"])
        assert len(set(ids)) == 3 and all(isinstance(i, str) and i for i in ids)

    def test_add_documents_uses_the_document_id_when_no_ids_are_given(self, store):
        assert store.add_documents([Document("a", id="doc-a")]) == ["doc-a"]
        assert store.get_by_ids(["doc-a"])[0].page_content == "a"

    def test_get_by_ids_keeps_the_order_asked_and_skips_missing_ids(self, store):
        store.add_texts(["a", "b", "c"], ids=["1", "2", "3"])
        assert [d.id for d in store.get_by_ids(["3", "missing", "1"])] == ["3", "1"]

    def test_metadata_is_stored_and_returned(self, store):
        store.add_texts(["a"], [{"source": "x.txt", "page": 2}], ids=["1"])
        assert store.get_by_ids(["1"]) == [Document("a", {"source": "x.txt", "page": 2}, id="1")]

    def test_readding_an_id_replaces_the_document_and_its_vector(self, store):
        store.add_texts(["apples are red", "bananas are yellow"], ids=["fruit", "other"])
        store.add_texts(["kiwis are green"], ids=["fruit"])
        assert len(store) == 2
        assert store.get_by_ids(["fruit"])[0].page_content == "kiwis are green"
        top = store.similarity_search("kiwis are green", k=2)
        assert [d.page_content for d in top].count("kiwis are green") == 1
        assert "apples are red" not in [d.page_content for d in top]

    def test_duplicate_ids_in_one_call_raise_before_anything_is_written(self, store):
        store.add_texts(["kept"], ids=["k"])
        with pytest.raises(ValidationError, match="duplicate ids"):
            store.add_texts(["a", "b"], ids=["same", "same"])
        assert len(store) == 1 and store.get_by_ids(["same"]) == []

    def test_delete_removes_documents_from_search_and_get(self, store):
        store.add_texts(["alpha", "beta", "gamma"], ids=["a", "b", "c"])
        store.delete(["b"])
        assert len(store) == 2
        assert store.get_by_ids(["b"]) == []
        assert "beta" not in [d.page_content for d in store.similarity_search("beta", k=3)]

    def test_deleting_a_missing_id_does_not_raise(self, store):
        store.add_texts(["alpha"], ids=["a"])
        assert store.delete(["nope"]) is True
        assert len(store) == 1

    def test_delete_then_add_keeps_every_remaining_vector_searchable(self, vector_store):
        vector_store.delete([str(i) for i in range(0, 50, 3)])
        vectors = vector_store._test_vectors
        for i in (1, 2, 4, 49):
            assert vector_store.similarity_search_by_vector(vectors[i], k=1)[0].id == str(i)

    def test_returned_documents_are_copies(self, store):
        store.add_texts(["a"], [{"tag": "original"}], ids=["1"])
        store.get_by_ids(["1"])[0].metadata["tag"] = "changed"
        store.similarity_search("a", k=1)[0].metadata["tag"] = "changed"
        assert store.get_by_ids(["1"])[0].metadata == {"tag": "original"}


class InputValidationTests:
    """Bad input raises a ValidationError naming it, and leaves the store as it was."""

    def test_a_vector_of_the_wrong_dimension_raises_and_keeps_the_store(self, vector_store):
        with pytest.raises(DimensionMismatchError, match="dimension 3, expected 8"):
            vector_store.add_vectors([[1.0, 0.0, 0.0]], [Document("bad")])
        with pytest.raises(DimensionMismatchError):
            vector_store.similarity_search_by_vector([1.0, 0.0, 0.0])
        assert len(vector_store) == 50

    def test_nan_vectors_raise_and_keep_the_store(self, vector_store):
        bad = np.full((1, DIM), np.nan, dtype=np.float32)
        with pytest.raises(ValidationError, match="NaN"):
            vector_store.add_vectors(bad, [Document("bad")])
        with pytest.raises(ValidationError, match="NaN"):
            vector_store.similarity_search_by_vector(bad[0])
        assert len(vector_store) == 50

    def test_an_empty_query_vector_raises(self, vector_store):
        with pytest.raises(ValidationError, match="empty"):
            vector_store.similarity_search_by_vector([])

    def test_adding_nothing_returns_no_ids_and_keeps_the_store(self, vector_store):
        assert vector_store.add_texts([]) == []
        assert vector_store.add_documents([]) == []
        assert len(vector_store) == 50

    @pytest.mark.parametrize("k", [0, -1, 2.5, True])
    def test_k_must_be_a_positive_int(self, vector_store, k):
        with pytest.raises(ValidationError, match="k must be a positive int"):
            vector_store.similarity_search_by_vector(vector_store._test_vectors[0], k=k)

    def test_a_failing_embedding_model_leaves_the_store_unchanged(self, make_store):
        class Broken(HashingEmbeddings):
            def embed_documents(self, texts):
                raise RuntimeError("model crashed")

        store = make_store(HashingEmbeddings(dim=16))
        store.add_texts(["kept"], ids=["k"])
        store._embedding = Broken(dim=16)
        with pytest.raises(RuntimeError, match="model crashed"):
            store.add_texts(["lost"], ids=["k"])
        assert store.get_by_ids(["k"])[0].page_content == "kept"

    def test_texts_and_metadatas_of_different_lengths_raise(self, store):
        with pytest.raises(ValidationError, match="2 metadatas for 1 texts"):
            store.add_texts(["a"], [{}, {}])
